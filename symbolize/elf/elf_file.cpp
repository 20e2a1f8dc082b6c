#include "symbolize/elf/elf_file.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace cprof::symbolize {
namespace {

// libelf needs its version handshake once per process before any other call.
void init_libelf() {
  static const bool done = [] { return elf_version(EV_CURRENT) != EV_NONE; }();
  (void)done;
}

std::string elf_error() { return elf_errmsg(-1); }

}  // namespace

ElfFile::ElfFile(Elf* elf, int fd, std::string path) : elf_(elf), fd_(fd), path_(std::move(path)) {}

ElfFile::~ElfFile() {
  if (elf_ != nullptr) elf_end(elf_);
  if (fd_ >= 0) close(fd_);
}

int open_regular_file(const std::string& path, std::string* why) {
  // O_NONBLOCK: open() of a FIFO without a writer would wait forever for one.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (why != nullptr) *why = std::strerror(errno);
    return -1;
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    if (why != nullptr) *why = "not a regular file";
    return -1;
  }
  const int flags = fcntl(fd, F_GETFL);
  if (flags >= 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

bool exists_but_not_regular(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
}

Result<std::unique_ptr<ElfFile>> ElfFile::open(const std::string& path) {
  init_libelf();
  std::string why;
  const int fd = open_regular_file(path, &why);
  if (fd < 0) return Error{path + ": " + why};
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  if (elf == nullptr) {
    std::string msg = path + ": cannot read ELF: " + elf_error();
    close(fd);
    return Error{msg};
  }
  std::unique_ptr<ElfFile> file(new ElfFile(elf, fd, path));
  if (auto ok = file->validate(); !ok) return ok.error();
  return file;
}

Result<std::unique_ptr<ElfFile>> ElfFile::adopt(Elf* elf, int fd, std::string name) {
  init_libelf();
  std::unique_ptr<ElfFile> file(new ElfFile(elf, fd, std::move(name)));
  if (auto ok = file->validate(); !ok) return ok.error();
  return file;
}

// Checks what later code relies on, so that a truncated or garbage file is reported here
// in one line instead of failing in odd ways later.
Result<bool> ElfFile::validate() {
  if (elf_kind(elf_) != ELF_K_ELF) return Error{path_ + ": not an ELF file"};
  GElf_Ehdr ehdr;
  if (gelf_getehdr(elf_, &ehdr) == nullptr) {
    return Error{path_ + ": corrupt ELF header: " + elf_error()};
  }
  if (elf_getshdrstrndx(elf_, &shstrndx_) != 0) {
    return Error{path_ + ": corrupt ELF section headers: " + elf_error()};
  }
  for (Elf_Scn* scn = elf_nextscn(elf_, nullptr); scn != nullptr; scn = elf_nextscn(elf_, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr) {
      return Error{path_ + ": corrupt ELF section header: " + elf_error()};
    }
    if ((shdr.sh_flags & SHF_ALLOC) && (shdr.sh_flags & SHF_EXECINSTR) && shdr.sh_size > 0) {
      exec_.push_back({shdr.sh_addr, shdr.sh_addr + shdr.sh_size});
    }
  }
  std::sort(exec_.begin(), exec_.end(),
            [](const AddressRange& a, const AddressRange& b) { return a.low < b.low; });
  return true;
}

std::string ElfFile::build_id() const {
  const void* bits = nullptr;
  ssize_t len = dwelf_elf_gnu_build_id(elf_, &bits);
  if (len <= 0) return {};
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(static_cast<size_t>(len) * 2);
  for (ssize_t i = 0; i < len; ++i) {
    auto b = static_cast<const unsigned char*>(bits)[i];
    hex += kHex[b >> 4];
    hex += kHex[b & 15];
  }
  return hex;
}

std::optional<Debuglink> ElfFile::debuglink() const {
  GElf_Word crc = 0;
  const char* name = dwelf_elf_gnu_debuglink(elf_, &crc);
  if (name == nullptr || *name == '\0') return std::nullopt;
  return Debuglink{name, crc};
}

Elf_Scn* ElfFile::section(std::string_view name) const {
  for (Elf_Scn* scn = elf_nextscn(elf_, nullptr); scn != nullptr; scn = elf_nextscn(elf_, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr) continue;
    const char* n = elf_strptr(elf_, shstrndx_, shdr.sh_name);
    if (n != nullptr && name == n) return scn;
  }
  return nullptr;
}

bool ElfFile::has_dwarf() const {
  for (const char* name : {".debug_info", ".zdebug_info", ".debug_line", ".zdebug_line"}) {
    Elf_Scn* scn = section(name);
    GElf_Shdr shdr;
    // A stripped file may keep the header with SHT_NOBITS (objcopy --only-keep-debug does
    // the reverse to .text); only real contents count.
    if (scn != nullptr && gelf_getshdr(scn, &shdr) != nullptr && shdr.sh_type != SHT_NOBITS &&
        shdr.sh_size > 0) {
      return true;
    }
  }
  return false;
}

bool ElfFile::is_executable_address(uint64_t addr) const {
  auto it = std::upper_bound(exec_.begin(), exec_.end(), addr,
                             [](uint64_t a, const AddressRange& r) { return a < r.low; });
  return it != exec_.begin() && addr < std::prev(it)->high;
}

std::optional<uint32_t> file_crc32(const std::string& path) {
  const int fd = open_regular_file(path, nullptr);
  if (fd < 0) return std::nullopt;
  uLong crc = crc32(0L, Z_NULL, 0);
  std::vector<unsigned char> buf(1 << 20);
  for (;;) {
    ssize_t n = read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    crc = crc32(crc, buf.data(), static_cast<uInt>(n));
  }
  close(fd);
  return static_cast<uint32_t>(crc);
}

}  // namespace cprof::symbolize
