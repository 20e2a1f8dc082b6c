#include "support.h"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace cprof::symbolize::test {

std::string fixture_dir() { return CPROF_SYMBOLIZE_FIXTURES; }
std::string fixture_source() { return std::string(CPROF_SYMBOLIZE_FIXTURE_SRC) + "/prog.cpp"; }

std::string fixture(const std::string& kind, const std::string& file) {
  std::string path = fixture_dir() + "/" + kind + "/" + file;
  return access(path.c_str(), R_OK) == 0 ? path : std::string();
}

uint32_t mark_line(const std::string& name, const std::string& file) {
  std::ifstream in(std::string(CPROF_SYMBOLIZE_FIXTURE_SRC) + "/" + file);
  std::string line;
  for (uint32_t n = 1; std::getline(in, line); ++n) {
    if (line.find("MARK:" + name) != std::string::npos) return n;
  }
  throw std::runtime_error("no MARK:" + name + " in " + file);
}

std::string shell(const std::string& command, int* status) {
  FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) throw std::runtime_error("popen failed: " + command);
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  int rc = pclose(p);
  if (status != nullptr) *status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  return out;
}

std::optional<uint64_t> symbol_address(const std::string& binary, const std::string& name) {
  std::istringstream in(shell("nm --defined-only '" + binary + "' 2>/dev/null"));
  std::string addr, type, sym;
  while (in >> addr >> type >> sym) {
    if (sym == name) return std::stoull(addr, nullptr, 16);
  }
  return std::nullopt;
}

std::pair<uint64_t, uint64_t> text_range(const std::string& binary) {
  std::istringstream in(shell("readelf -SW '" + binary + "' | sed -n 's/.* \\.text  *PROGBITS  *//p'"));
  std::string addr, off, size;
  in >> addr >> off >> size;
  uint64_t a = std::stoull(addr, nullptr, 16);
  return {a, a + std::stoull(size, nullptr, 16)};
}

bool have_llvm_symbolizer() { return !shell("command -v llvm-symbolizer").empty(); }

std::vector<Symbol> llvm_symbolize(const std::string& binary, const std::vector<uint64_t>& addrs) {
  std::string list = "/tmp/cprof-sym-" + std::to_string(getpid()) + ".txt";
  {
    std::ofstream f(list);
    for (auto a : addrs) f << "0x" << std::hex << a << "\n";
  }
  std::istringstream in(shell("llvm-symbolizer --obj='" + binary +
                              "' --inlining --functions=linkage --demangle < " + list));
  unlink(list.c_str());
  std::vector<Symbol> out;
  Symbol cur;
  std::string func, loc;
  while (std::getline(in, func)) {
    if (func.empty()) {
      out.push_back(std::move(cur));
      cur = {};
      continue;
    }
    std::getline(in, loc);
    SourceFrame f;
    f.function = func == "??" ? "" : func;
    auto c2 = loc.rfind(':'), c1 = loc.rfind(':', c2 - 1);
    f.file = loc.substr(0, c1);
    if (f.file == "??") f.file.clear();
    f.line = static_cast<uint32_t>(std::stoul(loc.substr(c1 + 1, c2 - c1 - 1)));
    f.column = static_cast<uint32_t>(std::stoul(loc.substr(c2 + 1)));
    cur.frames.push_back(f);
  }
  return out;
}

std::string describe(const Symbol& sym) {
  std::string s = "[" + std::string(to_string(sym.reason)) + "]";
  for (const auto& f : sym.frames) {
    s += "\n  " + (f.function.empty() ? "??" : f.function) + " @ " + f.file + ":" +
         std::to_string(f.line);
  }
  return s;
}

bool ends_with_path(const std::string& path, const std::string& suffix) {
  if (path.size() < suffix.size()) return false;
  if (path.compare(path.size() - suffix.size(), suffix.size(), suffix) != 0) return false;
  return path.size() == suffix.size() || path[path.size() - suffix.size() - 1] == '/';
}

}  // namespace cprof::symbolize::test
