#pragma once
// `sample-run --unwind fp` on a program built without frame pointers (GCC's and Clang's
// default at -O2) gives stacks cut after a frame or two and no word about it: the launcher
// looks at the program's functions first and says so.

#include <string>

namespace cprof::launch {

// The warning for `--unwind fp` on `program` (without the tool's name), or "" when most of
// its functions keep a frame pointer or it cannot be told (no function symbols).
std::string frame_pointer_warning(const std::string& program);

}  // namespace cprof::launch
