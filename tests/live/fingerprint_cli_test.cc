// SPDX-License-Identifier: Apache-2.0
// `docs/resolver.md`, "When the root is fingerprinted", with the built binary
// on this kernel, what needs no sandbox: a fingerprint of another boot is
// refused with its own status (9), a file that is no usable fingerprint is
// refused clearly, the options that go with a fingerprint, and a fingerprint
// file verifies and shows. The resolutions that consume one are in
// fingerprint_live_cli_test.cc.
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "format/fingerprint_file.h"
#include "format/reader.h"
#include "proctape.pb.h"
#include "tests/live/child_process.h"
#include "tests/live/files.h"
#include "tests/live/fingerprint_fixture.h"
#include "tests/live/sandbox.h"

namespace proctape::live {
namespace {

// ---- Refusals: no sandbox needed -------------------------------------------

// docs/resolver.md, "When the root is fingerprinted": a root that is dead
// when it is fingerprinted (a zombie not yet reaped: a real one, a child of
// this test that exited) is refused before the turn, as the resolver
// refuses a dead root: MISSING_ROOT, exit 5, one line naming its state, and
// no file written. The zombie is ended (reaped) by its pid.
TEST(FingerprintCli, AZombieRootIsRefusedAsMissing) {
  std::string error;
  std::unique_ptr<Child> zombie = Child::StartZombie(&error);
  ASSERT_NE(zombie, nullptr) << error;
  TempDir dir("fingerprint-zombie");
  const std::string out = dir.File("root.ptape");
  CommandResult r = Proctape({"fingerprint", "--root", std::to_string(zombie->pid()), "-o", out});
  EXPECT_EQ(r.exit_code, 5) << Describe(r);
  EXPECT_TRUE(OneLine(r.err)) << Describe(r);
  EXPECT_TRUE(Has(r.err, "MISSING_ROOT")) << Describe(r);
  EXPECT_TRUE(Has(r.err, "is dead (state Z)")) << Describe(r);
  EXPECT_FALSE(Exists(out));
}

TEST(FingerprintCli, FingerprintOfAnotherBootIsRefusedWithItsOwnStatus) {
  TempDir dir("fingerprint");
  const std::string other = "00000000-1111-4222-8333-444444444444\n";
  ASSERT_NE(HostBootId(), other);
  std::string path =
      WriteEdited(dir, "other-boot.ptape", [&](v1::Header& h, v1::RootFingerprint& f) {
        h.mutable_host()->set_boot_id(other);
        f.set_boot_id(other);
      });
  CommandResult r = Proctape({"resolve", "--fingerprint", path, "--token", "T"});
  EXPECT_EQ(r.exit_code, 9) << Describe(r);
  EXPECT_TRUE(r.out.empty()) << Describe(r);
  EXPECT_TRUE(StartsWith(r.err, "proctape: ")) << Describe(r);
  EXPECT_TRUE(OneLine(r.err)) << Describe(r);
  EXPECT_NE(r.err.find("00000000-1111-4222-8333-444444444444"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("another boot"), std::string::npos) << r.err;
}

// Every view of a file that cannot show it says what the file is, in the
// same words (format/file_holds.h): tree, diff (of it alone or beside
// another), export, replay and ownership's refused plan of a fingerprint
// file, as explain, and none offers what would fail on it (replay --model
// frames) or a capturer it does not have; resolve --fingerprint of a capture
// says what it is, and how to take a fingerprint once.
TEST(FingerprintCli, EveryViewSaysWhatAFileHoldsInTheSameWords) {
  TempDir dir("fingerprint");
  const std::string self = std::to_string(::getpid());
  const std::string fp = dir.File("root.ptape");
  ASSERT_EQ(Proctape({"fingerprint", "--root", self, "-o", fp}).exit_code, 0);
  const std::string capture = dir.File("capture.ptape");
  ASSERT_EQ(Proctape({"capture", "--root", self, "-o", capture}).exit_code, 0);
  const std::string holds = "it is a fingerprint file (root " + self + " at start tick ";
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"tree", fp},
                                             {"diff", fp, fp},
                                             {"diff", fp},
                                             {"export", fp, "--format", "dot"},
                                             {"explain", fp},
                                             {"replay", fp},
                                             {"ownership", "--baseline", fp, "--current", capture,
                                              "--uid", "0", "--cgroup", "/", "--self", self}}) {
    CommandResult r = Proctape(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << Describe(r);
    EXPECT_TRUE(OneLine(r.err)) << Describe(r);
    EXPECT_NE(r.err.find(holds), std::string::npos) << args[0] << ": " << Describe(r);
    EXPECT_EQ(r.err.find("--model frames"), std::string::npos) << args[0] << ": " << Describe(r);
    EXPECT_EQ(r.err.find(" one frame"), std::string::npos) << args[0] << ": " << Describe(r);
    if (args[0] == "ownership") {
      EXPECT_NE(r.out.find(holds), std::string::npos) << Describe(r);
      EXPECT_NE(r.out.find("  baseline \"" + fp + "\"\n"), std::string::npos)
          << "a fingerprint file was captured by no one: " << Describe(r);
    }
  }
  CommandResult r = Proctape({"resolve", "--fingerprint", capture, "--token", "T"});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_NE(r.err.find("is not a fingerprint file: it is a capture (1 frame)"), std::string::npos)
      << Describe(r);
  std::size_t hints = 0;
  for (std::size_t at = r.err.find("take "); at != std::string::npos;
       at = r.err.find("take ", at + 1)) {
    ++hints;
  }
  EXPECT_EQ(hints, 1u) << "the hint is said once: " << Describe(r);
}

TEST(FingerprintCli, FileThatIsNoUsableFingerprintIsRefusedClearly) {
  TempDir dir("fingerprint");
  // A capture: intact, but no fingerprint (usage: the wrong file was given).
  const std::string capture = dir.File("capture.ptape");
  CommandResult c = Proctape({"capture", "--root", std::to_string(::getpid()), "-o", capture});
  ASSERT_EQ(c.exit_code, 0) << Describe(c);
  CommandResult r = Proctape({"resolve", "--fingerprint", capture, "--token", "T"});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_TRUE(OneLine(r.err)) << Describe(r);
  EXPECT_NE(r.err.find("is not a fingerprint file"), std::string::npos) << r.err;

  // Cut short: the file's own status (13, truncated).
  const std::string good = dir.File("root.ptape");
  ASSERT_EQ(Proctape({"fingerprint", "--root", std::to_string(::getpid()), "-o", good}).exit_code,
            0);
  const std::string bytes = live::FileBytes(good);
  const std::string cut = dir.File("cut.ptape");
  live::WriteFile(cut, bytes.substr(0, bytes.size() - 5));
  r = Proctape({"resolve", "--fingerprint", cut, "--token", "T"});
  EXPECT_EQ(r.exit_code, 13) << Describe(r);
  EXPECT_TRUE(OneLine(r.err)) << Describe(r);

  // A fingerprint whose root is not a pid the resolver takes: corrupt (15).
  std::string bad = WriteEdited(dir, "pid1.ptape",
                                [](v1::Header&, v1::RootFingerprint& f) { f.set_root_pid(1); });
  r = Proctape({"resolve", "--fingerprint", bad, "--token", "T"});
  EXPECT_EQ(r.exit_code, 15) << Describe(r);
  EXPECT_TRUE(OneLine(r.err)) << Describe(r);
  EXPECT_NE(r.err.find("unusable fingerprint"), std::string::npos) << r.err;

  r = Proctape({"resolve", "--fingerprint", dir.File("absent.ptape"), "--token", "T"});
  EXPECT_EQ(r.exit_code, 10) << Describe(r);
}

TEST(FingerprintCli, RootStartExeOrAnotherRootBesideAFingerprintAreUsageErrors) {
  TempDir dir("fingerprint");
  const std::string fp = dir.File("root.ptape");
  const std::string self = std::to_string(::getpid());
  ASSERT_EQ(Proctape({"fingerprint", "--root", self, "-o", fp}).exit_code, 0);
  for (const std::vector<std::string>& extra : std::vector<std::vector<std::string>>{
           {"--root-start", "5"}, {"--exe", "/bin/sleep"}, {"--root", "2"}}) {
    std::vector<std::string> args = {"resolve", "--fingerprint", fp, "--token", "T"};
    args.insert(args.end(), extra.begin(), extra.end());
    CommandResult r = Proctape(args);
    EXPECT_EQ(r.exit_code, 2) << extra[0] << ": " << Describe(r);
    EXPECT_TRUE(OneLine(r.err)) << Describe(r);
    EXPECT_TRUE(r.out.empty()) << Describe(r);
  }
}

TEST(FingerprintCli, OutputRulesAndRootsThatCannotBeFingerprinted) {
  TempDir dir("fingerprint");
  const std::string self = std::to_string(::getpid());
  const std::string fp = dir.File("root.ptape");
  ASSERT_EQ(Proctape({"fingerprint", "--root", self, "-o", fp}).exit_code, 0);
  CommandResult again = Proctape({"fingerprint", "--root", self, "-o", fp});
  EXPECT_EQ(again.exit_code, 10) << Describe(again);
  EXPECT_NE(again.err.find("--force"), std::string::npos) << again.err;
  EXPECT_EQ(Proctape({"fingerprint", "--root", self, "-o", fp, "--force"}).exit_code, 0);
  const std::string link = dir.File("link.ptape");
  ASSERT_EQ(::symlink(fp.c_str(), link.c_str()), 0);
  CommandResult linked = Proctape({"fingerprint", "--root", self, "-o", link, "--force"});
  EXPECT_EQ(linked.exit_code, 10) << Describe(linked);
  EXPECT_NE(linked.err.find("symbolic link"), std::string::npos) << linked.err;

  CommandResult gone = Proctape({"fingerprint", "--root", live::AbsentPid(), "-o", dir.File("g")});
  EXPECT_EQ(gone.exit_code, 5) << Describe(gone);
  EXPECT_TRUE(OneLine(gone.err)) << Describe(gone);
  EXPECT_NE(gone.err.find("MISSING_ROOT"), std::string::npos) << gone.err;
  CommandResult exe =
      Proctape({"fingerprint", "--root", self, "--exe", "/no/such", "-o", dir.File("e")});
  EXPECT_EQ(exe.exit_code, 2) << Describe(exe);
  EXPECT_FALSE(live::Exists(dir.File("e"))) << "nothing written";
  CommandResult none = Proctape({"fingerprint", "--root", self});
  EXPECT_EQ(none.exit_code, 2) << Describe(none);
}

// `replay --fingerprint` asks what a fingerprint taken before the turn would
// have decided; one of another boot than the recording's cannot say.
TEST(FingerprintCli, ReplayRefusesAFingerprintOfAnotherBootThanTheRecordings) {
  TempDir dir("fingerprint");
  const std::string fp = dir.File("root.ptape");
  ASSERT_EQ(Proctape({"fingerprint", "--root", std::to_string(::getpid()), "-o", fp}).exit_code, 0);
  // Recorded on another machine, in another boot.
  const std::string recording =
      std::string(PROCTAPE_SOURCE_DIR) + "/tests/data/replay/resolved.ptape";
  Snapshot snap;
  ASSERT_TRUE(ReadSnapshot(recording, &snap).ok());
  ASSERT_NE(snap.header.host().boot_id(), HostBootId());
  CommandResult r = Proctape({"replay", recording, "--fingerprint", fp});
  EXPECT_EQ(r.exit_code, 9) << Describe(r);
  EXPECT_TRUE(r.out.empty()) << Describe(r);
  EXPECT_TRUE(OneLine(r.err)) << Describe(r);
  EXPECT_NE(r.err.find("the recording's"), std::string::npos) << r.err;

  for (const std::vector<std::string>& extra :
       std::vector<std::vector<std::string>>{{"--root", "5"},
                                             {"--root-start", "5"},
                                             {"--exe-identity", "1:2"},
                                             {"--exe-like", "5"},
                                             {"--legacy-marker", "1"}}) {
    std::vector<std::string> args = {"replay", recording, "--fingerprint", fp};
    args.insert(args.end(), extra.begin(), extra.end());
    CommandResult u = Proctape(args);
    EXPECT_EQ(u.exit_code, 2) << extra[0] << ": " << Describe(u);
    EXPECT_TRUE(OneLine(u.err)) << Describe(u);
  }
}

// Each command's refusal of another boot's fingerprint advises what fits it:
// resolve can fingerprint the root again, replay cannot (the recording is
// made); it says the fingerprint and the recording come from different boots.
TEST(FingerprintCli, AnotherBootsFingerprintIsRefusedWithAdviceThatFitsTheCommand) {
  TempDir dir("fingerprint");
  const std::string fp = dir.File("root.ptape");
  ASSERT_EQ(Proctape({"fingerprint", "--root", std::to_string(::getpid()), "-o", fp}).exit_code, 0);
  const std::string recording =
      std::string(PROCTAPE_SOURCE_DIR) + "/tests/data/replay/resolved.ptape";
  CommandResult replay = Proctape({"replay", recording, "--fingerprint", fp});
  ASSERT_EQ(replay.exit_code, 9) << Describe(replay);
  EXPECT_EQ(replay.err.find("fingerprint the root again"), std::string::npos) << replay.err;
  EXPECT_NE(replay.err.find("the fingerprint and the recording come from different boots"),
            std::string::npos)
      << replay.err;

  const std::string other = "00000000-1111-4222-8333-444444444444\n";
  std::string path =
      WriteEdited(dir, "other-boot.ptape", [&](v1::Header& h, v1::RootFingerprint& f) {
        h.mutable_host()->set_boot_id(other);
        f.set_boot_id(other);
      });
  CommandResult resolve = Proctape({"resolve", "--fingerprint", path, "--token", "T"});
  ASSERT_EQ(resolve.exit_code, 9) << Describe(resolve);
  EXPECT_NE(resolve.err.find("fingerprint the root again"), std::string::npos) << resolve.err;
}

// --model frames on a plain capture takes the root, its start tick and the
// executable from the fingerprint, as it would from --root, --root-start and
// --exe-identity.
TEST(FingerprintCli, FramesModelOfACaptureTakesTheRootFromTheFingerprint) {
  TempDir dir("fingerprint");
  const std::string self = std::to_string(::getpid());
  std::uint64_t start = 0;
  // A fingerprint of the test one tick later than it started: the capture's
  // root is then not the fingerprinted one.
  const std::string fp = WriteEdited(dir, "root.ptape", [&](v1::Header&, v1::RootFingerprint& f) {
    start = f.root_start_ticks();
    f.set_root_start_ticks(start + 1);
  });
  const std::string capture = dir.File("capture.ptape");
  ASSERT_EQ(Proctape({"capture", "--root", self, "-o", capture}).exit_code, 0);
  CommandResult r = Proctape(
      {"replay", capture, "--model", "frames", "--fingerprint", fp, "--token", "T", "--json"});
  EXPECT_EQ(r.exit_code, 4) << Describe(r);
  v1::ReplayReport report;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(r.out, &report).ok()) << Describe(r);
  ASSERT_EQ(report.frame_runs_size(), 1) << Describe(r);
  const v1::VerdictSummary* v = &report.frame_runs(0).verdict();
  EXPECT_EQ(v->status(), v1::Verdict::ROOT_RESTARTED) << v->detail();
  EXPECT_EQ(v->subject_pid(), ::getpid());
  EXPECT_EQ(v->expected_ticks(), start + 1);
}

// `fingerprint -o -` writes the file to standard output, its report to
// standard error.
TEST(FingerprintCli, FingerprintToStandardOutput) {
  TempDir dir("fingerprint");
  CommandResult r = Proctape({"fingerprint", "--root", std::to_string(::getpid()), "-o", "-"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_TRUE(StartsWith(r.err, "fingerprinted root ")) << Describe(r);
  EXPECT_TRUE(OneLine(r.err)) << Describe(r);
  const std::string file = dir.File("stdout.ptape");
  live::WriteFile(file, r.out);
  FingerprintFile read = ReadFingerprintFile(file);
  EXPECT_TRUE(read.ok()) << read.error;
  EXPECT_EQ(read.fingerprint.root_pid(), ::getpid());
}

// A fingerprint file is a .ptape like any other: verify says it is whole and
// what it fingerprinted, show prints the fingerprint, --json counts it.
TEST(FingerprintCli, FingerprintFileVerifiesAndShows) {
  TempDir dir("fingerprint");
  const std::string self = std::to_string(::getpid());
  const std::string fp = dir.File("root.ptape");
  ASSERT_EQ(Proctape({"fingerprint", "--root", self, "-o", fp}).exit_code, 0);
  std::optional<live::ProcStat> st = live::ReadStat(::getpid());
  ASSERT_TRUE(st.has_value());
  const live::FileId sleep = live::StatOf("/bin/sleep");
  const std::string what = "root " + self + " at start tick " + std::to_string(st->start_ticks) +
                           ", exe /bin/sleep " + std::to_string(sleep.dev) + ":" +
                           std::to_string(sleep.ino);

  CommandResult v = Proctape({"verify", fp});
  EXPECT_EQ(v.exit_code, 0) << Describe(v);
  EXPECT_EQ(v.out, fp + ": intact: 3 chunks, 1 root fingerprint: " + what + "\n");
  CommandResult vj = Proctape({"verify", fp, "--json"});
  EXPECT_NE(vj.out.find("\"fingerprints\":1"), std::string::npos) << Describe(vj);

  CommandResult show = Proctape({"show", fp});
  EXPECT_EQ(show.exit_code, 0) << Describe(show);
  EXPECT_NE(show.out.find("\nfingerprints: 1\n  fingerprint 0: root " + self + " \""),
            std::string::npos)
      << Describe(show);
  EXPECT_NE(
      show.out.find(" at start tick " + std::to_string(st->start_ticks) + ", exe \"/bin/sleep\" " +
                    std::to_string(sleep.dev) + ":" + std::to_string(sleep.ino) + ", taken "),
      std::string::npos)
      << Describe(show);
  EXPECT_NE(show.out.find(", in the file's boot\n"), std::string::npos) << Describe(show);
}

}  // namespace
}  // namespace proctape::live
