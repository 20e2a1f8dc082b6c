#include "sampler/runtime/remapped_code.h"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <charconv>
#include <vector>

#include "sampler/runtime/owned_fds.h"

namespace cprof::sampler {
namespace {

bool parse_hex(std::string_view s, uint64_t& v) {
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  return ec == std::errc() && p == s.data() + s.size();
}

// The next blank-separated field of `line` from `pos` (pos moves past it).
std::string_view field(std::string_view line, size_t& pos) {
  while (pos < line.size() && line[pos] == ' ') ++pos;
  const size_t start = pos;
  while (pos < line.size() && line[pos] != ' ') ++pos;
  return line.substr(start, pos - start);
}

}  // namespace

std::vector<ExecutableMapping> executable_mappings(std::string_view maps) {
  // "START-END PERMS OFFSET DEV INODE PATH"
  std::vector<ExecutableMapping> out;
  while (!maps.empty()) {
    const size_t nl = maps.find('\n');
    const std::string_view line = maps.substr(0, nl);
    maps = nl == std::string_view::npos ? std::string_view{} : maps.substr(nl + 1);
    size_t pos = 0;
    const std::string_view range = field(line, pos);
    const std::string_view perms = field(line, pos);
    const std::string_view offset = field(line, pos);
    field(line, pos);  // device
    field(line, pos);  // inode
    while (pos < line.size() && line[pos] == ' ') ++pos;
    const std::string_view path = line.substr(pos);
    const size_t dash = range.find('-');
    ExecutableMapping m;
    if (perms.size() < 3 || perms[2] != 'x' || path.empty() || path.front() != '/' ||
        dash == std::string_view::npos || !parse_hex(range.substr(0, dash), m.start) ||
        !parse_hex(range.substr(dash + 1), m.end) || !parse_hex(offset, m.offset)) {
      continue;
    }
    // A file deleted since it was mapped ("/path (deleted)") cannot be read back.
    if (path.ends_with(" (deleted)")) continue;
    m.path = std::string(path);
    out.push_back(std::move(m));
  }
  return out;
}

bool remapped_load_bias(const ExecutableMapping& m, uint64_t& bias) {
  const OwnedFd file = open_owned(m.path.c_str(), O_RDONLY);
  const int fd = file.fd;
  if (fd < 0) return false;
  Elf64_Ehdr eh{};
  bool found = false;
  if (::pread(fd, &eh, sizeof eh, 0) == static_cast<ssize_t>(sizeof eh) &&
      std::string_view(reinterpret_cast<const char*>(eh.e_ident), SELFMAG) == ELFMAG &&
      eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr) &&
      eh.e_phnum > 0 && eh.e_phnum < 512) {
    std::vector<Elf64_Phdr> ph(eh.e_phnum);
    const auto bytes = static_cast<ssize_t>(ph.size() * sizeof(Elf64_Phdr));
    if (::pread(fd, ph.data(), static_cast<size_t>(bytes), static_cast<off_t>(eh.e_phoff)) == bytes) {
      for (const auto& p : ph) {
        if (p.p_type != PT_LOAD || m.offset < p.p_offset || m.offset >= p.p_offset + p.p_filesz) {
          continue;
        }
        bias = m.start - (p.p_vaddr + (m.offset - p.p_offset));
        found = true;
        break;
      }
    }
  }
  close_owned(file);
  return found;
}

std::vector<format::ModuleRecord> remapped_code_modules(const ModuleSnapshot& snapshot,
                                                        std::string_view maps) {
  std::vector<format::ModuleRecord> out;
  for (const ExecutableMapping& m : executable_mappings(maps)) {
    // The loader's own mapping of a module: its code is in the snapshot.
    if (snapshot.find(m.start) != nullptr || snapshot.find(m.end - 1) != nullptr) continue;
    uint64_t bias = 0;
    if (!remapped_load_bias(m, bias)) continue;
    format::ModuleRecord r;
    r.path = m.path;
    r.load_bias = bias;
    r.start = m.start;
    r.end = m.end;
    for (const Module& known : snapshot.modules()) {
      if (known.path == m.path) r.build_id = known.build_id;
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace cprof::sampler
