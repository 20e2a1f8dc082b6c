// Patch plans (causal/patch_plan.h): their text form, and the trampoline's bytes.
#include "causal/patch_plan.h"

#include <gtest/gtest.h>

#include <cstring>

namespace cprof::causal {
namespace {

// The 5 bytes of a jmp/call rel32 or the 6 of a jcc rel32 at `at` in `code` (placed at
// `base`): where it goes.
uint64_t rel32_target(const std::vector<uint8_t>& code, uint64_t base, size_t at, size_t opcode) {
  int32_t rel = 0;
  std::memcpy(&rel, code.data() + at + opcode, 4);
  return base + at + opcode + 4 + static_cast<int64_t>(rel);
}

// The trampoline's fixed start: red zone, flags, the counter's increment, back again.
constexpr size_t kPrologue = 5 + 1 + 8 + 1 + 8;

TEST(PatchPlan, TextRoundTrips) {
  PatchPlan plan;
  plan.bytes = {0x48, 0x8b, 0x05, 0x10, 0, 0, 0, 0x83, 0xff, 0x03, 0x7e, 0x05, 0xe8, 1, 2, 3, 4};
  plan.steps = {{PatchStep::Kind::rip_data, 7, 3, 0, 0},
                {PatchStep::Kind::copy, 3, 0, 0, 0},
                {PatchStep::Kind::branch, 2, 0, 14, 17},
                {PatchStep::Kind::call, 5, 0, 0, -4096}};
  const std::string text = format_patch_plan(plan);
  EXPECT_EQ(text, "488b051000000083ff037e05e801020304;r7.3,p3,b2.14.17,c5.-4096");
  std::string error;
  const auto back = parse_patch_plan(text, error);
  ASSERT_TRUE(back.has_value()) << error;
  EXPECT_EQ(back->bytes, plan.bytes);
  ASSERT_EQ(back->steps.size(), 4u);
  EXPECT_EQ(back->steps[0].disp_offset, 3);
  EXPECT_EQ(back->steps[2].condition, 14);
  EXPECT_EQ(back->steps[2].target_delta, 17);
  EXPECT_EQ(back->steps[3].kind, PatchStep::Kind::call);
  EXPECT_EQ(back->steps[3].target_delta, -4096);
}

TEST(PatchPlan, TextThatIsNotAPlanIsRefused) {
  for (const char* text : {"", ";p5", "4889;p2", "48894424;p4", "zz8b050000000000;p7",
                           "e80000000090;c5.0,p1", "4889c0ebfe;p3,x2", "488b0510000000;r7.5"}) {
    std::string error;
    EXPECT_FALSE(parse_patch_plan(text, error).has_value()) << text;
    EXPECT_FALSE(error.empty()) << text;
  }
}

TEST(PatchPlan, TheTrampolineCountsRunsTheWindowAndJumpsBack) {
  // mov rax, [rip+0x100] at 0x1000: its operand is 0x1107.
  PatchPlan plan;
  plan.bytes = {0x48, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00};
  plan.steps = {{PatchStep::Kind::rip_data, 7, 3, 0, 0}};
  std::string error;
  const auto code = trampoline_code(plan, 0x1000, 0x8000, 0x9000, error);
  ASSERT_TRUE(code.has_value()) << error;
  ASSERT_EQ(code->size(), kPrologue + 7 + 5);
  // lock inc qword [rip+rel] on the counter.
  EXPECT_EQ((*code)[6], 0xf0);
  EXPECT_EQ(rel32_target(*code, 0x8000, 6, 4), 0x9000u);
  // The moved load reads what it read.
  int32_t disp = 0;
  std::memcpy(&disp, code->data() + kPrologue + 3, 4);
  EXPECT_EQ(0x8000 + kPrologue + 7 + static_cast<int64_t>(disp), 0x1107);
  // Then back to the first byte after the window.
  EXPECT_EQ((*code)[kPrologue + 7], 0xe9);
  EXPECT_EQ(rel32_target(*code, 0x8000, kPrologue + 7, 1), 0x1007u);
  // The site jumps to the trampoline and pads the rest with int3.
  const auto jump = site_jump(plan, 0x1000, 0x8000);
  ASSERT_TRUE(jump.has_value());
  ASSERT_EQ(jump->size(), 7u);
  EXPECT_EQ(rel32_target(*jump, 0x1000, 0, 1), 0x8000u);
  EXPECT_EQ((*jump)[5], 0xcc);
  EXPECT_EQ((*jump)[6], 0xcc);
}

TEST(PatchPlan, AMovedCallPushesTheOriginalReturnAddress) {
  // push rbx; call rel32 (to 0x500 below the site): the callee returns after the window.
  const uint64_t site = 0x7f0012345000;
  PatchPlan plan;
  plan.bytes = {0x53, 0xe8, 0xfa, 0xfa, 0xff, 0xff};
  plan.steps = {{PatchStep::Kind::copy, 1, 0, 0, 0}, {PatchStep::Kind::call, 5, 0, 0, -0x500}};
  std::string error;
  const uint64_t trampoline = site - 0x100000;
  const auto code = trampoline_code(plan, site, trampoline, trampoline + 4096, error);
  ASSERT_TRUE(code.has_value()) << error;
  size_t at = kPrologue;
  EXPECT_EQ((*code)[at], 0x53);  // push rbx, as it was
  at += 1;
  // lea rsp, [rsp-8]; mov dword [rsp], low; mov dword [rsp+4], high; jmp target.
  EXPECT_EQ((*code)[at], 0x48);
  uint32_t low = 0;
  uint32_t high = 0;
  std::memcpy(&low, code->data() + at + 5 + 3, 4);
  std::memcpy(&high, code->data() + at + 5 + 7 + 4, 4);
  EXPECT_EQ((static_cast<uint64_t>(high) << 32) | low, site + 6);
  const size_t jmp = at + 5 + 7 + 8;
  EXPECT_EQ((*code)[jmp], 0xe9);
  EXPECT_EQ(rel32_target(*code, trampoline, jmp, 1), site - 0x500);
  EXPECT_EQ(code->size(), jmp + 5);  // nothing after: the call does not come back here
}

// The rows say where the program stands at each byte of the trampoline, for the
// unwinder: the prologue at the site with its stack moved (red zone, then the flags), each
// moved instruction at its own place, the call's pushed return address, the jump back.
TEST(PatchPlan, TheTrampolinesRowsSayWhereTheProgramStands) {
  const uint64_t site = 0x7f0012345000;
  PatchPlan plan;
  plan.bytes = {0x53, 0xe8, 0xfa, 0xfa, 0xff, 0xff};
  plan.steps = {{PatchStep::Kind::copy, 1, 0, 0, 0}, {PatchStep::Kind::call, 5, 0, 0, -0x500}};
  std::string error;
  std::vector<TrampolineRow> rows;
  const uint64_t trampoline = site - 0x100000;
  ASSERT_TRUE(trampoline_code(plan, site, trampoline, trampoline + 4096, error, &rows));
  const std::vector<TrampolineRow> expected{
      {0, 0, 0},                                      // lea rsp, [rsp-128] not run yet
      {5, 0, -128},                                   // pushfq
      {6, 0, -136},                                   // lock inc, popfq
      {15, 0, -128},                                  // lea rsp, [rsp+128]
      {static_cast<uint16_t>(kPrologue), 0, 0},       // push rbx
      {static_cast<uint16_t>(kPrologue + 1), 1, 0},   // the call: lea rsp, [rsp-8]
      {static_cast<uint16_t>(kPrologue + 6), 1, -8},  // its return address, the jump
  };
  EXPECT_EQ(rows, expected);

  // A window that falls through ends with the jump back, at the first byte after it.
  PatchPlan load;
  load.bytes = {0x48, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00};
  load.steps = {{PatchStep::Kind::rip_data, 7, 3, 0, 0}};
  ASSERT_TRUE(trampoline_code(load, 0x1000, 0x8000, 0x9000, error, &rows));
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows.back(), (TrampolineRow{static_cast<uint16_t>(kPrologue + 7), 7, 0}));
}

TEST(PatchPlan, AShortBranchBecomesARel32OneOnTheSameCondition) {
  // cmp edi, 3; jle +5: taken to 0x1000 + 5 + 5.
  PatchPlan plan;
  plan.bytes = {0x83, 0xff, 0x03, 0x7e, 0x05};
  plan.steps = {{PatchStep::Kind::copy, 3, 0, 0, 0}, {PatchStep::Kind::branch, 2, 0, 0xe, 10}};
  std::string error;
  const auto code = trampoline_code(plan, 0x1000, 0x8000, 0x9000, error);
  ASSERT_TRUE(code.has_value()) << error;
  const size_t jcc = kPrologue + 3;
  EXPECT_EQ((*code)[jcc], 0x0f);
  EXPECT_EQ((*code)[jcc + 1], 0x8e);
  EXPECT_EQ(rel32_target(*code, 0x8000, jcc, 2), 0x100au);
  EXPECT_EQ(rel32_target(*code, 0x8000, jcc + 6, 1), 0x1005u);  // not taken: after the window
}

TEST(PatchPlan, ATargetOutOfReachIsRefused) {
  PatchPlan plan;
  plan.bytes = {0x48, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00};
  plan.steps = {{PatchStep::Kind::rip_data, 7, 3, 0, 0}};
  std::string error;
  const uint64_t far = 0x1000 + (3ULL << 30);
  EXPECT_FALSE(trampoline_code(plan, 0x1000, far, far + 4096, error).has_value());
  EXPECT_NE(error.find("RIP-relative operand is out of a 32-bit displacement's reach"),
            std::string::npos)
      << error;
  EXPECT_FALSE(site_jump(plan, 0x1000, far).has_value());
}

}  // namespace
}  // namespace cprof::causal
