#include "sampler/launcher/frame_pointer_check.h"

#include <fmt/format.h>

#include "symbolize/elf/frame_pointers.h"

namespace cprof::launch {

std::string frame_pointer_warning(const std::string& program) {
  auto file = symbolize::ElfFile::open(program);
  if (!file) return "";
  const auto count = symbolize::count_frame_pointers(**file);
  // Built with -fno-omit-frame-pointer nearly every function sets one up; without, only
  // the few that need one (alloca, variable-length arrays) do.
  if (!count || count->with_frame_pointer * 2 >= count->functions) return "";
  return fmt::format(
      "warning: --unwind fp: {} keeps no frame pointer in {} of the {} functions looked at "
      "(built without -fno-omit-frame-pointer, the default at -O2): its stacks will stop "
      "after a frame or two; use --unwind dwarf (the default), which needs none",
      program, count->functions - count->with_frame_pointer, count->functions);
}

}  // namespace cprof::launch
