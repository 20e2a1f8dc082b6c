#include "symbolize/elf/debuginfod_fetch.h"

#include <elfutils/debuginfod.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <memory>

namespace cprof::symbolize {

bool debuginfod_configured() {
  const char* urls = std::getenv("DEBUGINFOD_URLS");
  return urls != nullptr && std::strspn(urls, " \t") != std::strlen(urls);
}

std::optional<std::string> debuginfod_debug_file(const std::string& build_id, std::string& error) {
  if (build_id.empty()) {
    error = "no build-id to ask debuginfod for";
    return std::nullopt;
  }
  // One client per lookup: a client is not to be shared between threads, and modules
  // are symbolized in parallel.
  const std::unique_ptr<debuginfod_client, void (*)(debuginfod_client*)> client(debuginfod_begin(),
                                                                                debuginfod_end);
  if (!client) {
    error = "debuginfod: the client could not start";
    return std::nullopt;
  }
  char* path = nullptr;
  // A build-id length of 0: the id is given as its lowercase hex string.
  const int fd = debuginfod_find_debuginfo(
      client.get(), reinterpret_cast<const unsigned char*>(build_id.c_str()), 0, &path);
  if (fd < 0) {
    error = "debuginfod: no debug file for build-id " + build_id + " on " +
            std::getenv("DEBUGINFOD_URLS") + " (" +
            (fd == -ENOENT ? std::string("not found") : std::string(std::strerror(-fd))) + ")";
    std::free(path);
    return std::nullopt;
  }
  ::close(fd);
  std::string found = path != nullptr ? path : "";
  std::free(path);
  if (found.empty()) {
    error = "debuginfod: the client gave no path";
    return std::nullopt;
  }
  return found;
}

}  // namespace cprof::symbolize
