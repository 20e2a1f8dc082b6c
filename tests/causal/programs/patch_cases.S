// Lines whose first instructions causal-run's patched --progress counters move into a
// trampoline (causal/patch_plan.h), one case per function, written in assembly so that
// each case is exactly the code it names. patch_cases_main.c calls each one and prints
// what they returned: a case the move got wrong changes the output.
        .intel_syntax noprefix
        .text

// A RIP-relative load: its displacement is rebased in the trampoline.
        .globl case_rip_load
        .type case_rip_load, @function
case_rip_load:
        mov rax, QWORD PTR [rip + case_data]  // RIP_LOAD_LINE
        add rax, rdi
        ret
        .size case_rip_load, .-case_rip_load

// Three short instructions make the 5 bytes a jump needs.
        .globl case_short
        .type case_short, @function
case_short:
        xor eax, eax  // SHORT_LINE
        add eax, edi
        add eax, 1
        ret
        .size case_short, .-case_short

// A call: the callee must see the original return address (it checks) and return there.
        .globl case_call
        .type case_call, @function
case_call:
        sub rsp, 8
        call case_helper  // CALL_LINE
case_after_call:
        add rsp, 8
        ret
        .size case_call, .-case_call

        .type case_helper, @function
case_helper:
        lea rax, [rip + case_after_call]
        cmp QWORD PTR [rsp], rax
        jne 1f
        lea rax, [rdi + 7]
        ret
1:      mov rax, -1
        ret
        .size case_helper, .-case_helper

// Flags set before the counted line and used after it: the increment must not change them.
        .globl case_flags
        .type case_flags, @function
case_flags:
        xor eax, eax
        cmp edi, 5
        mov rcx, QWORD PTR [rip + case_data]  // FLAGS_LINE
        jge 1f
        mov eax, 1
1:      ret
        .size case_flags, .-case_flags

// A leaf function's red zone, live across the counted line.
        .globl case_red_zone
        .type case_red_zone, @function
case_red_zone:
        mov QWORD PTR [rsp - 8], rdi
        mov QWORD PTR [rsp - 16], rdi
        movabs rax, 0x1122334455667788  // RED_ZONE_LINE
        mov rax, QWORD PTR [rsp - 8]
        add rax, QWORD PTR [rsp - 16]
        ret
        .size case_red_zone, .-case_red_zone

// A compare and a short conditional branch make the window; the branch goes on as rel32.
        .globl case_branch
        .type case_branch, @function
case_branch:
        xor eax, eax
        cmp edi, 3  // BRANCH_LINE
        jle 1f
        mov eax, 2
1:      add eax, 1
        ret
        .size case_branch, .-case_branch

// A branch lands on the counted line's second instruction: its code cannot be moved, and
// the kernel counts it.
        .globl case_refused
        .type case_refused, @function
case_refused:
        xor eax, eax
        mov ecx, 2
        jmp 3f
2:      add eax, 2  // REFUSED_LINE
3:      add eax, 1
        dec ecx
        jg 2b
        ret
        .size case_refused, .-case_refused

        .data
        .balign 8
case_data:
        .quad 1000

        .section .note.GNU-stack,"",@progbits
