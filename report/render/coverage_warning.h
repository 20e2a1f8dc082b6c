#pragma once
// The warning for a process whose threads ran unsampled (profile/sampling_coverage.h), as
// the text header and the HTML notes say it. Internal to render/.

#include <string>

#include "report/load/process_profile.h"
#include "report/profile/sampling_coverage.h"

namespace cprof::report {

// "warning: xz[5061]: samples miss 25.2 s of the 25.2 s of CPU time of 2 threads; 5063 xz:
// 0% of 12.7 s sampled; 5064 xz: 0% of 12.5 s sampled; was the sampling signal blocked in
// them?" Parts are joined by "; " so that a narrow terminal can wrap there. "" when
// nothing was flagged.
std::string coverage_warning(const ProcessProfile& p, const SamplingCoverage& c);

}  // namespace cprof::report
