#pragma once
// The warning for a process whose results file has no end record (killed by SIGKILL,
// still running, or the file was cut), as the text header and the HTML notes say it: the
// warning the loader gives on stderr names the file, and is not seen with -q or in a
// report read later; a process cut short must not look like a whole run in the report.
// Internal to render/.

#include <string>

#include "report/load/process_profile.h"

namespace cprof::report {

// "warning: app[1234]: no end record (killed by SIGKILL, still running, or its file was
// cut): its data stops 1.2 s after its start". "" for a process whose file ended.
std::string cut_short_note(const ProcessProfile& p);

}  // namespace cprof::report
