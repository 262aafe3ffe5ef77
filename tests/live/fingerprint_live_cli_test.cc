// SPDX-License-Identifier: Apache-2.0
// `docs/resolver.md`, "When the root is fingerprinted", with the built binary
// on this kernel, in a live sandbox: the root is fingerprinted before the turn
// (`proctape fingerprint`), the resolution consumes the fingerprint (`resolve
// --fingerprint`), a recording keeps it, and a resolution without one says, on
// standard error, in the verdict and in the recording, that the root was
// fingerprinted late. The refusals are in fingerprint_cli_test.cc.
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "format/fingerprint_file.h"
#include "format/reader.h"
#include "lab/procs.h"
#include "lab/session.h"
#include "proctape.pb.h"
#include "tests/live/files.h"
#include "tests/live/fingerprint_fixture.h"
#include "tests/live/sandbox.h"
#include "tests/live/sandbox_fixture.h"

namespace proctape::live {
namespace {

using google::protobuf::util::MessageDifferencer;

constexpr int kRecordTimeoutMs = 120'000;  // two whole-host frames on a busy host

std::optional<v1::VerdictSummary> VerdictJson(const std::string& line) {
  v1::VerdictSummary v;
  if (!google::protobuf::util::JsonStringToMessage(line, &v).ok()) return std::nullopt;
  return v;
}

// ---- On a live sandbox -------------------------------------------------------

class FingerprintLiveTest : public LiveSandboxTest {
 protected:
  void SetUp() override {
    LiveSandboxTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_FALSE(dir_.path().empty());
  }

  TempDir dir_{"fingerprint"};
};

TEST_P(FingerprintLiveTest, FingerprintThenResolveFindsTheSleepWithoutAWarning) {
  const std::string fp = dir_.File("root.ptape");
  CommandResult f = Proctape({"fingerprint", "--root", Root(), "-o", fp});
  ASSERT_EQ(f.exit_code, 0) << Describe(f);
  EXPECT_TRUE(OneLine(f.out)) << Describe(f);
  EXPECT_TRUE(StartsWith(f.out, "fingerprinted root " + Root() + " ")) << Describe(f);

  FingerprintFile file = ReadFingerprintFile(fp);
  ASSERT_TRUE(file.ok()) << file.error;
  std::optional<live::ProcStat> root = live::ReadStat(sandbox_->app_server());
  ASSERT_TRUE(root.has_value());
  EXPECT_EQ(file.fingerprint.root_pid(), sandbox_->app_server());
  EXPECT_EQ(file.fingerprint.root_start_ticks(), root->start_ticks);
  EXPECT_EQ(file.fingerprint.boot_id(), HostBootId());
  EXPECT_EQ(file.fingerprint.exe_identity().ino(), live::StatOf("/bin/sleep").ino);
  EXPECT_EQ(file.fingerprint.exe_identity().dev(), live::StatOf("/bin/sleep").dev);
  EXPECT_EQ(file.fingerprint.exe_path(), "/bin/sleep");

  CommandResult r = Proctape({"resolve", "--fingerprint", fp, "--token", sandbox_->token()});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out.substr(0, r.out.find(" (")), "RESOLVED host pid " + Pid() + ", start tick " +
                                                   std::to_string(sandbox_->sleep_start()))
      << Describe(r);
  EXPECT_TRUE(OneLine(r.out)) << Describe(r);
  EXPECT_TRUE(r.err.empty()) << Describe(r);

  // --root may be repeated, if it is the fingerprint's.
  CommandResult json = Proctape(
      {"resolve", "--fingerprint", fp, "--root", Root(), "--token", sandbox_->token(), "--json"});
  EXPECT_EQ(json.exit_code, 0) << Describe(json);
  std::optional<v1::VerdictSummary> v = VerdictJson(json.out);
  ASSERT_TRUE(v.has_value()) << json.out;
  EXPECT_EQ(v->pid(), sandbox_->sleep_pid());
  EXPECT_FALSE(v->late_fingerprint());
}

TEST_P(FingerprintLiveTest, ResolveWithoutAFingerprintSaysTheRootWasFingerprintedLate) {
  CommandResult r = Proctape({"resolve", "--root", Root(), "--token", sandbox_->token()});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_TRUE(StartsWith(r.out, "RESOLVED host pid " + Pid() + ",")) << Describe(r);
  EXPECT_NE(r.out.find("\n  late fingerprint: root " + Root() +
                       "'s start tick was read, and the executable attested, at resolve time"),
            std::string::npos)
      << Describe(r);
  EXPECT_TRUE(OneLine(r.err)) << Describe(r);
  EXPECT_TRUE(StartsWith(r.err, "proctape: warning: root " + Root() + " is fingerprinted late"))
      << Describe(r);
  EXPECT_NE(r.err.find("a restarted root or a replaced executable cannot be detected"),
            std::string::npos)
      << r.err;

  CommandResult json =
      Proctape({"resolve", "--root", Root(), "--token", sandbox_->token(), "--json"});
  std::optional<v1::VerdictSummary> v = VerdictJson(json.out);
  ASSERT_TRUE(v.has_value()) << Describe(json);
  EXPECT_TRUE(v->late_fingerprint());

  // A start tick recorded before the turn: the root is not late, but the
  // executable is still attested now, and that is said.
  std::optional<live::ProcStat> root = live::ReadStat(sandbox_->app_server());
  ASSERT_TRUE(root.has_value());
  CommandResult given =
      Proctape({"resolve", "--root", Root(), "--root-start", std::to_string(root->start_ticks),
                "--token", sandbox_->token(), "--json"});
  EXPECT_EQ(given.exit_code, 0) << Describe(given);
  v = VerdictJson(given.out);
  ASSERT_TRUE(v.has_value()) << Describe(given);
  EXPECT_FALSE(v->late_fingerprint());
  // Under --json the warning is JSON too, on standard error (docs/cli.md).
  EXPECT_TRUE(OneLine(given.err)) << Describe(given);
  v1::ErrorReport warning;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(given.err, &warning).ok()) << given.err;
  EXPECT_TRUE(StartsWith(warning.warning(), "--exe /bin/sleep is attested now")) << given.err;
  EXPECT_EQ(warning.command(), "resolve");
  EXPECT_EQ(warning.error(), "");
}

TEST_P(FingerprintLiveTest, RecordingKeepsTheFingerprintAndReplaysAgainstIt) {
  const std::string fp = dir_.File("root.ptape");
  ASSERT_EQ(Proctape({"fingerprint", "--root", Root(), "-o", fp}).exit_code, 0);
  const std::string rec = dir_.File("resolve.ptape");
  CommandResult r =
      Proctape({"resolve", "--fingerprint", fp, "--token", sandbox_->token(), "--record", rec},
               kRecordTimeoutMs);
  ASSERT_EQ(r.exit_code, 0) << Describe(r);

  Snapshot snap;
  ASSERT_TRUE(ReadSnapshot(rec, &snap).ok());
  ASSERT_EQ(snap.resolutions.size(), 1u);
  const v1::ResolutionRequest& q = snap.resolutions[0].resolve();
  FingerprintFile file = ReadFingerprintFile(fp);
  ASSERT_TRUE(q.has_fingerprint());
  EXPECT_TRUE(MessageDifferencer::Equals(q.fingerprint(), file.fingerprint));
  EXPECT_FALSE(q.fingerprint_on_tape());
  EXPECT_EQ(q.root_pid(), file.fingerprint.root_pid());
  EXPECT_EQ(q.root_start_ticks(), file.fingerprint.root_start_ticks());
  EXPECT_TRUE(MessageDifferencer::Equals(q.exe_identity(), file.fingerprint.exe_identity()));
  EXPECT_FALSE(snap.resolutions[0].verdict().late_fingerprint());

  CommandResult show = Proctape({"show", rec});
  EXPECT_NE(show.out.find("resolve beneath root " + Root() + "@" +
                          std::to_string(file.fingerprint.root_start_ticks()) +
                          " (fingerprinted before the turn)"),
            std::string::npos)
      << Describe(show);
  EXPECT_NE(show.out.find("\n    fingerprint: root " + Root() + " "), std::string::npos)
      << Describe(show);

  CommandResult replay = Proctape({"replay", rec});
  EXPECT_EQ(replay.exit_code, 0) << Describe(replay);
  EXPECT_TRUE(StartsWith(replay.out, "resolution 0: REPRODUCED RESOLVED host pid " + Pid()))
      << Describe(replay);
}

// The case the fingerprint is for (`docs/resolver.md`, "When the root is
// fingerprinted"): the root restarts at the same pid (clone3 set_tid)
// between `fingerprint` and `resolve`. With the fingerprint the resolution is
// ROOT_RESTARTED; without it the new root's sleep is RESOLVED, and all proctape
// can do is say that the root was fingerprinted late.
TEST(FingerprintRestart, RootRestartedBetweenFingerprintAndResolveIsRootRestarted) {
  if (::geteuid() != 0) GTEST_SKIP() << "a root restarted at its pid (clone3 set_tid) needs root";
  if (std::string why = lab::SandboxUnavailable(lab::SandboxKind::kUnshare); !why.empty()) {
    GTEST_SKIP() << why;
  }
  TempDir dir("fingerprint");
  lab::Session session;
  MaybeFailure init = session.Init(lab::SandboxKind::kUnshare);
  ASSERT_FALSE(init) << init->message;
  MaybeFailure app = session.StartAppServer();
  ASSERT_FALSE(app) << app->message;
  const pid_t root = session.app()->pid();
  const std::uint64_t fingerprinted = session.app()->start_ticks();
  const std::string fp = dir.File("root.ptape");
  CommandResult f = Proctape({"fingerprint", "--root", std::to_string(root), "-o", fp});
  ASSERT_EQ(f.exit_code, 0) << Describe(f);

  // The restart: the app-server ends, a new one takes its pid (≥ 30 ms later,
  // so its start tick differs) and starts the turn's sandbox.
  session.StopAppServer();
  lab::SleepMs(30);
  const std::string token = live::RandomHex(16);
  std::vector<std::string> argv = {"/bin/sh", "-c", "\"$@\"; :", "app-server"};
  for (const std::string& a :
       session.SandboxArgv(lab::Script::kExecSleep, token, session.Path("marker"), "")) {
    argv.push_back(a);
  }
  Failure failure;
  ASSERT_EQ(session.StartAt(root, argv, {"PATH=/usr/bin:/bin"}, "restarted app-server", &failure),
            root)
      << failure.message;
  const std::string sleep_cmdline(
      "/bin/sleep\0"
      "120\0",
      15);
  std::vector<StatFields> sleep = session.WaitFor(root, sleep_cmdline, "PROCTAPE_TOKEN=" + token,
                                                  lab::IdentityOf("/bin/sleep"), 1, 5000, &failure);
  ASSERT_EQ(sleep.size(), 1u) << failure.message;
  std::optional<StatFields> restarted = lab::ReadStatOf(root);
  ASSERT_TRUE(restarted.has_value());
  ASSERT_NE(restarted->start_ticks, fingerprinted);

  CommandResult with = Proctape({"resolve", "--fingerprint", fp, "--token", token, "--json"});
  EXPECT_EQ(with.exit_code, 4) << Describe(with);
  std::optional<v1::VerdictSummary> v = VerdictJson(with.out);
  ASSERT_TRUE(v.has_value()) << Describe(with);
  EXPECT_EQ(v->status(), v1::Verdict::ROOT_RESTARTED);
  EXPECT_FALSE(v->has_pid());
  EXPECT_EQ(v->subject_pid(), root);
  EXPECT_EQ(v->subject_start_ticks(), restarted->start_ticks);
  EXPECT_EQ(v->expected_ticks(), fingerprinted);
  EXPECT_FALSE(v->late_fingerprint());
  // No warning of a late fingerprint: the one line is the failure itself.
  EXPECT_TRUE(OneLine(with.err)) << Describe(with);
  EXPECT_EQ(with.err.find("fingerprinted late"), std::string::npos) << Describe(with);

  const std::string late = dir.File("late.ptape");
  CommandResult without =
      Proctape({"resolve", "--root", std::to_string(root), "--token", token, "--record", late},
               kRecordTimeoutMs);
  EXPECT_EQ(without.exit_code, 0) << Describe(without);
  EXPECT_TRUE(StartsWith(without.out, "RESOLVED host pid " + std::to_string(sleep[0].pid) + ","))
      << Describe(without);
  EXPECT_NE(without.out.find("late fingerprint"), std::string::npos) << Describe(without);
  EXPECT_TRUE(StartsWith(
      without.err, "proctape: warning: root " + std::to_string(root) + " is fingerprinted late"))
      << Describe(without);

  // The late recording says so, and a replay with the fingerprint taken
  // before the turn decides what the resolution should have decided.
  CommandResult show = Proctape({"show", late});
  EXPECT_NE(show.out.find("(fingerprinted late, on the tape: a restarted root cannot be detected)"),
            std::string::npos)
      << Describe(show);
  CommandResult replay = Proctape({"replay", late});
  EXPECT_EQ(replay.exit_code, 0) << Describe(replay);
  CommandResult what_if = Proctape({"replay", late, "--fingerprint", fp});
  EXPECT_EQ(what_if.exit_code, 20) << Describe(what_if);
  EXPECT_NE(what_if.out.find("VERDICT CHANGED: recorded RESOLVED host pid " +
                             std::to_string(sleep[0].pid)),
            std::string::npos)
      << Describe(what_if);
  EXPECT_NE(what_if.out.find("; now ROOT_RESTARTED: root pid " + std::to_string(root)),
            std::string::npos)
      << Describe(what_if);

  std::vector<lab::StartedProcess> started;
  std::vector<pid_t> left_running;
  session.Cleanup(&started, &left_running);
  EXPECT_TRUE(left_running.empty());
}

std::string ParamName(const ::testing::TestParamInfo<SandboxKind>& info) {
  return live::SandboxName(info.param);
}

INSTANTIATE_TEST_SUITE_P(FingerprintLive, FingerprintLiveTest,
                         ::testing::Values(SandboxKind::kUnshare, SandboxKind::kBwrap), ParamName);

}  // namespace
}  // namespace proctape::live
