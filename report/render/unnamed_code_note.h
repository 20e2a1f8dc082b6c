#pragma once
// The note for a process with many samples in code outside every file
// (profile/unnamed_code.h), as the text header and the HTML notes say it. Internal to
// render/.

#include <string>

#include "report/load/process_profile.h"
#include "report/profile/unnamed_code.h"

namespace cprof::report {

// "note: node[5061]: 84% of the samples (578) ran in code outside every mapped file;
// JIT-compiled code? No perf map names it; node --perf-basic-prof and python3.12 -X perf
// write one; so does java -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit (JDK 17
// on); sample-run keeps it with the results". Parts are joined by "; " so that a narrow
// terminal can wrap there. "" when the process is not flagged.
std::string unnamed_code_note(const ProcessProfile& p, const UnnamedCode& u);

// "note: libz.so.1.2.13: 97% of its samples (412) are in functions its symbols do not name;
// Debian's zlib1g-dbgsym names them (apt-get install zlib1g-dbgsym from the debian-debug
// archive: wiki.debian.org/AutomaticDebugPackages), as does a debuginfod server
// (DEBUGINFOD_URLS=https://debuginfod.debian.net) without installing anything". Without a
// known package it says how to give the debug file instead.
std::string unnamed_module_note(const UnnamedModule& m);

}  // namespace cprof::report
