#pragma once
// Annotated source (causal-report --source FILE): the sampled lines of one source file
// with their self and total time, and where to read the file's text, also for a build
// made elsewhere (--source-dir). docs/report.md, "Annotated source".

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "report/profile/flat_profile.h"

namespace cprof::report {

struct Report;

// The files of the profile's line rows that `spec` names: the path itself, or a suffix of
// it on whole components ("a.c", "src/a.c"), lexically normalized; "" names every file.
// Sorted by their total time, most first.
struct SourceFileMatch {
  std::string file;  // as the line rows name it
  Measure total;     // summed over its lines' self time (time spent in the file's code)
};
std::vector<SourceFileMatch> match_source_files(const Report& report, const std::string& spec);

// Per line of `file`: the time with the line innermost (self) and anywhere on the stack
// (total), as the flat profile by line has them.
struct SourceLineCounts {
  Measure self;
  Measure total;
};
std::map<uint32_t, SourceLineCounts> source_line_counts(const Report& report,
                                                        const std::string& file);

// Where to read `file` (the path the debug information gives): the path itself if it
// exists, else under each of `dirs`, in order: "OLD=NEW" replaces the prefix OLD of the
// path by NEW (a build made in another tree); a plain DIR is searched for the path's
// trailing components, longest first (DIR/src/a.c, then DIR/a.c). "" when none exists;
// `tried` then lists where it looked.
std::string find_source_text(const std::string& file, const std::vector<std::string>& dirs,
                             std::vector<std::string>& tried);

}  // namespace cprof::report
