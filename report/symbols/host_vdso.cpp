#include "report/symbols/host_vdso.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/auxv.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <mutex>

namespace cprof::report {
namespace {

// The image's size: its section headers come last in the kernel's vDSO, so the file ends
// with them; at most 1 MiB (the vDSO is a few pages).
size_t image_size(const ElfW(Ehdr)* ehdr) {
  if (std::memcmp(ehdr->e_ident, ELFMAG, SELFMAG) != 0) return 0;
  const size_t size = ehdr->e_shoff + static_cast<size_t>(ehdr->e_shnum) * ehdr->e_shentsize;
  return size <= (1u << 20) ? size : 0;
}

int unnamed_temporary_file() {
  const char* tmpdir = std::getenv("TMPDIR");
  if (tmpdir == nullptr || *tmpdir == '\0') tmpdir = "/tmp";
  if (const int fd = ::open(tmpdir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600); fd >= 0) return fd;
  std::string name = std::string(tmpdir) + "/cprof-vdso.XXXXXX";  // no O_TMPFILE there
  const int fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd >= 0) ::unlink(name.c_str());
  return fd;
}

bool write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

std::optional<std::string> copy_vdso() {
  const auto* ehdr = reinterpret_cast<const ElfW(Ehdr)*>(::getauxval(AT_SYSINFO_EHDR));
  if (ehdr == nullptr) return std::nullopt;
  const size_t size = image_size(ehdr);
  if (size == 0) return std::nullopt;
  const int fd = unnamed_temporary_file();
  if (fd < 0) return std::nullopt;
  if (!write_all(fd, reinterpret_cast<const char*>(ehdr), size)) {
    ::close(fd);
    return std::nullopt;
  }
  return "/proc/self/fd/" + std::to_string(fd);  // open until the report exits
}

}  // namespace

std::optional<std::string> host_vdso_file() {
  static std::once_flag once;
  static std::optional<std::string> path;
  std::call_once(once, [] { path = copy_vdso(); });
  return path;
}

}  // namespace cprof::report
