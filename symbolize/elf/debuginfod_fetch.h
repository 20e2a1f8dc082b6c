#pragma once
// Debug files from debuginfod servers (elfutils' client, libdebuginfod): the last place
// locate_debug_file looks, and only when the user named servers in DEBUGINFOD_URLS, as
// gdb, perf and every elfutils tool do. The client keeps what it fetched in its cache
// ($DEBUGINFOD_CACHE_PATH, else ~/.cache/debuginfod_client), misses too, so a second
// report asks no server again. docs/symbolize.md, "Debug files".

#include <optional>
#include <string>

namespace cprof::symbolize {

// True when DEBUGINFOD_URLS names at least one server.
bool debuginfod_configured();

// The local path of the debug file (DWARF) for `build_id` (lowercase hex), fetched or
// found in the cache; nullopt with `error` saying why ("not found on the servers",
// a connection error) when there is none.
std::optional<std::string> debuginfod_debug_file(const std::string& build_id, std::string& error);

}  // namespace cprof::symbolize
