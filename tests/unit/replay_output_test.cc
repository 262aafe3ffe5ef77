// SPDX-License-Identifier: Apache-2.0
// Replay (`docs/replay.md`) output: the line and --json of a replay, the worst
// of several outcomes, and the committed corpus of real recordings replaying to
// their committed output. Replaying the same file twice gives byte-identical
// output (human and --json): tests/data/replay/README.md.
#include "replay/replay.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <filesystem>
#include <string>

#include "format/reader.h"
#include "proto/summary.h"
#include "tests/unit/replay_fixture.h"
#include "tests/unit/replay_tape_fixture.h"
#include "tests/unit/source_dir.h"

namespace proctape {
namespace {

using namespace test;  // ReplayTempDir, RecordTypical, FileBytes, Why

// ---------------------------------------------------------------------------
// Output

// Several resolutions: the worst outcome decides.
TEST(ReplayOutput, WorstOutcomeOrdersDivergedOverChangedOverReproduced) {
  v1::ReplayResult ok;
  ok.set_outcome(v1::ReplayResult::REPRODUCED);
  v1::ReplayResult changed;
  changed.set_outcome(v1::ReplayResult::VERDICT_CHANGED);
  v1::ReplayResult diverged;
  diverged.set_outcome(v1::ReplayResult::DIVERGED);
  EXPECT_EQ(WorstOutcome({}), v1::ReplayResult::REPRODUCED);
  EXPECT_EQ(WorstOutcome({ok, ok}), v1::ReplayResult::REPRODUCED);
  EXPECT_EQ(WorstOutcome({ok, changed, ok}), v1::ReplayResult::VERDICT_CHANGED);
  EXPECT_EQ(WorstOutcome({changed, diverged, ok}), v1::ReplayResult::DIVERGED);
  EXPECT_EQ(WorstOutcome({diverged, changed}), v1::ReplayResult::DIVERGED);
}

TEST(ReplayOutput, ReproducedLineAndJsonOfTheTypicalResolution) {
  ReplayTempDir dir;
  Snapshot s = RecordTypical(dir, "t.ptape");
  v1::ReplayResult r = ReplayResolution(s, 0, RequestOverrides{});
  std::string n = std::to_string(s.observations.size());
  EXPECT_EQ(DescribeReplay(r),
            "resolution 0: REPRODUCED RESOLVED host pid 4103, start tick 510003 (" + n + " of " +
                n + " observations)\n");
  // As --json prints it: counts and pids are numbers.
  std::string json = ToJson(ToSummary(r));
  EXPECT_EQ(json.find('\n'), std::string::npos);
  EXPECT_NE(json.find("\"outcome\":\"REPRODUCED\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"consumed\":" + n + ","), std::string::npos) << json;
  EXPECT_NE(json.find("\"pid\":4103,"), std::string::npos) << json;
}

// ---------------------------------------------------------------------------
// The committed corpus (tests/data/replay/README.md): real recordings of a real
// sandboxed sleep made on a Linux kernel by tests/data/replay/make_corpus.sh,
// with the output their replay gave there. Here, on whatever machine runs the
// tests, the same
// bytes.

std::filesystem::path CorpusDir() { return test::SourceDir() / "tests" / "data" / "replay"; }

const char* const kCorpus[] = {"resolved", "no-match-5s", "alive", "dead"};

TEST(ReplayCorpus, CommittedRecordingsReplayToTheirCommittedOutput) {
  for (const char* name : kCorpus) {
    std::string base = (CorpusDir() / name).string();
    Snapshot snap;
    FormatError e = ReadSnapshot(base + ".ptape", &snap);
    ASSERT_TRUE(e.ok()) << base << ".ptape: " << e.message;
    EXPECT_FALSE(snap.header.host().kernel_release().empty()) << name;
    ASSERT_EQ(snap.resolutions.size(), 1u) << name;
    EXPECT_EQ(snap.frames.size(), 2u) << name;
    v1::ReplayResult r = ReplayResolution(snap, 0, RequestOverrides{});
    EXPECT_EQ(r.outcome(), v1::ReplayResult::REPRODUCED) << name << ": " << Why(r);
    EXPECT_EQ(r.consumed(), snap.observations.size()) << name;
    EXPECT_EQ(DescribeReplay(r), FileBytes(base + ".replay.txt")) << name;
    EXPECT_EQ(ToJson(TapeReplayReport(std::string(name) + ".ptape", {r})) + "\n",
              FileBytes(base + ".replay.json"))
        << name;
  }
}

// The real 5 s retry loop, recorded live: about 800 calls over 5 s of the
// recording host's clock, replayed to the end from the tape alone. (How fast
// is measured in bench/, BENCHMARKS.md, not asserted here.)
TEST(ReplayCorpus, RecordedLiveRetryLoopReplaysEveryObservation) {
  Snapshot snap;
  ASSERT_TRUE(ReadSnapshot((CorpusDir() / "no-match-5s.ptape").string(), &snap).ok());
  ASSERT_EQ(snap.resolutions.size(), 1u);
  const v1::Resolution& res = snap.resolutions[0];
  // Attempts every 100 ms while the next one starts by the 5 s deadline: the
  // last one starts within 100 ms of it.
  EXPECT_GE(res.end_mono_ns() - res.start_mono_ns(), 4'900'000'000);
  EXPECT_EQ(res.verdict().status(), v1::Verdict::NO_MATCH);
  EXPECT_GE(res.verdict().attempts(), 40u);
  v1::ReplayResult r = ReplayResolution(snap, 0, RequestOverrides{});
  EXPECT_EQ(r.outcome(), v1::ReplayResult::REPRODUCED) << Why(r);
  EXPECT_EQ(r.consumed(), snap.observations.size());
}

// DIVERGED on a real tape (`docs/replay.md`, "Two models"): removing any one
// observation of the recorded resolution diverges at exactly that index.
TEST(ReplayCorpus, RemovingAnyObservationOfTheRealTapeDivergesThere) {
  Snapshot original;
  ASSERT_TRUE(ReadSnapshot((CorpusDir() / "resolved.ptape").string(), &original).ok());
  const std::size_t n = original.observations.size();
  ASSERT_GT(n, 10u);
  for (std::size_t k = 0; k < n; ++k) {
    Snapshot s = original;
    RemoveObservation(&s, k);
    v1::ReplayResult r = ReplayResolution(s, 0, RequestOverrides{});
    EXPECT_EQ(r.outcome(), v1::ReplayResult::DIVERGED) << k << ": " << Why(r);
    EXPECT_EQ(r.divergence_index(), k) << Why(r);
    EXPECT_EQ(r.made_call(), DescribeCall(original.observations[k]));
  }
}

}  // namespace
}  // namespace proctape
