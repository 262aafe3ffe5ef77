// SPDX-License-Identifier: Apache-2.0
// core/evidence.h: "the clock (NowNs, SleepUntil) leaves them valid: the
// resolver checks its deadline between a read and the parse of its bytes".
// Every Evidence the resolver runs on keeps a read's view through a clock
// call; a wrapper passes its inner evidence's views through.
#include <gtest/gtest.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "capture/procfs_evidence.h"
#include "capture/recorder.h"
#include "core/evidence.h"
#include "core/memory_evidence.h"
#include "replay/frame_evidence.h"
#include "replay/tape_evidence.h"

namespace proctape {
namespace {

constexpr std::int64_t kPid = 4242;

// Reads kPid's stat, then the clock twice; the view must still show the
// bytes read.
void ExpectReadSurvivesTheClock(Evidence& ev, const std::string& name) {
  SCOPED_TRACE(name);
  ReadResult read = ev.ReadFile(kPid, ProcFile::kStat, 4096);
  ASSERT_TRUE(read.ok()) << read.err;
  const std::string copy(read.data);
  const std::int64_t now = ev.NowNs();
  ev.SleepUntil(now + 1'000'000);
  (void)ev.NowNs();
  EXPECT_EQ(std::string(read.data), copy);
}

// A host whose sleep hook rewrites the stat that was read: the view shows
// what was read, not the table's new bytes.
void FillHost(MemoryEvidence* host) {
  host->AddProcess(kPid, 1, 777, "worker", {"worker", "--id", "1"}, {"CI=true"}, Identity{0, 1, 2});
  host->on_sleep = [](MemoryEvidence& ev) {
    ev.SetFile(kPid, ProcFile::kStat, MemoryEvidence::StatLine(kPid, "other", 'Z', 1, 778));
  };
}

TEST(EvidenceClockViews, InMemoryHost) {
  MemoryEvidence host;
  FillHost(&host);
  ExpectReadSurvivesTheClock(host, "MemoryEvidence");
}

TEST(EvidenceClockViews, LiveProcfs) {
  Failure failure;
  std::unique_ptr<ProcfsEvidence> proc = ProcfsEvidence::Open("/proc", &failure);
  ASSERT_NE(proc, nullptr) << failure.message;
  SCOPED_TRACE("ProcfsEvidence");
  ReadResult read = proc->ReadFile(::getpid(), ProcFile::kStat, 4096);
  ASSERT_TRUE(read.ok()) << read.err;
  const std::string copy(read.data);
  const std::int64_t now = proc->NowNs();
  proc->SleepUntil(now + 100'000);
  (void)proc->NowNs();
  EXPECT_EQ(std::string(read.data), copy);
}

TEST(EvidenceClockViews, RecordingThenTheTapeOfIt) {
  MemoryEvidence host;
  FillHost(&host);
  std::vector<v1::Observation> tape;
  RecordingEvidence recording(host, [&tape](v1::Observation&& o) { tape.push_back(std::move(o)); });
  ExpectReadSurvivesTheClock(recording, "RecordingEvidence");
  ASSERT_EQ(tape.size(), 4u);
  TapeEvidence replay(tape, 0, tape.size());
  ExpectReadSurvivesTheClock(replay, "TapeEvidence");
}

TEST(EvidenceClockViews, FrameModel) {
  v1::Frame frame;
  frame.set_index(0);
  frame.set_complete(true);
  v1::ProcessRecord* r = frame.add_processes();
  r->set_pid(kPid);
  r->mutable_stat()->set_data(MemoryEvidence::StatLine(kPid, "worker", 'S', 1, 777));
  std::vector<v1::Frame> frames{frame};
  FrameEvidence model(frames, 0);
  ExpectReadSurvivesTheClock(model, "FrameEvidence");
}

}  // namespace
}  // namespace proctape
