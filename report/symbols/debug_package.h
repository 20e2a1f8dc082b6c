#pragma once
// Which installed Debian package holds a library, so that a report whose samples in it
// have no function names can say which debug package would name them. dpkg keeps the
// files each package installed in DPKG_INFO/PACKAGE[:ARCH].list; the report usually runs
// where the program ran, and where it does not, nothing is found and nothing is claimed.
// Read directly rather than through `dpkg -S`: one pass over the lists answers every
// library at once, with no process started.

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace cprof::report {

inline const std::filesystem::path kDpkgInfo = "/var/lib/dpkg/info";

// The package that installed each of `paths` (by its path as given or, on a merged-/usr
// system, its other spelling: /usr/lib/X is /lib/X), without the architecture; paths no
// package lists are absent.
std::map<std::string, std::string> owning_packages(
    const std::vector<std::string>& paths, const std::filesystem::path& dpkg_info = kDpkgInfo);

// The package with PACKAGE's debug symbols: Debian's automatic PACKAGE-dbgsym (in the
// debian-debug archive), or the -dbg package the few that predate it still ship.
std::string debug_package_of(const std::string& package);

}  // namespace cprof::report
