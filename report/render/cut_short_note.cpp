#include "report/render/cut_short_note.h"

#include <fmt/format.h>

#include "report/render/text_util.h"

namespace cprof::report {

std::string cut_short_note(const ProcessProfile& p) {
  if (!p.cut) return {};
  return fmt::format(
      "warning: {}: no end record (killed by SIGKILL, still running, or its file was cut): "
      "its data stops {} after its start",
      p.label(), human_duration(p.duration_ns()));
}

}  // namespace cprof::report
