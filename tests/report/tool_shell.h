#pragma once
// Running the tools users read our outputs with (sqlite3, chromium, python3) from a test.

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace cprof::report::testing {

struct ShellResult {
  int status = -1;
  std::string out;
};

// Runs `command` with /bin/sh; its standard output and exit status.
inline ShellResult run_shell(const std::string& command) {
  ShellResult r;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf;
  for (size_t n; (n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0;) r.out.append(buf.data(), n);
  const int status = ::pclose(pipe);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

inline bool have_tool(const std::string& tool) {
  return run_shell("command -v " + tool + " >/dev/null 2>&1").status == 0;
}

// Debian's chromium (scripts/install-deps.sh), or another name it goes by; "" if none.
inline std::string find_chromium() {
  for (const char* c : {"chromium", "chromium-browser", "google-chrome"}) {
    if (have_tool(c)) return c;
  }
  return "";
}

// Flags for a headless run that touches nothing outside `profile_dir` and the network.
inline std::string chromium_flags(const std::string& profile_dir) {
  return " --headless --no-sandbox --disable-gpu --disable-background-networking "
         "--disable-component-update --disable-sync --no-first-run --user-data-dir=" +
         profile_dir + " ";
}

inline void write_file(const std::filesystem::path& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary);
  out << data;
}

// Runs a Python snippet with the JSON document `file` loaded as `d` (a script written next
// to it); its output, errors included.
inline std::string python_on_json(const std::filesystem::path& file, const std::string& code) {
  const auto script = file.parent_path() / "check.py";
  write_file(script, "import json, sys\nd = json.load(open(sys.argv[1]))\n" + code);
  return run_shell("python3 " + script.string() + " " + file.string() + " 2>&1").out;
}

// An HTML page without its flame graph's data block and script (html_flame.h), which
// carry the names as JSON, unescaped, where HTML does not parse them: what is left must
// hold every name escaped, and no other script.
inline std::string without_flame_scripts(std::string html) {
  for (const char* open : {"<script type=\"application/json\" id=\"flame-data\">", "<script>"}) {
    for (size_t at = html.find(open); at != std::string::npos; at = html.find(open, at)) {
      const size_t end = html.find("</script>", at);
      if (end == std::string::npos) break;
      html.erase(at, end + 9 - at);
    }
  }
  return html;
}

}  // namespace cprof::report::testing
