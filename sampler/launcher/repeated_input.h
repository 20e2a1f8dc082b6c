#pragma once
// Standard input for a program run several times (causal-run -n RUNS): every run must read
// the input the first one did, or runs 2..N measure another program. zstd -T2 -c < input
// under causal-run --end-to-end -n 4 ran 2 s, then three times 10 ms on an empty input,
// and the pairs compared the two. A regular file is rewound to where it stood before each
// run; a pipe cannot be, and says so before the first run.

#include <sys/types.h>

#include <string>

namespace cprof::launch {

class RepeatedInput {
 public:
  // Looks at file descriptor 0 as the runs will inherit it.
  RepeatedInput();

  // Before each run after the first: a regular file back to its first offset.
  void rewind() const;
  // "" or the warning for `runs` runs of a program whose standard input is a pipe or a
  // socket (the first run reads it, the others find it empty).
  std::string warning(unsigned runs) const;

 private:
  off_t start_ = -1;  // a regular file's offset before the first run; -1: not one
  bool stream_ = false;
};

}  // namespace cprof::launch
