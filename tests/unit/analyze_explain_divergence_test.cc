// SPDX-License-Identifier: Apache-2.0
// `proctape explain` says what `proctape replay` says (docs/explain.md,
// "Where the explanation comes from"): its replay line, verdict and liveness
// verdict are those of the one replay of the check (replay/replay_file.h),
// and past a divergence it tells the call the tape does not hold, never what
// the resolver concluded from the failures and the far clock a diverged tape
// feeds it ("errno 5", "the deadline passed 4611686017.427 s ago"). Over
// files of the hostile generator (tests/hostile/README.md) and recordings
// of the in-memory host.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "analyze/explain.h"
#include "format/reader.h"
#include "replay/replay.h"
#include "replay/replay_file.h"
#include "tests/hostile/recording.h"
#include "tests/hostile/shapes.h"
#include "tests/unit/analyze_explain_fixture.h"
#include "tests/unit/replay_fixture.h"
#include "tests/unit/replay_tape_fixture.h"

namespace proctape {
namespace {

using namespace test;  // the typical host: FakeHost, its pids, start times, tokens

// The hostile shape `name` with `params` over its defaults, written and read
// back (false when it does not read: a shape of the encoding refused whole).
bool Generated(const hostile::Shape& shape, const std::string& params, Snapshot* out) {
  hostile::Params p;
  std::string error;
  EXPECT_TRUE(p.Parse(shape.defaults, params, &error)) << shape.name << ": " << error;
  hostile::Built built;
  shape.build(p, &built);
  ReplayTempDir dir;
  EXPECT_TRUE(dir.ok());
  const std::string path = dir.File(shape.name + ".ptape");
  EXPECT_TRUE(built.file.WriteTo(path, &error)) << error;
  return ReadSnapshot(path, out).ok();
}

Snapshot Generated(const std::string& name, const std::string& params) {
  const hostile::Shape* shape = hostile::FindShape(name);
  EXPECT_NE(shape, nullptr) << name;
  Snapshot s;
  if (shape != nullptr) {
    EXPECT_TRUE(Generated(*shape, params, &s)) << name;
  }
  return s;
}

// Explain's check `index` of `s` against the replay of the same check, as
// `proctape replay` reports it: the same outcome, observations and verdict.
void ExpectTheReplays(const Snapshot& s, std::size_t index, const v1::ExplainCheck& c,
                      const v1::ReplayResult& r) {
  const std::string what = "check " + std::to_string(index) + "\n" + Text(c);
  EXPECT_EQ(c.replay(), r.outcome()) << what;
  EXPECT_EQ(c.observations(), r.consumed()) << what;
  EXPECT_EQ(c.recorded_observations(), r.recorded_count()) << what;
  if (s.resolutions[index].has_liveness()) {
    ASSERT_EQ(c.has_liveness_verdict(), r.has_replayed_liveness()) << what;
    if (r.has_replayed_liveness()) {
      EXPECT_EQ(c.liveness_verdict().status(), r.replayed_liveness().status()) << what;
    }
    return;
  }
  ASSERT_EQ(c.has_verdict(), r.has_replayed()) << what;
  if (r.has_replayed()) {
    EXPECT_EQ(c.verdict().status(), r.replayed().status()) << what;
    EXPECT_EQ(c.verdict().detail(), r.replayed().detail()) << what;
  }
}

// Past a divergence: the call the tape does not hold is told where the
// replay stopped, and nothing the resolver concluded past it.
void ExpectTheUnheldCall(const v1::ExplainCheck& c, const v1::ReplayResult& r) {
  const std::string text = Text(c);
  ASSERT_EQ(r.outcome(), v1::ReplayResult::DIVERGED) << text;
  ASSERT_FALSE(r.has_replayed()) << text;
  EXPECT_FALSE(c.has_verdict()) << text;
  EXPECT_NE(c.ended_by().find(r.made_call()), std::string::npos) << text;
  if (c.attempts_size() > 0) {
    const v1::ExplainAttempt& last = c.attempts(c.attempts_size() - 1);
    EXPECT_NE(last.summary().find(r.made_call()), std::string::npos) << text;
  }
  for (const char* invented :
       {"errno 5", "deadline passed", "UNREADABLE", "DEADLINE", "46116860"}) {
    EXPECT_EQ(text.find(invented), std::string::npos) << invented << " in\n" << text;
  }
}

// The one check of `s` explained, and replayed into *r: the explanation
// says what the replay says, and it diverged at a call the tape does not hold.
v1::ExplainCheck ExplainedDiverged(const Snapshot& s, v1::ReplayResult* r) {
  EXPECT_EQ(s.resolutions.size(), 1u);
  const v1::ExplainCheck c = ExplainRecordedCheck(s, 0);
  *r = ReplayTape(s)[0];
  ExpectTheReplays(s, 0, c, *r);
  ExpectTheUnheldCall(c, *r);
  return c;
}

// A real retrying recording whose clocks sit just under INT64_MAX: the
// replayed deadline saturates, the resolver sleeps where the recording
// ended, and the tape holds no such sleep. The listing it went on to make
// was never on the tape: explain said "UNREADABLE: listing /proc failed
// (errno 5)" of it.
TEST(ExplainDivergence, ClocksNearTheLimitTellTheSleepTheTapeDoesNotHold) {
  v1::ReplayResult r;
  const v1::ExplainCheck c = ExplainedDiverged(Generated("clocks-near-limit", "n=3"), &r);
  EXPECT_EQ(r.made_call().rfind("SleepUntil(", 0), 0u) << r.made_call();
  // The attempts the tape answered are told as recorded: retried.
  ASSERT_GE(c.attempts_size(), 2);
  EXPECT_EQ(c.attempts(0).outcome(), v1::ExplainAttempt::RETRY) << Text(c);
}

// A deep chain whose every clock reads 1,000 ns, its tape cut short by its
// last call: past the tape's end the replay's clock reads far past the 1 s
// deadline. Explain said "DEADLINE: the deadline passed 4611686017.427 s
// ago" of a resolution whose clock never moved.
TEST(ExplainDivergence, AChainCutShortTellsTheCallPastTheTapeNotADeadline) {
  v1::ReplayResult r;
  const v1::ExplainCheck c =
      ExplainedDiverged(Generated("chain-recording", "n=2000 deadline_ms=1000 cut=1"), &r);
  ASSERT_EQ(c.attempts_size(), 1);
  // The match whose confirmation the tape stopped in: told stopped there.
  const v1::ExplainCandidate* sleep = FindCandidate(c.attempts(0), hostile::HostPid(2000));
  ASSERT_NE(sleep, nullptr) << Text(c);
  EXPECT_NE(sleep->detail().find("the replay stopped after reading its re-read"), std::string::npos)
      << sleep->detail();
}

// A call removed from the tape: the resolver asks for the sleep's environ
// where the tape holds a clock reading. The sleep is told stopped at its
// cmdline (its environ was asked: the argv matched), not "not the expected
// argv", and not the deadline the far clock then made.
TEST(ExplainDivergence, ACallRemovedTellsTheReadAskedNotTheDeadlineAfterIt) {
  ReplayTempDir dir;
  Snapshot s = RecordTypical(dir, "typical.ptape");
  const std::size_t environ = Find(s, IsRead(kSleep, v1::PROC_FILE_ENVIRON));
  RemoveObservation(&s, environ);
  v1::ReplayResult r;
  const v1::ExplainCheck c = ExplainedDiverged(s, &r);
  ASSERT_EQ(c.attempts_size(), 1);
  const v1::ExplainCandidate* sleep = FindCandidate(c.attempts(0), kSleep);
  ASSERT_NE(sleep, nullptr);
  EXPECT_EQ(sleep->detail(),
            "the replay stopped after reading its cmdline: the tape does not "
            "hold what the resolver asked next");
}

// A file whose redaction keeps no token entry: its environ reads cannot
// answer the recorded request (replay/unanswered.h), and replay says so.
// Explain replayed without that question and told a verdict from stars.
TEST(ExplainDivergence, AnEnvironTheRedactionCannotAnswerIsTheReplaysDivergence) {
  ReplayTempDir dir;
  Snapshot s = RecordTypical(dir, "typical.ptape");
  s.header.mutable_redaction()->clear_kept_entries();
  v1::ReplayResult r;
  const v1::ExplainCheck c = ExplainedDiverged(s, &r);
  EXPECT_EQ(r.unanswered(), v1::UNANSWERED_REDACTED) << DescribeReplay(r);
  EXPECT_NE(c.ended_by().find("not its whole answer"), std::string::npos) << Text(c);
}

// Every check of every hostile shape at its small size: explain's replay
// line and verdict are the replay's, and where the tape did not hold a
// call, what ended the resolution is that call.
TEST(ExplainDivergence, EveryHostileShapeExplainsAsItReplays) {
  std::size_t checks = 0;
  std::size_t unheld = 0;
  for (const hostile::Shape& shape : hostile::AllShapes()) {
    Snapshot s;
    if (!Generated(shape, shape.small, &s)) continue;
    const std::vector<v1::ReplayResult> replays = ReplayTape(s);
    for (std::size_t i = 0; i < s.resolutions.size() && i < 8; ++i) {
      SCOPED_TRACE(shape.name);
      const v1::ExplainCheck c = ExplainRecordedCheck(s, i);
      ExpectTheReplays(s, i, c, replays[i]);
      ++checks;
      if (c.kind() == v1::ExplainCheck::RESOLVE && !replays[i].has_replayed()) {
        EXPECT_NE(c.ended_by().find(replays[i].made_call()), std::string::npos) << Text(c);
        if (c.attempts_size() == 0) {  // extreme-values: its first listing's bound differs
          EXPECT_EQ(c.ended_by().rfind("no attempt was answered: ", 0), 0u) << Text(c);
        }
        ++unheld;
      }
    }
  }
  EXPECT_GT(checks, 10u);
  EXPECT_GT(unheld, 0u) << "clocks-near-limit diverges";
}

// The request's bounds are said as recorded, sign and saturation included:
// a negative retry interval (a request the resolver refuses) is not told as
// a positive one, and a deadline at the end of the range is its largest.
TEST(ExplainDivergence, TheBoundsAreSaidAsRecorded) {
  ReplayTempDir dir;
  Snapshot s = RecordTypical(dir, "typical.ptape");
  v1::Bounds* bounds = s.resolutions[0].mutable_resolve()->mutable_bounds();
  bounds->set_retry_interval_ns(-100'000'000);
  bounds->set_deadline_ns(INT64_MAX);
  const std::string text = Text(ExplainRecordedCheck(s, 0));
  EXPECT_NE(text.find("  bounds: a new attempt every -100.0 ms until +9223372036854.8 ms\n"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace proctape
