#include "sampler/launcher/repeated_input.h"

#include <sys/stat.h>
#include <unistd.h>

namespace cprof::launch {

RepeatedInput::RepeatedInput() {
  struct stat st {};
  if (::fstat(STDIN_FILENO, &st) != 0) return;
  if (S_ISREG(st.st_mode)) {
    start_ = ::lseek(STDIN_FILENO, 0, SEEK_CUR);
  } else {
    stream_ = S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode);
  }
}

void RepeatedInput::rewind() const {
  if (start_ >= 0) (void)::lseek(STDIN_FILENO, start_, SEEK_SET);
}

std::string RepeatedInput::warning(unsigned runs) const {
  if (!stream_ || runs < 2) return "";
  return "standard input is a pipe: the first of the " + std::to_string(runs) +
         " runs reads it and the others find it empty, so they measure another program; give "
         "the input as a file (< FILE), which each run reads from its start";
}

}  // namespace cprof::launch
