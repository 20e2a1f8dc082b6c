// Closes every descriptor but 0-2 the way daemons and servers do, then opens files of its
// own, burns CPU and writes them: what a program that "owns all its descriptors" does
// under a profiler. MODE: loop (close() each number), closefrom, close_range, proc (close
// what /proc/self/fd lists), dup2 (dup2 /dev/null onto every number below 4096, then close
// them: the program takes even the runtime's numbers). The CPU time is burnt in a new
// thread in dup2 mode (the main thread's sampling descriptor is the program's by then).
// Prints "first-fd N": the number its first open() returned.
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "spin.h"

namespace {

void close_listed() {
  std::vector<int> fds;
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return;
  while (const dirent* e = readdir(dir)) {
    const int fd = std::atoi(e->d_name);
    if (fd > 2 && fd != dirfd(dir)) fds.push_back(fd);
  }
  closedir(dir);
  for (const int fd : fds) close(fd);
}

__attribute__((noinline)) void burn_closer_cpu() { SPIN_FOR_MS(400); }

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: fd_closer loop|closefrom|close_range|proc|dup2 DIR\n");
    return 2;
  }
  const std::string mode = argv[1];
  if (mode == "loop") {
    for (int fd = 3; fd < 65536; ++fd) close(fd);
  } else if (mode == "closefrom") {
    closefrom(3);
  } else if (mode == "close_range") {
    if (close_range(3, ~0U, 0) != 0) std::perror("close_range");
  } else if (mode == "proc") {
    close_listed();
  } else if (mode == "dup2") {
    const int null_fd = open("/dev/null", O_RDONLY);
    for (int fd = 3; fd < 4096; ++fd) {
      if (fd != null_fd) dup2(null_fd, fd);
    }
    for (int fd = 3; fd < 4096; ++fd) close(fd);
  } else {
    std::fprintf(stderr, "fd_closer: unknown mode %s\n", mode.c_str());
    return 2;
  }
  std::vector<int> files;
  for (int i = 0; i < 4; ++i) {
    const std::string path = std::string(argv[2]) + "/file" + std::to_string(i);
    files.push_back(open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644));
  }
  std::printf("first-fd %d\n", files[0]);
  std::fflush(stdout);
  if (mode == "dup2") {
    std::thread(burn_closer_cpu).join();
  } else {
    burn_closer_cpu();
  }
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string line = "data " + std::to_string(i) + "\n";
    if (write(files[i], line.data(), line.size()) != static_cast<ssize_t>(line.size())) return 3;
    close(files[i]);
  }
  return 0;
}
