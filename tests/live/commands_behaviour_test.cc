// The commands' behaviour from the binary (issue 11's polish): what a new
// user tripped on, each rule a test. Options that cannot mean anything are
// usage errors naming the option; counts and refusals name what they looked at.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/live/files.h"

#ifndef PROCTAPE_BINARY
#error "PROCTAPE_BINARY must name the built proctape CLI"
#endif

namespace proctape {
namespace {

using live::CommandResult;
using live::Describe;
using live::OneLine;
using live::Proctape;
using live::StartsWith;
using live::TempDir;

// ---- PID options and pid_max ---------------------------------------------------

// Every PID option read against the live host (resolve, fingerprint and
// capture --root, liveness --pid) refuses a pid at or above the host's
// pid_max the same way: a usage error naming the option and pid_max, before
// any output is written — not MISSING_ROOT, not "in no frame".
TEST(PidOptions, AtOrAbovePidMaxAreUsageErrorsNamingPidMax) {
  TempDir dir("pidmax");
  const std::int64_t pid_max = live::PidMax();
  ASSERT_GT(pid_max, 0);
  for (const std::string& pid : {std::to_string(pid_max), std::to_string(pid_max + 1)}) {
    for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
             {"resolve", "--root", pid, "--token", "T"},
             {"resolve", "--root", pid, "--root-start", "5", "--token", "T"},
             {"fingerprint", "--root", pid, "-o", dir.File("fp.ptape")},
             {"capture", "--root", pid, "-o", dir.File("c.ptape")},
             {"liveness", "--pid", pid, "--start", "5"}}) {
      CommandResult r = Proctape(args);
      EXPECT_EQ(r.exit_code, 2) << args[0] << " " << pid << ": " << Describe(r);
      EXPECT_TRUE(r.out.empty()) << Describe(r);
      EXPECT_TRUE(OneLine(r.err)) << Describe(r);
      EXPECT_TRUE(StartsWith(r.err, "proctape: " + args[1] + " " + pid + " ")) << Describe(r);
      EXPECT_NE(r.err.find("pid_max " + std::to_string(pid_max)), std::string::npos)
          << Describe(r);
      EXPECT_TRUE(live::Entries(dir.path()).empty()) << args[0] << ": nothing written";
    }
  }
}

}  // namespace
}  // namespace proctape
