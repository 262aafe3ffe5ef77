// SPDX-License-Identifier: Apache-2.0
// `proctape replay` (`docs/replay.md`) on real recordings of real PID-namespace
// sandboxes, with the real binary:
//   - a recorded resolution (and liveness check) of a sandboxed
//     sleep replays REPRODUCED, exit 0, naming the true host pid;
//   - nothing live is read: with the host's /proc hidden (a private mount
//     namespace with an empty tmpfs over /proc) the output is byte-identical;
//     after the sleep has been ended it is still REPRODUCED, byte-identical;
//   - replaying the same file twice gives byte-identical output,
//     human and --json; replay is clean under valgrind. The files committed
//     to the repository (tests/data/replay/) are replay_corpus_live_test.cc's.
// Every process a test starts is ended by its pid (sandbox.h).
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "tests/live/build_paths.h"
#include "format/reader.h"
#include "proctape.pb.h"
#include "proto/convert.h"
#include "replay/replay.h"
#include "tests/live/files.h"
#include "tests/live/replay_live_fixture.h"
#include "tests/live/sandbox.h"

namespace proctape {
namespace {

using live::CommandResult;
using live::DecompressedChunks;
using live::Describe;
using live::FileBytes;
using live::FindRecord;
using live::Sandbox;
using live::SandboxKind;
using live::StartsWith;
using live::TempDir;

// replay_live_fixture.h: Proctape, RunArgv, ReplayWithProcHidden,
// HiddenProcUnavailable.
using namespace live::replay_live;

constexpr int kRecordTimeoutMs = 120'000;  // two whole-host frames on a busy host
constexpr int kValgrindTimeoutMs = 300'000;

// The one replay of `proctape replay --json` of a file of one resolution
// (a ReplayReport), parsed by protobuf's own parser.
std::optional<v1::ReplaySummary> ParseJson(const std::string& line) {
  v1::ReplayReport r;
  if (!google::protobuf::util::JsonStringToMessage(line, &r).ok()) return std::nullopt;
  if (r.replays_size() != 1) return std::nullopt;
  return r.replays(0);
}

class ReplayLiveTest : public ::testing::TestWithParam<SandboxKind> {
 protected:
  void SetUp() override {
    std::string why = live::SandboxUnavailable(GetParam());
    if (!why.empty()) GTEST_SKIP() << why;
    ASSERT_FALSE(dir_.path().empty());
    std::string error;
    sandbox_ = Sandbox::Start(GetParam(), live::RandomHex(16), &error);
    ASSERT_NE(sandbox_, nullptr) << error;
  }

  std::string Root() const { return std::to_string(sandbox_->app_server()); }
  std::string Pid() const { return std::to_string(sandbox_->sleep_pid()); }
  std::string Start() const { return std::to_string(sandbox_->sleep_start()); }

  // `proctape resolve --root APP --token T --record FILE`: RESOLVED to the
  // sleep's true host pid.
  std::string RecordResolve() {
    std::string file = dir_.File("resolve.ptape");
    CommandResult r =
        Proctape({"resolve", "--root", Root(), "--token", sandbox_->token(), "--record", file},
                 kRecordTimeoutMs);
    EXPECT_EQ(r.exit_code, 0) << Describe(r);
    EXPECT_TRUE(StartsWith(r.out, "RESOLVED host pid " + Pid() + ", start tick " + Start()))
        << Describe(r) << "\nmarker " << sandbox_->marker();
    return file;
  }

  // The replay line of a REPRODUCED resolution of the sleep, with the
  // number of observations the file holds.
  std::string ReproducedLine(const std::string& file) {
    Snapshot snap;
    FormatError e = ReadSnapshot(file, &snap);
    EXPECT_TRUE(e.ok()) << e.message;
    std::string n = std::to_string(snap.observations.size());
    return "resolution 0: REPRODUCED RESOLVED host pid " + Pid() + ", start tick " + Start() +
           " (" + n + " of " + n + " observations)\n";
  }

  TempDir dir_;
  std::unique_ptr<Sandbox> sandbox_;
};

// REPRODUCED, exit 0, the true host pid; the same bytes
// twice, human and JSON; the CLI prints exactly what the library decides.
TEST_P(ReplayLiveTest, RecordedResolutionReproducesByteIdentically) {
  std::string file = RecordResolve();
  ASSERT_FALSE(HasFailure());

  CommandResult first = Proctape({"replay", file});
  ASSERT_TRUE(first.started) << first.error;
  EXPECT_EQ(first.exit_code, 0) << Describe(first);
  EXPECT_EQ(first.out, ReproducedLine(file)) << Describe(first);
  EXPECT_NE(first.out.find("host pid " + Pid() + ","), std::string::npos);
  EXPECT_TRUE(first.err.empty()) << Describe(first);

  CommandResult second = Proctape({"replay", file});
  EXPECT_EQ(second.exit_code, 0) << Describe(second);
  EXPECT_EQ(second.out, first.out);
  EXPECT_EQ(second.err, first.err);

  // In process, from the same file: the same line.
  Snapshot snap;
  ASSERT_TRUE(ReadSnapshot(file, &snap).ok());
  v1::ReplayResult in_process = ReplayResolution(snap, 0, RequestOverrides{});
  EXPECT_EQ(DescribeReplay(in_process), first.out);

  CommandResult json = Proctape({"replay", file, "--json"});
  EXPECT_EQ(json.exit_code, 0) << Describe(json);
  ASSERT_FALSE(json.out.empty());
  EXPECT_EQ(json.out.find('\n'), json.out.size() - 1) << "not one line: " << json.out;
  EXPECT_NE(json.out.find("\"outcome\":\"REPRODUCED\""), std::string::npos) << json.out;
  std::optional<v1::ReplaySummary> parsed = ParseJson(json.out);
  ASSERT_TRUE(parsed.has_value()) << json.out;
  EXPECT_EQ(parsed->outcome(), v1::ReplayResult::REPRODUCED);
  EXPECT_EQ(parsed->replayed().status(), v1::Verdict::RESOLVED);
  EXPECT_EQ(parsed->replayed().pid(), sandbox_->sleep_pid());
  EXPECT_EQ(parsed->replayed().start_ticks(), sandbox_->sleep_start());
  EXPECT_EQ(parsed->consumed(), snap.observations.size());
  EXPECT_EQ(parsed->recorded_count(), snap.observations.size());
  EXPECT_EQ(json.out, ToJson(TapeReplayReport("resolve.ptape", {in_process})) + "\n");

  CommandResult json_again = Proctape({"replay", file, "--json"});
  EXPECT_EQ(json_again.exit_code, 0) << Describe(json_again);
  EXPECT_EQ(json_again.out, json.out);
}

// Nothing live is read (`docs/replay.md`): replayed with the host's /proc
// hidden (a private mount namespace with an empty tmpfs over /proc), the
// output is the same.
TEST_P(ReplayLiveTest, ReplayWithTheHostProcHiddenIsByteIdentical) {
  std::string why = HiddenProcUnavailable();
  if (!why.empty()) GTEST_SKIP() << why;
  std::string file = RecordResolve();
  ASSERT_FALSE(HasFailure());

  for (const std::vector<std::string>& args :
       {std::vector<std::string>{file}, std::vector<std::string>{file, "--json"}}) {
    std::vector<std::string> replay = {"replay"};
    replay.insert(replay.end(), args.begin(), args.end());
    CommandResult normal = Proctape(replay);
    ASSERT_EQ(normal.exit_code, 0) << Describe(normal);
    CommandResult hidden = ReplayWithProcHidden(args);
    ASSERT_TRUE(hidden.started) << hidden.error;
    EXPECT_EQ(hidden.exit_code, 0) << Describe(hidden);
    EXPECT_EQ(hidden.out, normal.out) << Describe(hidden);
    EXPECT_EQ(hidden.err, normal.err) << Describe(hidden);
  }
  // The hiding is real: the same namespace shows nothing under /proc to a
  // command that looks.
  CommandResult look =
      RunArgv({live::FindOnPath("unshare"), "--mount", "--propagation", "private", "/bin/sh", "-c",
               "mount -t tmpfs none /proc && ls -A /proc | wc -l && "
               "cat /proc/self/stat 2>/dev/null; echo end"});
  EXPECT_EQ(look.exit_code, 0) << Describe(look);
  EXPECT_EQ(look.out, "0\nend\n") << Describe(look);
}

// Replay reads nothing live (`docs/replay.md`), so the process it names may be
// long gone: still REPRODUCED, the same bytes.
TEST_P(ReplayLiveTest, ReplayAfterTheSleepHasEndedIsStillReproduced) {
  std::string file = RecordResolve();
  ASSERT_FALSE(HasFailure());
  CommandResult before = Proctape({"replay", file});
  ASSERT_EQ(before.exit_code, 0) << Describe(before);
  CommandResult before_json = Proctape({"replay", file, "--json"});

  pid_t sleep_pid = sandbox_->sleep_pid();
  ASSERT_TRUE(sandbox_->KillSleep());
  std::optional<live::ProcStat> st = live::ReadStat(sleep_pid);
  EXPECT_TRUE(!st.has_value() || st->state == 'Z' || st->state == 'X' ||
              st->start_ticks != sandbox_->sleep_start())
      << "the sleep is still running";

  CommandResult after = Proctape({"replay", file});
  EXPECT_EQ(after.exit_code, 0) << Describe(after);
  EXPECT_EQ(after.out, before.out);
  EXPECT_EQ(after.out, ReproducedLine(file));
  CommandResult after_json = Proctape({"replay", file, "--json"});
  EXPECT_EQ(after_json.exit_code, 0) << Describe(after_json);
  EXPECT_EQ(after_json.out, before_json.out);
  std::optional<v1::ReplaySummary> parsed = ParseJson(after_json.out);
  ASSERT_TRUE(parsed.has_value()) << after_json.out;
  EXPECT_EQ(v1::ReplayResult::Outcome_Name(parsed->outcome()), "REPRODUCED");
}

// Liveness recorded live, while the sleep runs (ALIVE) and after it ended
// (DEAD): each replays REPRODUCED, the DEAD one with the host's /proc hidden
// too.
TEST_P(ReplayLiveTest, RecordedLivenessChecksReproduce) {
  std::string alive = dir_.File("alive.ptape");
  CommandResult a = Proctape({"liveness", "--pid", Pid(), "--start", Start(), "--record", alive},
                             kRecordTimeoutMs);
  ASSERT_EQ(a.exit_code, 0) << Describe(a);
  ASSERT_TRUE(StartsWith(a.out, "ALIVE")) << Describe(a);
  CommandResult ra = Proctape({"replay", alive});
  EXPECT_EQ(ra.exit_code, 0) << Describe(ra);
  EXPECT_EQ(ra.out, "resolution 0 (liveness, boot not checked): REPRODUCED ALIVE: pid " + Pid() +
                        " in state S started at tick " + Start() + " (1 of 1 observation)\n");

  ASSERT_TRUE(sandbox_->KillSleep());
  ASSERT_TRUE(live::WaitGoneOrDead(sandbox_->sleep_pid(), 3000));
  std::string dead = dir_.File("dead.ptape");
  CommandResult d = Proctape({"liveness", "--pid", Pid(), "--start", Start(), "--record", dead},
                             kRecordTimeoutMs);
  ASSERT_EQ(d.exit_code, 3) << Describe(d);
  ASSERT_TRUE(StartsWith(d.out, "DEAD")) << Describe(d);
  CommandResult rd = Proctape({"replay", dead});
  EXPECT_EQ(rd.exit_code, 0) << Describe(rd);
  EXPECT_TRUE(StartsWith(rd.out, "resolution 0 (liveness, boot not checked): REPRODUCED DEAD: "))
      << rd.out;
  EXPECT_TRUE(rd.out.ends_with(" (1 of 1 observation)\n")) << rd.out;
  if (HiddenProcUnavailable().empty()) {
    CommandResult hidden = ReplayWithProcHidden({dead});
    EXPECT_EQ(hidden.exit_code, 0) << Describe(hidden);
    EXPECT_EQ(hidden.out, rd.out) << Describe(hidden);
  }
  // The ALIVE recording still says ALIVE: it is about then, not now.
  CommandResult ra2 = Proctape({"replay", alive});
  EXPECT_EQ(ra2.out, ra.out);
}

// What-if replays of a real recording and their exit statuses (20 changed,
// 21 diverged).
TEST_P(ReplayLiveTest, ChangedRequestsGiveVerdictChangedOrDiverged) {
  std::string file = RecordResolve();
  ASSERT_FALSE(HasFailure());
  std::string recorded = "recorded RESOLVED host pid " + Pid() + ", start tick " + Start() + "; ";

  CommandResult exe = Proctape({"replay", file, "--exe-identity", "1:2"});
  EXPECT_EQ(exe.exit_code, 20) << Describe(exe);
  EXPECT_TRUE(StartsWith(exe.out, "resolution 0 (request changed): VERDICT CHANGED: " + recorded +
                                      "now EXE_MISMATCH: /proc/" + Pid() + "/exe is "))
      << Describe(exe);
  EXPECT_NE(exe.out.find("not the attested 1:2 ("), std::string::npos) << Describe(exe);

  // A root that is not on the host, with a start time: the recorded
  // fingerprint read is passed over, the scan finds no such root.
  CommandResult root = Proctape({"replay", file, "--root", "2147483647", "--root-start", "1"});
  EXPECT_EQ(root.exit_code, 20) << Describe(root);
  EXPECT_TRUE(StartsWith(root.out, "resolution 0 (request changed): VERDICT CHANGED: " + recorded +
                                       "now MISSING_ROOT: root pid 2147483647 is not in the "
                                       "snapshot ("))
      << Describe(root);

  CommandResult start = Proctape({"replay", file, "--root-start", "1"});
  EXPECT_EQ(start.exit_code, 20) << Describe(start);
  EXPECT_TRUE(StartsWith(start.out, "resolution 0 (request changed): VERDICT CHANGED: " + recorded +
                                        "now ROOT_RESTARTED: root pid " + Root() +
                                        " started at tick "))
      << Describe(start);

  // A root alone would need that root's fingerprint: the tape holds the
  // recorded root's only.
  CommandResult root_only = Proctape({"replay", file, "--root", "2147483647"});
  EXPECT_EQ(root_only.exit_code, 21) << Describe(root_only);
  EXPECT_TRUE(StartsWith(root_only.out,
                         "resolution 0 (request changed): DIVERGED at observation 0: recorded "
                         "ReadFile(pid " +
                             Root() +
                             ", stat, bound 4096), made ReadFile(pid "
                             "2147483647, stat, bound 4096)\n"))
      << Describe(root_only);

  // Another token: the recorded sleep does not carry it, the resolver wants
  // to retry where the tape holds the exe check.
  CommandResult token = Proctape({"replay", file, "--token", "not-the-token"});
  EXPECT_EQ(token.exit_code, 21) << Describe(token);
  EXPECT_TRUE(StartsWith(token.out, "resolution 0 (request changed): DIVERGED at observation "))
      << Describe(token);
  EXPECT_NE(token.out.find(": recorded ExeIdentity(pid " + Pid() + "), made SleepUntil("),
            std::string::npos)
      << Describe(token);

  CommandResult json = Proctape({"replay", file, "--json", "--exe-identity", "1:2"});
  EXPECT_EQ(json.exit_code, 20) << Describe(json);
  std::optional<v1::ReplaySummary> parsed = ParseJson(json.out);
  ASSERT_TRUE(parsed.has_value()) << json.out;
  EXPECT_EQ(parsed->outcome(), v1::ReplayResult::VERDICT_CHANGED);
  EXPECT_TRUE(parsed->request_changed());
  EXPECT_EQ(parsed->replayed().status(), v1::Verdict::EXE_MISMATCH);
}

// Replay is clean under valgrind.
// Valgrind's note on the jail's system calls it does not know (seccomp 317,
// landlock_create_ruleset 444: cli/jail.h), each a block of "--PID--" lines:
// under valgrind the jail is what valgrind lets through, not a memory error.
std::string WithoutJailSyscallWarnings(const std::string& err) {
  std::istringstream in(err);
  std::string line, kept;
  int skip = 0;
  while (std::getline(in, line)) {
    const bool note = line.rfind("--", 0) == 0;
    if (note && (line.find("unhandled amd64-linux syscall: 317") != std::string::npos ||
                 line.find("unhandled amd64-linux syscall: 444") != std::string::npos)) {
      skip = 4;  // the warning's four lines of advice
      continue;
    }
    if (note && skip > 0) {
      --skip;
      continue;
    }
    kept += line + "\n";
  }
  return kept;
}

TEST_P(ReplayLiveTest, ReplayIsCleanUnderValgrind) {
  if (live::TestedBinarySanitized())
    GTEST_SKIP() << "valgrind cannot run an AddressSanitizer build";
  std::string valgrind = live::FindOnPath("valgrind");
  if (valgrind.empty()) GTEST_SKIP() << "valgrind is not installed";
  std::string file = RecordResolve();
  ASSERT_FALSE(HasFailure());
  CommandResult normal = Proctape({"replay", file});
  ASSERT_EQ(normal.exit_code, 0) << Describe(normal);
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{}, std::vector<std::string>{"--json"}}) {
    std::vector<std::string> argv = {
        valgrind, "--quiet", "--error-exitcode=99", "--leak-check=full",
        // protobuf's global descriptor pool, built
        // for --json and never freed, shows as
        // "possibly lost"; our code must lose nothing.
        "--show-leak-kinds=definite,indirect", "--errors-for-leak-kinds=definite,indirect",
        ::proctape::live::TestedBinary(), "replay", file};
    argv.insert(argv.end(), extra.begin(), extra.end());
    CommandResult r = RunArgv(argv, kValgrindTimeoutMs);
    ASSERT_TRUE(r.started) << r.error;
    EXPECT_EQ(r.exit_code, 0) << Describe(r);
    EXPECT_TRUE(WithoutJailSyscallWarnings(r.err).empty()) << Describe(r);
    if (extra.empty()) {
      EXPECT_EQ(r.out, normal.out);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(ReplayLive, ReplayLiveTest,
                         ::testing::Values(SandboxKind::kUnshare, SandboxKind::kBwrap),
                         [](const ::testing::TestParamInfo<SandboxKind>& p) {
                           return std::string(live::SandboxName(p.param));
                         });

}  // namespace
}  // namespace proctape
