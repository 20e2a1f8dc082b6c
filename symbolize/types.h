#pragma once
// Value types shared by every part of symbolize/ and by its callers (the report tool).
// A miss is not an error: a Symbol with no frames carries a Reason that says why.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cprof::symbolize {

// What code a source line holds for the reverse lookup: its own line-table rows only, or
// also the code inlined from calls made on it (its total in the report: an inlined
// frame's caller line is the line of its call).
enum class LineCode { own_rows, with_inlined_calls };

// A module as recorded at run time by the sampler.
struct ModuleRef {
  std::string path;      // file path of the mapped ELF (executable or .so)
  std::string build_id;  // lowercase hex of NT_GNU_BUILD_ID, may be empty
};

// One level of the inline chain.
struct SourceFrame {
  std::string function;  // demangled unless Options::demangle is false
  std::string file;      // may be empty when there is no line info
  uint32_t line = 0, column = 0;
  // Where the function is defined (DW_AT_decl_file/line); decl_line 0 when not known.
  // `line` is where the address is, which imprecise inline info can put in a callee.
  std::string decl_file;
  uint32_t decl_line = 0;
};

// Why an address has no name, or has a name but no line. `ok` means full information.
enum class Reason : uint8_t {
  ok,
  missing_file,       // the module's file cannot be opened
  invalid_file,       // not an ELF file, or corrupt ELF headers
  build_id_mismatch,  // the file was rebuilt after the run and no debug file has the old id
  unmapped,           // the address is in no executable section of the module
  no_symbols,         // executable code, but no DWARF function and no ELF symbol covers it
  no_line_info,       // a name from the ELF symbol table only (stripped, no debug file)
  missing_split_dwarf,  // -gsplit-dwarf unit whose .dwo/.dwp was not found: line, no inlines
};

std::string_view to_string(Reason);

struct Symbol {
  std::vector<SourceFrame> frames;  // innermost (inlined callee) first, outermost last
  Reason reason = Reason::ok;       // why frames is empty or lacks lines
  // no_symbols: the start of the function around the address, from the FDE of the
  // module's .eh_frame that covers it (elf/unwind_functions.h); 0 when none does.
  uint64_t function_start = 0;
};

// Half-open range [low, high) of ELF virtual addresses of a module file.
struct AddressRange {
  uint64_t low = 0, high = 0;
  friend bool operator==(const AddressRange&, const AddressRange&) = default;
};

// Whose spelling demangled names follow. They differ in details: LLVM writes
// "foo(int) (.cold)", "'lambda0'(double)" and "operator<<char>", GNU (c++filt, gdb, perf)
// writes "foo(int) [clone .cold]", "{lambda(double)#2}" and "operator< <char>".
enum class DemangleStyle : uint8_t {
  llvm,  // llvm-symbolizer's own demangler, so that answers compare one to one with it
  gnu,   // abi::__cxa_demangle
};

// True when this build has LLVM's demangler (libLLVMDemangle); without it, `llvm` style
// falls back to abi::__cxa_demangle with LLVM's clone-suffix spelling.
bool have_llvm_demangler();

struct Options {
  bool demangle = true;  // false: mangled linkage names, as in the binary
  DemangleStyle demangle_style = DemangleStyle::llvm;
  bool inlines = true;   // false: only the outermost (real) function, at the line of the address
  // Roots searched for separate debug files: ROOT/.build-id/xx/yyyy.debug and
  // ROOT/<dir of module>/<debuglink name>. Tests point this at a temporary directory.
  std::vector<std::string> debug_dirs = {"/usr/lib/debug"};
  // Ask the debuginfod servers in DEBUGINFOD_URLS (when set) for debug files found
  // nowhere else.
  bool debuginfod = true;
};

}  // namespace cprof::symbolize
