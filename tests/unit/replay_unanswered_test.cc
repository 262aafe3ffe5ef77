// SPDX-License-Identifier: Apache-2.0
// What a replay cannot answer (docs/replay.md, "What a replay cannot
// answer"): a what-if whose token entry the recording did not keep verbatim,
// where a redacted value of its name could be it, is DIVERGED at that environ
// read with the reason, never a verdict computed from the stars; a request
// is "changed" only when it differs from the recorded one; and the one
// replay of a file (replay/replay_file.h) returns no recording's token.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "replay/replay.h"
#include "replay/replay_file.h"
#include "replay/unanswered.h"
#include "tests/unit/fake_host.h"
#include "tests/unit/replay_fixture.h"
#include "tests/unit/replay_tape_fixture.h"

namespace proctape {
namespace {

using namespace test;  // the typical host: FakeHost, its pids, start times, tokens

// The sandbox's sleep carries kOldToken; the recording asked for kToken. Its
// environ is stored redacted (PROCTAPE_TOKEN=************): only the entry
// PROCTAPE_TOKEN=kToken would have been kept.
Snapshot RecordWrongToken(const ReplayTempDir& dir) {
  return RecordTypical(dir, "wrong.ptape", [](FakeHost& h) {
    h.AddSleep(kSleep, kSandboxShell, kSleepStart, kOldToken);
  });
}

TEST(ReplayUnanswered, TheRightTokenOnARedactedEntryDivergesInsteadOfComparingStars) {
  ReplayTempDir dir;
  Snapshot s = RecordWrongToken(dir);
  ASSERT_EQ(s.resolutions[0].verdict().status(), v1::Verdict::TOKEN_MISMATCH);
  ASSERT_EQ(ReplayResolution(s, 0, {}).outcome(), v1::ReplayResult::REPRODUCED);

  RequestOverrides right;
  right.token = kOldToken;  // what the sleep really carried
  v1::ReplayResult r = ReplayResolution(s, 0, right);
  ASSERT_EQ(r.outcome(), v1::ReplayResult::DIVERGED) << Why(r);
  EXPECT_EQ(r.unanswered(), v1::UNANSWERED_REDACTED);
  EXPECT_FALSE(r.has_replayed()) << r.replayed().DebugString();
  const std::size_t environ = Find(s, IsRead(kSleep, v1::PROC_FILE_ENVIRON));
  EXPECT_EQ(r.divergence_index(), environ);
  EXPECT_EQ(r.consumed(), environ);
  EXPECT_EQ(r.recorded_call(), "ReadFile(pid 4103, environ, bound 65536) with its values redacted");
  const std::string text = DescribeReplay(r);
  EXPECT_EQ(text.rfind("resolution 0 (request changed): DIVERGED at observation " +
                           std::to_string(environ) + ": recorded ReadFile(pid 4103, environ",
                       0),
            0u)
      << text;
  EXPECT_NE(text.find("no replayed verdict"), std::string::npos) << text;
  EXPECT_NE(text.find("  " + UnansweredWhy(v1::UNANSWERED_REDACTED) + "\n"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("REPRODUCED"), std::string::npos) << text;
  // Another variable's entries are all redacted too.
  RequestOverrides var;
  var.token_var = "HOME";
  var.token = "/root";
  EXPECT_EQ(ReplayResolution(s, 0, var).unanswered(), v1::UNANSWERED_REDACTED);
}

// Stars decide nothing only where they could hide the token: a token entry
// kept verbatim answers (any entry holding it would have been kept), and so
// does an environ whose entries of that name are all kept ones.
TEST(ReplayUnanswered, RedactedBytesAnswerWhereTheRedactionKeptWhatIsAsked) {
  v1::RedactionPolicy policy;
  policy.set_environ(v1::RedactionPolicy::ENVIRON_REDACTED);
  policy.add_kept_entries("PROCTAPE_TOKEN=" + kToken);
  Request asked = FakeHost::TypicalRequest();
  const std::string stored = std::string("HOME=*****\0PROCTAPE_TOKEN=************\0", 37);
  EXPECT_TRUE(TokenQuestion(asked, policy).Answers(stored, true));
  asked.token = kOldToken;
  const TokenQuestion other(asked, policy);
  EXPECT_FALSE(other.Answers(stored, true));
  EXPECT_TRUE(other.Answers(stored, false)) << "bytes stored as read answer everything";
  EXPECT_TRUE(other.Answers(std::string("HOME=*****\0", 11), true)) << "no entry of its name";
  EXPECT_TRUE(other.Answers("PROCTAPE_TOKEN=" + kToken, true)) << "its one entry is a kept one";
}

TEST(ReplayUnanswered, ARequestIsChangedOnlyWhenItDiffersFromTheRecordedOne) {
  ReplayTempDir dir;
  Snapshot s = RecordTypical(dir, "typical.ptape");
  RequestOverrides same;
  same.root_pid = kAppServer;
  same.root_start_ticks = kAppServerStart;
  same.token = kToken;
  same.token_var = "PROCTAPE_TOKEN";
  same.argv = std::vector<std::string>{"/bin/sleep", "120"};
  same.exe = kSleepExe;
  v1::ReplayResult r = ReplayResolution(s, 0, same);
  EXPECT_EQ(r.outcome(), v1::ReplayResult::REPRODUCED) << Why(r);
  EXPECT_FALSE(r.request_changed());
  EXPECT_EQ(Why(r).find("(request changed)"), std::string::npos) << Why(r);
  EXPECT_FALSE(RequestChanged(s.resolutions[0].resolve(), same));

  RequestOverrides other = same;
  other.argv = std::vector<std::string>{"/bin/sleep", "121"};
  EXPECT_TRUE(RequestChanged(s.resolutions[0].resolve(), other));
  EXPECT_TRUE(ReplayResolution(s, 0, other).request_changed());
}

// The one replay of a file masks inside: the recorded and replayed verdicts
// of a TOKEN_MISMATCH quoting the kept token entry, and their lines, hold
// the token as stars only.
TEST(ReplayUnanswered, TheReplayOfAFileHoldsNoToken) {
  ReplayTempDir dir;
  RecordOptions with_frames;
  with_frames.frames = true;
  Snapshot s = RecordTypical(
      dir, "two.ptape",
      [](FakeHost& h) {
        std::vector<std::string> env = SleepEnviron(kToken);
        env.push_back("PROCTAPE_TOKEN=" + kOldToken);
        h.AddProcess(kSleep, kSandboxShell, kSleepStart, "sleep", {"/bin/sleep", "120"}, env,
                     kSleepExe);
      },
      with_frames);
  ASSERT_NE(ReplayResolution(s, 0, {}).recorded().evidence().find(kToken), std::string::npos);
  const std::vector<v1::ReplayResult> tape = ReplayTape(s);
  ASSERT_EQ(tape.size(), 1u);
  EXPECT_EQ(tape[0].outcome(), v1::ReplayResult::REPRODUCED) << Why(tape[0]);
  EXPECT_EQ(tape[0].DebugString().find(kToken), std::string::npos) << tape[0].DebugString();
  EXPECT_NE(tape[0].recorded().evidence().find(std::string(kToken.size(), '*')), std::string::npos);
  const std::vector<FrameReplay> frames = ReplayFrames(s, {});
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].run.verdict.status, Status::kTokenMismatch) << frames[0].text;
  for (const FrameReplay& run : frames) {
    EXPECT_EQ(run.text.find(kToken), std::string::npos) << run.text;
    EXPECT_EQ(run.summary.DebugString().find(kToken), std::string::npos);
    EXPECT_EQ(run.run.verdict.evidence.find(kToken), std::string::npos);
  }
}

}  // namespace
}  // namespace proctape
