#include "symbolize/tool/output.h"

#include <fmt/format.h>

#include <charconv>

namespace cprof::symbolize::tool {
namespace {

std::string_view file_of(const SourceFrame& f, const OutputOptions& o) {
  std::string_view file = f.file;
  if (o.basenames) {
    if (auto slash = file.rfind('/'); slash != std::string_view::npos) file.remove_prefix(slash + 1);
  }
  return file;
}

// ":N", without a format string: this runs for every frame of every address.
void append_number(std::string& out, uint32_t n) {
  char buf[16];
  buf[0] = ':';
  auto [end, ec] = std::to_chars(buf + 1, buf + sizeof buf, n);
  out.append(buf, end);
}

std::string_view function_of(const SourceFrame& f) {
  return f.function.empty() ? std::string_view("??") : std::string_view(f.function);
}

// GNU: "file:line", "??:0" without a file, "file:?" without a line (as addr2line).
void gnu_location(const SourceFrame& f, const OutputOptions& o, std::string& out) {
  if (f.file.empty()) {
    out += "??:0";
  } else if (f.line == 0) {
    fmt::format_to(std::back_inserter(out), "{}:?", file_of(f, o));
  } else {
    fmt::format_to(std::back_inserter(out), "{}:{}", file_of(f, o), f.line);
  }
}

void format_gnu(uint64_t addr, const Symbol& sym, const OutputOptions& o, std::string& out) {
  static const SourceFrame kUnknown{};
  size_t n = sym.frames.empty() ? 1 : sym.frames.size();
  if (o.pretty) {
    if (o.addresses) fmt::format_to(std::back_inserter(out), "0x{:016x}: ", addr);
    for (size_t i = 0; i < n; ++i) {
      const SourceFrame& f = sym.frames.empty() ? kUnknown : sym.frames[i];
      if (i > 0) out += " (inlined by) ";
      if (o.functions) {
        out += function_of(f);
        out += " at ";
      }
      gnu_location(f, o, out);
      out += '\n';
    }
    return;
  }
  if (o.addresses) fmt::format_to(std::back_inserter(out), "0x{:016x}\n", addr);
  for (size_t i = 0; i < n; ++i) {
    const SourceFrame& f = sym.frames.empty() ? kUnknown : sym.frames[i];
    if (o.functions) {
      out += function_of(f);
      out += '\n';
    }
    gnu_location(f, o, out);
    out += '\n';
  }
}

// LLVM: "file:line:column" ("??:0:0" unknown), a blank line after each address.
void format_llvm(uint64_t addr, const Symbol& sym, const OutputOptions& o, std::string& out) {
  static const SourceFrame kUnknown{};
  if (o.addresses) fmt::format_to(std::back_inserter(out), "0x{:x}\n", addr);
  size_t n = sym.frames.empty() ? 1 : sym.frames.size();
  for (size_t i = 0; i < n; ++i) {
    const SourceFrame& f = sym.frames.empty() ? kUnknown : sym.frames[i];
    if (o.functions) {
      out += function_of(f);
      out += '\n';
    }
    out += f.file.empty() ? std::string_view("??") : file_of(f, o);
    append_number(out, f.line);
    append_number(out, f.column);
    out += '\n';
  }
  out += '\n';
}

}  // namespace

void format_symbol(uint64_t addr, const Symbol& sym, const OutputOptions& o, std::string& out) {
  if (o.style == Style::llvm) {
    format_llvm(addr, sym, o, out);
  } else {
    format_gnu(addr, sym, o, out);
  }
}

}  // namespace cprof::symbolize::tool
