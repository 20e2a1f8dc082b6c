// Debug files from a debuginfod server (symbolize/elf/debuginfod_fetch.h): Debian's
// debuginfod serving a directory that holds the fixture's debug file, and causal-symbolize
// naming a stripped binary's code through it. The server binds every address it has, so
// it runs in a network namespace of its own whose only interface is loopback, with the
// client beside it; it is started and stopped here, and the wait for it is bounded.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "support.h"

namespace cprof::symbolize::test {
namespace {

namespace fs = std::filesystem;

TEST(Debuginfod, ServesTheDebugFileNoDirectoryHas) {
  for (const char* tool : {"debuginfod", "unshare", "ip"}) {
    int rc = -1;
    shell(std::string("command -v ") + tool + " >/dev/null 2>&1", &rc);
    if (rc != 0)
      GTEST_SKIP() << tool << " not installed (Debian packages debuginfod, util-linux, iproute2)";
  }
  std::string id;
  std::ifstream(fixture_dir() + "/buildid/build-id") >> id;
  ASSERT_EQ(id.size(), 40u);
  const fs::path debug = fs::path(fixture_dir()) / "buildid/root/.build-id" / id.substr(0, 2) /
                         (id.substr(2) + ".debug");
  ASSERT_TRUE(fs::exists(debug)) << debug;
  const auto addr = symbol_address(fixture("gcc_O2"), "fx_outer");
  ASSERT_TRUE(addr);
  const fs::path dir =
      fs::temp_directory_path() / ("cprof-debuginfod-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "serve");
  fs::copy_file(debug, dir / "serve/prog.debug");
  std::ostringstream hex;
  hex << "0x" << std::hex << *addr;
  const std::string symbolize = std::string(CPROF_CAUSAL_SYMBOLIZE) + " -f -C --debug-dir " +
                                (dir / "none").string() + " --build-id " + id + " -e " +
                                fixture("buildid") + " " + hex.str();
  // In the namespace: loopback up, the server scanning serve/ (no rescans, no grooming),
  // then the client until it names the function (each try with a cache of its own: the
  // client remembers misses), at most 30 s; the server is killed on the way out.
  const fs::path script = dir / "serve-and-ask.sh";
  std::ofstream(script)
      << "set -u\nip link set lo up || exit 77\n"
      << "debuginfod -p 8002 -F -t 0 -g 0 -d " << (dir / "db.sqlite").string() << " "
      << (dir / "serve").string() << " >" << (dir / "server.log").string() << " 2>&1 &\n"
      << "server=$!\ntrap 'kill $server 2>/dev/null; wait $server 2>/dev/null' EXIT\n"
      << "out=\nfor i in $(seq 1 150); do\n"
      << "  out=$(DEBUGINFOD_URLS=http://127.0.0.1:8002 DEBUGINFOD_CACHE_PATH="
      << (dir / "cache").string() << "$i " << symbolize << " 2>&1)\n"
      << "  case $out in fx_outer*) echo \"$out\"; exit 0;; esac\n  sleep 0.2\ndone\n"
      << "echo \"never served: $out\"\ncat " << (dir / "server.log").string() << "\nexit 1\n";
  int rc = -1;
  const std::string out = shell("unshare --net sh " + script.string() + " 2>&1", &rc);
  if (rc == 77 || out.find("unshare failed") != std::string::npos) {
    fs::remove_all(dir);
    GTEST_SKIP() << "no network namespace here (unshare --net needs root): " << out;
  }
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(out.rfind("fx_outer\n", 0), 0u) << out;
  EXPECT_NE(out.find("fixtures/prog.cpp:"), std::string::npos) << out;  // lines too
  // Without the server the stripped binary has no name for it.
  const std::string alone = shell("env -u DEBUGINFOD_URLS " + symbolize + " 2>&1");
  EXPECT_EQ(alone.rfind("??\n", 0), 0u) << alone;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cprof::symbolize::test
