#include "causal/launcher/source_names.h"

#include <string_view>

namespace cprof::causal {
namespace {

// The trailing `parts` path components of `path` (all of it when it has fewer).
std::string_view tail(std::string_view path, size_t parts) {
  size_t start = path.size();
  for (size_t i = 0; i < parts; ++i) {
    const size_t slash = start == 0 ? std::string_view::npos : path.rfind('/', start - 1);
    if (slash == std::string_view::npos) return path;
    start = slash;
  }
  return path.substr(start + 1);
}

// Whether `path` ends with `suffix` at a component boundary.
bool ends_with_part(std::string_view path, std::string_view suffix) {
  return path.ends_with(suffix) &&
         (path.size() == suffix.size() || path[path.size() - suffix.size() - 1] == '/');
}

}  // namespace

std::map<std::string, std::string> shortest_unique_names(const std::set<std::string>& files) {
  std::map<std::string, std::string> out;
  for (const auto& f : files) {
    std::string_view name = f;
    for (size_t parts = 1;; ++parts) {
      const std::string_view candidate = tail(f, parts);
      bool unique = true;
      for (const auto& other : files) {
        if (other != f && ends_with_part(other, candidate)) {
          unique = false;
          break;
        }
      }
      if (unique || candidate.size() == f.size()) {
        name = unique ? candidate : std::string_view(f);
        break;
      }
    }
    out[f] = std::string(name);
  }
  return out;
}

}  // namespace cprof::causal
