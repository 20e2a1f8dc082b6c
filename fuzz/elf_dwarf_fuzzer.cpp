// libFuzzer target: the ELF and DWARF front of symbolize/ on any bytes taken for a
// module: the file is checked and indexed (symbols, unwind table, DWARF units, line
// tables, scope trees) and a few addresses are looked up, as the report does for every
// module a results directory names. The bytes are given to it as a file (a memfd), the
// way it reads modules.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "symbolize/symbolizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const int fd = memfd_create("fuzz-module", MFD_CLOEXEC);
  if (fd < 0) return 0;
  for (size_t done = 0; done < size;) {
    const ssize_t n = write(fd, data + done, size - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  {
    cprof::symbolize::Symbolizer symbolizer;
    const cprof::symbolize::ModuleRef module{path, ""};
    std::vector<uint64_t> addresses{0, 0x1000, 0x1130, 0x401000};
    for (size_t i = 0; i + 8 <= size && addresses.size() < 12; i += size / 8 + 8) {
      uint64_t a = 0;
      for (size_t b = 0; b < 4; ++b) a |= static_cast<uint64_t>(data[i + b]) << (8 * b);
      addresses.push_back(a);
    }
    symbolizer.symbolize(module, addresses);
    symbolizer.diagnostics(module);
  }
  close(fd);
  return 0;
}
