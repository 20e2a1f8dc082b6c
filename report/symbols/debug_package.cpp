#include "report/symbols/debug_package.h"

#include <array>
#include <fstream>
#include <set>
#include <string_view>
#include <system_error>

namespace cprof::report {
namespace {

// One spelling for both sides of merged /usr: "/usr/lib/x" and "/lib/x" are one file
// there, and dpkg lists whichever its package shipped.
std::string merged_usr(const std::string& path) {
  constexpr std::string_view kUsr = "/usr";
  static constexpr std::array<std::string_view, 6> kMerged = {"/lib/",    "/lib32/", "/lib64/",
                                                              "/libx32/", "/bin/",   "/sbin/"};
  if (path.starts_with(kUsr)) {
    const std::string_view rest = std::string_view(path).substr(kUsr.size());
    for (const auto dir : kMerged) {
      if (rest.starts_with(dir)) return std::string(rest);
    }
  }
  return path;
}

}  // namespace

std::map<std::string, std::string> owning_packages(const std::vector<std::string>& paths,
                                                   const std::filesystem::path& dpkg_info) {
  std::map<std::string, std::vector<std::string>> wanted;  // spelling -> the paths asked
  for (const auto& p : paths) {
    wanted[merged_usr(p)].push_back(p);
    std::error_code ec;
    const auto real = std::filesystem::canonical(p, ec);
    if (!ec && real.string() != p) wanted[merged_usr(real.string())].push_back(p);
  }
  std::map<std::string, std::string> found;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dpkg_info, ec), end; !ec && it != end;
       it.increment(ec)) {
    const auto& file = it->path();
    if (file.extension() != ".list") continue;
    std::string package = file.stem().string();
    package = package.substr(0, package.find(':'));  // "zlib1g:amd64" -> "zlib1g"
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);) {
      const auto w = wanted.find(merged_usr(line));
      if (w == wanted.end()) continue;
      for (const auto& p : w->second) found.emplace(p, package);
    }
    if (found.size() == paths.size()) break;
  }
  return found;
}

std::string debug_package_of(const std::string& package) {
  // Packages whose debug symbols are still a -dbg package of the main archive.
  static const std::set<std::string> kDbg = {"libc6", "libc6-i386", "libc6-x32"};
  return package + (kDbg.contains(package) ? "-dbg" : "-dbgsym");
}

}  // namespace cprof::report
