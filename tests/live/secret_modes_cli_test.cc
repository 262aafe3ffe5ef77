// SPDX-License-Identifier: Apache-2.0
// Which files proctape writes 0600 (docs/cli/outputs.md, rule 2): a file is
// the owner's only when what it holds keeps environment values -- a header
// whose redaction is ENVIRON_KEPT or lists kept entries (a recording's token
// entry) -- whichever command writes it; any other file is 0644 less the
// umask. Run from the binary with umask 022 (inherited by the child); every
// process a test starts is its own child, ended by its pid.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>

#include "tests/live/files.h"
#include "tests/live/outputs_cli_fixture.h"
#include "tests/live/sandbox.h"

namespace proctape::live {
namespace {

using namespace outputs;  // outputs_cli_fixture.h

mode_t ModeOf(const std::string& path) {
  struct stat st;
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// The umask of a user who shares what they write: 022 for the test's
// children, the test's own restored after.
class Umask022 {
 public:
  Umask022() : old_(::umask(022)) {}
  ~Umask022() { ::umask(old_); }

 private:
  mode_t old_;
};

// lab --record keeps the token's entry of the scenario it started, as
// resolve --record does: the same rule, not the command, makes it 0600.
TEST(SecretModes, ALabRecordingKeepsTheTokenAndIs0600) {
  if (std::string missing = SandboxUnavailable(SandboxKind::kUnshare); !missing.empty()) {
    GTEST_SKIP() << missing;
  }
  TempDir dir("secret-modes");
  const std::string file = dir.File("lab-plain.ptape");
  CommandResult r;
  {
    Umask022 shared;
    r = Proctape(
        {"lab", "plain", "--sandbox", "unshare", "--record", file, "--deadline-ms", "1000"});
  }
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(ModeOf(file), 0600u);
}

// corpus add's copy holds what the recording holds, its token entry: 0600
// whatever the mode of the file added; the MANIFEST keeps no environment
// value and stays 0644.
TEST(SecretModes, ACorpusCopyOfARecordingIs0600AndItsManifest0644) {
  TempDir dir("secret-modes");
  const std::string added = dir.File("fail.ptape");
  WriteFile(added, FileBytes(kRecording));
  ASSERT_EQ(::chmod(added.c_str(), 0644), 0);
  const std::string corpus = dir.File("cx");
  CommandResult r;
  {
    Umask022 shared;
    r = Proctape({"corpus", "add", added, "--corpus", corpus});
  }
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  std::size_t copies = 0;
  for (const std::string& name : Entries(corpus)) {
    if (name == "MANIFEST") continue;
    ++copies;
    EXPECT_EQ(ModeOf(corpus + "/" + name), 0600u) << name;
  }
  EXPECT_EQ(copies, 1u);
  EXPECT_EQ(ModeOf(corpus + "/MANIFEST"), 0644u);
}

// A capture read back from a proc-dir that keeps a recording's token entry
// (its proctape-capture lists a kept_entry) keeps that entry too: 0600,
// though it is no --env keep.
TEST(SecretModes, ACaptureOfAProcDirKeepingTheTokenIs0600) {
  TempDir dir("secret-modes");
  CommandResult r =
      Proctape({"export", kRecording, "--format", "proc-dir", "-o", dir.File("frame")});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  {
    Umask022 shared;
    r = Proctape({"capture", "--proc-root", dir.File("frame"), "-o", dir.File("again.ptape")},
                 30'000);
  }
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(ModeOf(dir.File("again.ptape")), 0600u);
}

}  // namespace
}  // namespace proctape::live
