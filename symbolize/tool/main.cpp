// causal-symbolize: an addr2line-compatible front end to symbolize/, so that it can be
// compared one to one with eu-addr2line and llvm-symbolizer, and used on its own.
//
//   causal-symbolize -e app -f -i -C 0x1234 0x5678
//   causal-symbolize -e app -fiC --output-style=LLVM < addresses
//   causal-symbolize -e app --line foo.cpp:42 | --function 'ns::foo'

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdio>
#include <string>
#include <vector>

#include "common/cli.h"
#include "symbolize/symbolizer.h"
#include "symbolize/tool/output.h"

namespace cs = cprof::symbolize;

namespace {

bool parse_address(std::string_view text, uint64_t& addr) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) text.remove_prefix(2);
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), addr, 16);
  return ec == std::errc() && ptr == text.data() + text.size();
}

void write_all(const std::string& out) {
  size_t done = 0;
  while (done < out.size()) {
    ssize_t n = write(STDOUT_FILENO, out.data() + done, out.size() - done);
    if (n <= 0) std::exit(1);  // closed pipe: nobody is reading any more
    done += static_cast<size_t>(n);
  }
}

struct Session {
  cs::Symbolizer& symbolizer;
  cs::ModuleRef module;
  cs::tool::OutputOptions output;
  std::string out;

  // Answers a batch of lines at once: one call into the library, each distinct address
  // looked up once. A line that is not an address is answered as unknown, like addr2line.
  void answer(const std::vector<std::string_view>& lines) {
    std::vector<uint64_t> addrs(lines.size());
    std::vector<bool> valid(lines.size());
    for (size_t i = 0; i < lines.size(); ++i) valid[i] = parse_address(lines[i], addrs[i]);
    auto symbols = symbolizer.symbolize(module, addrs);
    for (size_t i = 0; i < lines.size(); ++i) {
      if (!valid[i]) symbols[i] = cs::Symbol{{}, cs::Reason::no_symbols};
      cs::tool::format_symbol(addrs[i], symbols[i], output, out);
    }
  }
  void flush() {
    write_all(out);
    out.clear();
  }
};

// Answers every line of stdin. Output is written whenever the input read so far is used
// up, i.e. before waiting for more: an interactive caller gets each answer at once,
// while a pipe full of addresses does not cost one write per address.
void answer_stdin(Session& s) {
  std::string buf;
  std::vector<char> chunk(1 << 16);
  for (;;) {
    ssize_t n = read(STDIN_FILENO, chunk.data(), chunk.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    buf.append(chunk.data(), static_cast<size_t>(n));
    size_t start = 0;
    std::vector<std::string_view> lines;
    for (size_t nl; (nl = buf.find('\n', start)) != std::string::npos; start = nl + 1) {
      std::string_view line(buf.data() + start, nl - start);
      if (!line.empty()) lines.push_back(line);
    }
    s.answer(lines);
    buf.erase(0, start);
    s.flush();
  }
  if (!buf.empty()) s.answer({std::string_view(buf)});
  s.flush();
}

int reverse_lookup(cs::Symbolizer& sym, const cs::ModuleRef& m, const std::string& line,
                   const std::string& function) {
  if (!line.empty()) {
    auto where = cs::parse_source_line(line);
    if (!where) {
      fmt::print(stderr, "causal-symbolize: {}\n", where.error().message);
      return 1;
    }
    auto ranges = sym.ranges_for_line(m, where->file, where->line);
    if (!ranges) {
      fmt::print(stderr, "causal-symbolize: {}\n", ranges.error().message);
      return 2;
    }
    for (const auto& r : *ranges) fmt::print("0x{:x}-0x{:x}\n", r.low, r.high);
    return 0;
  }
  auto found = sym.ranges_for_function(m, function);
  if (!found) {
    fmt::print(stderr, "causal-symbolize: {}\n", found.error().message);
    return 2;
  }
  for (const auto& f : *found) {
    fmt::print("{}{}\n", f.function, f.inlined ? " [inlined]" : "");
    for (const auto& r : f.ranges) fmt::print("  0x{:x}-0x{:x}\n", r.low, r.high);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "causal-symbolize: addresses -> function, file:line and inline chain "
      "(addr2line-compatible)",
      "causal-symbolize"};
  cs::ModuleRef module{"a.out", ""};
  cs::Options options;
  options.demangle = false;
  options.inlines = false;
  cs::tool::OutputOptions output;
  std::string style = "GNU", line, function;
  std::vector<std::string> debug_dirs, addresses;
  app.add_option("-e,--exe,--obj", module.path, "ELF file to symbolize (default a.out)");
  app.add_flag("-f,--functions", output.functions, "print function names");
  app.add_flag("-i,--inlines", options.inlines, "print the whole inline chain, innermost first");
  app.add_flag("-C,--demangle", options.demangle, "demangle C++ names");
  app.add_flag("-a,--addresses", output.addresses, "print each address before its answer");
  app.add_flag("-p,--pretty-print", output.pretty, "one line per frame (GNU style)");
  app.add_flag("-s,--basenames", output.basenames, "print file base names only");
  app.add_option("--output-style", style, "GNU (addr2line) or LLVM (llvm-symbolizer)")
      ->check(cprof::cli::one_of({"GNU", "LLVM"}));
  app.add_option("--build-id", module.build_id, "build-id recorded at run time (hex)");
  app.add_option("--debug-dir", debug_dirs, "root for separate debug files (default /usr/lib/debug); repeatable")
      ->allow_extra_args(false);
  app.add_option("--line", line, "reverse: FILE:LINE -> address ranges");
  app.add_option("--function", function, "reverse: function regex -> address ranges");
  app.add_option("addresses", addresses, "hex addresses; read from stdin, one per line, if none");
  if (int code = 0; !cprof::cli::parse(app, argc, argv, code)) return code;
  output.style = style == "LLVM" ? cs::tool::Style::llvm : cs::tool::Style::gnu;
  if (!debug_dirs.empty()) options.debug_dirs = debug_dirs;
  if (!function.empty() || !line.empty()) options.demangle = true;

  cs::Symbolizer symbolizer(options);
  int rc = 0;
  if (!line.empty() || !function.empty()) {
    rc = reverse_lookup(symbolizer, module, line, function);
  } else {
    Session session{symbolizer, module, output, {}};
    // Open the module up front so that an unusable file is one clear error, as addr2line.
    cs::Reason status = symbolizer.status(module);
    if (status == cs::Reason::missing_file || status == cs::Reason::invalid_file) {
      for (const auto& d : symbolizer.diagnostics(module)) fmt::print(stderr, "causal-symbolize: {}\n", d);
      return 1;
    }
    if (addresses.empty()) {
      answer_stdin(session);
    } else {
      session.answer(std::vector<std::string_view>(addresses.begin(), addresses.end()));
      session.flush();
    }
  }
  for (const auto& d : symbolizer.diagnostics(module)) {
    fmt::print(stderr, "causal-symbolize: warning: {}\n", d);
  }
  return rc;
}
