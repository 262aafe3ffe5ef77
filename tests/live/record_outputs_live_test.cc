// SPDX-License-Identifier: Apache-2.0
// Where `proctape resolve --record` and `proctape liveness --record` write
// (`docs/cli/outputs.md`), on a real PID-namespace sandbox: an existing file is
// never replaced without --force, a symbolic link is refused even with it,
// and `--record -` writes the file to standard output with the verdict on
// standard error. Every process a test starts is ended by its pid (sandbox.h).
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "tests/live/build_paths.h"
#include "format/reader.h"
#include "tests/live/files.h"
#include "tests/live/record_live_fixture.h"
#include "tests/live/sandbox.h"

namespace proctape {
namespace {

using live::CommandResult;
using live::Describe;
using live::Entries;
using live::FileBytes;
using live::RecordLiveTest;
using live::StartsWith;
using live::WriteFile;

using live::Proctape;

TEST_P(RecordLiveTest, ExistingFileIsNotReplacedWithoutForce) {
  const std::string file = dir_.File("existing.ptape");
  const std::string original = "not a capture: must survive\n";
  WriteFile(file, original);
  for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
           {"resolve", "--root", Root(), "--token", sandbox_->token(), "--record", file},
           {"liveness", "--pid", Pid(), "--start", Start(), "--record", file}}) {
    CommandResult r = Proctape(args);
    ASSERT_TRUE(r.started) << r.error;
    EXPECT_EQ(r.exit_code, 10) << args[0] << ": " << Describe(r);
    EXPECT_TRUE(r.out.empty()) << args[0] << ": a verdict was printed: " << Describe(r);
    EXPECT_TRUE(
        StartsWith(r.err, "proctape: --record '" + file + "': exists: refused (use --force"))
        << Describe(r);
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "not one line: " << r.err;
    EXPECT_EQ(FileBytes(file), original) << args[0];
    EXPECT_EQ(Entries(dir_.path()), std::vector<std::string>{"existing.ptape"}) << args[0];
  }

  // A symbolic link is refused even with --force; its target is untouched.
  const std::string target = dir_.File("target");
  const std::string link = dir_.File("link.ptape");
  WriteFile(target, original);
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  CommandResult sym = Proctape(
      {"resolve", "--root", Root(), "--token", sandbox_->token(), "--record", link, "--force"});
  EXPECT_EQ(sym.exit_code, 10) << Describe(sym);
  EXPECT_TRUE(sym.out.empty()) << Describe(sym);
  EXPECT_EQ(FileBytes(target), original);

  // With --force the file is replaced by a whole recording.
  CommandResult forced = Proctape(
      {"resolve", "--root", Root(), "--token", sandbox_->token(), "--record", file, "--force"});
  EXPECT_EQ(forced.exit_code, 0) << Describe(forced);
  Snapshot snap;
  FormatError err = ReadSnapshot(file, &snap);
  EXPECT_TRUE(err.ok()) << err.message;
  EXPECT_EQ(snap.resolutions.size(), 1u);
}

// `--record -` writes the file to standard output; the verdict then goes to
// standard error so that the file stays whole.
TEST_P(RecordLiveTest, RecordToStandardOutputKeepsTheVerdictOutOfTheFile) {
  CommandResult r =
      Proctape({"resolve", "--root", Root(), "--token", sandbox_->token(), "--record", "-"});
  ASSERT_EQ(r.exit_code, 0) << "exit " << r.exit_code << " stderr: " << r.err;
  EXPECT_TRUE(StartsWith(r.err, "RESOLVED host pid " + Pid() + ",")) << r.err;
  const std::string file = dir_.File("stdout.ptape");
  WriteFile(file, r.out);
  Snapshot snap;
  FormatError err = ReadSnapshot(file, &snap);
  ASSERT_TRUE(err.ok()) << err.message;
  ASSERT_EQ(snap.resolutions.size(), 1u);
  EXPECT_EQ(snap.resolutions[0].verdict().pid(), sandbox_->sleep_pid());

  CommandResult alive =
      Proctape({"liveness", "--pid", Pid(), "--start", Start(), "--record", "-", "--json"});
  ASSERT_EQ(alive.exit_code, 0) << "exit " << alive.exit_code << " stderr: " << alive.err;
  EXPECT_NE(alive.err.find("\"status\":\"ALIVE\""), std::string::npos) << alive.err;
  WriteFile(file, alive.out);
  err = ReadSnapshot(file, &snap);
  ASSERT_TRUE(err.ok()) << err.message;
  ASSERT_EQ(snap.resolutions.size(), 1u);
  EXPECT_EQ(snap.resolutions[0].liveness_verdict().status(), v1::LivenessVerdict::ALIVE);
}
}  // namespace
}  // namespace proctape
