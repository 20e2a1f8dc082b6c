#include "symbolize/elf/debug_locator.h"

#include <unistd.h>

#include <filesystem>

#include "symbolize/elf/debuginfod_fetch.h"

namespace cprof::symbolize {
namespace {

bool exists(const std::string& path) { return access(path.c_str(), R_OK) == 0; }

std::unique_ptr<ElfFile> open_with_dwarf(const std::string& path, std::vector<std::string>& notes) {
  auto file = ElfFile::open(path);
  if (!file) {
    notes.push_back(file.error().message);
    return nullptr;
  }
  if (!(*file)->has_dwarf()) {
    notes.push_back(path + ": separate debug file has no DWARF");
    return nullptr;
  }
  return std::move(file).value();
}

DebugFile by_build_id(const std::string& build_id, const Options& options,
                      std::vector<std::string>& notes) {
  if (build_id.size() < 3) return {};
  for (const auto& root : options.debug_dirs) {
    std::string path =
        root + "/.build-id/" + build_id.substr(0, 2) + "/" + build_id.substr(2) + ".debug";
    if (!exists(path)) continue;
    auto file = open_with_dwarf(path, notes);
    if (file == nullptr) continue;
    if (file->build_id() != build_id) {
      notes.push_back(path + ": build-id inside the file does not match its name; skipped");
      continue;
    }
    return {std::move(file), "build-id"};
  }
  return {};
}

DebugFile by_debuglink(const ElfFile& main, const std::string& module_path,
                       const Options& options, std::vector<std::string>& notes) {
  auto link = main.debuglink();
  if (!link) return {};
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path abs = fs::absolute(module_path, ec);
  std::string dir = abs.parent_path().string();
  std::vector<std::string> candidates = {dir + "/" + link->name, dir + "/.debug/" + link->name};
  for (const auto& root : options.debug_dirs) candidates.push_back(root + dir + "/" + link->name);
  std::string main_id = main.build_id();
  for (const auto& path : candidates) {
    // The debuglink name may equal the module's own name; never take the module itself.
    if (!exists(path) || fs::equivalent(path, module_path, ec)) continue;
    auto file = open_with_dwarf(path, notes);
    if (file == nullptr) continue;
    // A matching build-id is proof enough; otherwise the CRC decides, as in gdb.
    if (!main_id.empty() && file->build_id() == main_id) return {std::move(file), "debuglink"};
    auto crc = file_crc32(path);
    if (crc && *crc == link->crc) return {std::move(file), "debuglink"};
    notes.push_back(path + ": .gnu_debuglink CRC does not match; skipped");
  }
  return {};
}

}  // namespace

DebugFile locate_debug_file(const ElfFile* main, const std::string& module_path,
                            const std::string& build_id, const Options& options,
                            std::vector<std::string>& notes) {
  bool main_matches = main != nullptr && (build_id.empty() || main->build_id() == build_id);
  if (main_matches && main->has_dwarf()) {
    auto self = ElfFile::open(main->path());  // a second handle: libdw owns its Elf use
    if (self) return {std::move(self).value(), "module itself"};
    notes.push_back(self.error().message);
  }
  if (auto found = by_build_id(build_id, options, notes); found.file) return found;
  if (main_matches) {
    if (auto found = by_debuglink(*main, module_path, options, notes); found.file) return found;
  }
  if (options.debuginfod && !build_id.empty() && debuginfod_configured()) {
    std::string error;
    if (const auto path = debuginfod_debug_file(build_id, error)) {
      auto file = ElfFile::open(*path);
      if (file && (*file)->build_id() == build_id && (*file)->has_dwarf()) {
        return {std::move(file).value(), "debuginfod"};
      }
      error = file ? *path + ": not the debug file of build-id " + build_id : file.error().message;
    }
    notes.push_back(error);
  }
  return {};
}

}  // namespace cprof::symbolize
