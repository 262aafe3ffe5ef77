// SPDX-License-Identifier: Apache-2.0
// The frame model of replay (`docs/replay.md`, "Two models"), FrameEvidence
// on frames built by hand: the latest frame whose scan started at or before
// the virtual time; the clock advances by the recorded scan durations; reads
// of pids absent from the frame answer ENOENT, like a live /proc
// (`docs/replay.md`, "What a replay cannot answer"). The exact
// read, listing, clock and path rules; the resolver re-run on captured
// frames: frame_model_test.cc.
#include "replay/frame_evidence.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <string>
#include <vector>

#include "capture/frame_scanner.h"
#include "fake_host.h"
#include "replay/tape_evidence.h"

namespace proctape {
namespace {

// A frame built by hand, for the exact read and listing rules.
v1::Frame HandFrame(std::uint64_t index, std::int64_t start, std::int64_t end,
                    const std::vector<std::int64_t>& pids) {
  v1::Frame f;
  f.set_index(index);
  f.set_scan_start_mono_ns(start);
  f.set_scan_end_mono_ns(end);
  f.set_complete(true);
  for (std::int64_t pid : pids) {
    v1::ProcessRecord* r = f.add_processes();
    r->set_pid(pid);
    r->mutable_stat()->set_data(MemoryEvidence::StatLine(pid, "p", 'S', 1, 100));
    r->mutable_stat()->set_bound(4096);
    r->mutable_exe()->set_dev(0x803);
    r->mutable_exe()->set_ino(static_cast<std::uint64_t>(pid));
  }
  return f;
}

// docs/replay.md, "What a replay cannot answer": a file the record does not
// hold was never read, which is not a process that is gone (ENOENT, a pid
// absent from the frame). The call is kept, and from then on every call fails
// and the clock is past any deadline, as on a diverged tape.
TEST(FrameEvidence, AFileTheRecordDoesNotHoldIsUnanswered) {
  std::vector<v1::Frame> frames = {HandFrame(0, 100, 200, {42})};
  FrameEvidence ev(frames, 100);
  EXPECT_TRUE(ev.ReadFile(42, ProcFile::kStat, 4096).ok());
  EXPECT_EQ(ev.ReadFile(43, ProcFile::kStat, 4096).err, ENOENT);  // gone
  EXPECT_EQ(ev.unanswered(), v1::UNANSWERED_NONE);
  EXPECT_EQ(ev.ReadFile(42, ProcFile::kCmdline, 4096).err, EIO);
  EXPECT_EQ(ev.unanswered(), v1::UNANSWERED_NOT_RECORDED);
  EXPECT_EQ(ev.unanswered_call(), "ReadFile(pid 42, cmdline, bound 4096)");
  EXPECT_EQ(ev.ReadFile(42, ProcFile::kStat, 4096).err, EIO);
  EXPECT_EQ(ev.ListPids(10).err, EIO);
  EXPECT_EQ(ev.NowNs(), kClockAfterDivergence);
  EXPECT_EQ(ev.unanswered_call(), "ReadFile(pid 42, cmdline, bound 4096)") << "the first kept";

  frames[0].mutable_processes(0)->clear_exe();
  FrameEvidence no_exe(frames, 100);
  EXPECT_EQ(no_exe.ExeIdentity(42).err, EIO);
  EXPECT_EQ(no_exe.unanswered(), v1::UNANSWERED_NOT_RECORDED);
  EXPECT_EQ(no_exe.unanswered_call(), "ExeIdentity(pid 42)");
}

TEST(FrameEvidence, ReadsAreCutToTheAskedBoundAndARecordedCutIsNotReadPast) {
  std::vector<v1::Frame> frames = {HandFrame(0, 100, 200, {42, 43, 44})};
  v1::FileRead* cmd = frames[0].mutable_processes(0)->mutable_cmdline();
  cmd->set_data(
      std::string("/bin/sleep\0"
                  "120\0",
                  15));
  cmd->set_bound(65536);
  v1::FileRead* env = frames[0].mutable_processes(1)->mutable_environ();
  env->set_data("A=1");
  env->set_bound(3);
  env->set_truncated(true);
  frames[0].mutable_processes(2)->mutable_environ()->set_err(EACCES);
  FrameEvidence ev(frames, 100);

  ReadResult whole = ev.ReadFile(42, ProcFile::kCmdline, 65536);
  EXPECT_EQ(whole.data.size(), 15u);
  EXPECT_FALSE(whole.truncated);
  ReadResult exact = ev.ReadFile(42, ProcFile::kCmdline, 15);
  EXPECT_EQ(exact.data.size(), 15u);
  EXPECT_FALSE(exact.truncated);
  ReadResult cut = ev.ReadFile(42, ProcFile::kCmdline, 4);
  EXPECT_EQ(cut.data, "/bin");
  EXPECT_TRUE(cut.truncated);

  // Recorded with bound 3 and cut: asked with that bound or a smaller one,
  // cut; asked with a larger one, the bytes past 3 were never seen, and the
  // read is not answered (docs/replay.md, "What a replay cannot answer").
  ReadResult same = ev.ReadFile(43, ProcFile::kEnviron, 3);
  EXPECT_EQ(same.data, "A=1");
  EXPECT_TRUE(same.truncated);
  ReadResult smaller = ev.ReadFile(43, ProcFile::kEnviron, 2);
  EXPECT_EQ(smaller.data, "A=");
  EXPECT_TRUE(smaller.truncated);

  ReadResult denied = ev.ReadFile(44, ProcFile::kEnviron, 65536);
  EXPECT_EQ(denied.err, EACCES);
  EXPECT_TRUE(denied.data.empty());

  EXPECT_EQ(ev.unanswered(), v1::UNANSWERED_NONE);
  EXPECT_EQ(ev.ReadFile(43, ProcFile::kEnviron, 65536).err, EIO);
  EXPECT_EQ(ev.unanswered(), v1::UNANSWERED_PAST_BOUND);
  EXPECT_EQ(ev.unanswered_call(), "ReadFile(pid 43, environ, bound 65536)");
}

TEST(FrameEvidence, ListsTheFramesPidsInOrderWithinTheBound) {
  std::vector<v1::Frame> frames = {HandFrame(0, 100, 200, {5, 3, 9})};
  FrameEvidence ev(frames, 100);
  ListResult all = ev.ListPids(10);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all.names, (std::vector<std::string_view>{"5", "3", "9"}));
  EXPECT_FALSE(all.truncated);
  ListResult exact = ev.ListPids(3);
  EXPECT_FALSE(exact.truncated);
  ListResult two = ev.ListPids(2);
  EXPECT_EQ(two.names, (std::vector<std::string_view>{"5", "3"}));
  EXPECT_TRUE(two.truncated);
  EXPECT_EQ(ev.lists(), 3u);

  // A frame cut by a bound does not hold the whole host: never a whole listing.
  frames[0].set_cut_by_bounds(true);
  frames[0].set_cut_reason(kCutMaxProcesses);
  FrameEvidence cut(frames, 100);
  ListResult partial = cut.ListPids(65536);
  EXPECT_EQ(partial.names.size(), 3u);
  EXPECT_TRUE(partial.truncated);

  std::vector<v1::Frame> none;
  FrameEvidence empty(none, 0);
  EXPECT_EQ(empty.ListPids(10).err, ENOENT);
  EXPECT_EQ(empty.ReadFile(5, ProcFile::kStat, 10).err, ENOENT);
}

TEST(FrameEvidence, TheClockAdvancesByScanDurationsAndSleepsOnly) {
  // File order differs from scan order: the rule follows scan starts.
  std::vector<v1::Frame> frames = {HandFrame(0, 1000, 1050, {10}), HandFrame(1, 3000, 3030, {11}),
                                   HandFrame(2, 2000, 2030, {12})};
  FrameEvidence ev(frames, 1000);
  EXPECT_EQ(ev.NowNs(), 1000);
  EXPECT_EQ(ev.NowNs(), 1000);  // reading the clock does not move it
  EXPECT_EQ(ev.FrameInForce(), 0u);
  EXPECT_EQ(ev.ListPids(10).names, std::vector<std::string_view>{"10"});
  EXPECT_EQ(ev.NowNs(), 1050);  // + frame 0's scan duration
  EXPECT_TRUE(ev.ReadFile(10, ProcFile::kStat, 4096).ok());
  ev.SleepUntil(1999);
  EXPECT_EQ(ev.FrameInForce(), 0u);
  ev.SleepUntil(1500);  // never backwards
  EXPECT_EQ(ev.NowNs(), 1999);
  ev.SleepUntil(2000);  // frame 2 (file order) started at 2000
  EXPECT_EQ(ev.FrameInForce(), 2u);
  EXPECT_EQ(ev.ReadFile(10, ProcFile::kStat, 4096).err, ENOENT);
  EXPECT_EQ(ev.ListPids(10).names, std::vector<std::string_view>{"12"});
  EXPECT_EQ(ev.NowNs(), 2030);
  ev.SleepUntil(5000);
  EXPECT_EQ(ev.FrameInForce(), 1u);
  EXPECT_EQ(ev.ListPids(10).names, std::vector<std::string_view>{"11"});
  EXPECT_EQ(ev.NowNs(), 5030);
  EXPECT_EQ(ev.first_frame_used(), 0u);
  EXPECT_EQ(ev.last_frame_used(), 1u);

  // Before the earliest scan start, the earliest frame answers.
  FrameEvidence early(frames, 10);
  EXPECT_EQ(early.FrameInForce(), 0u);
  // An incomplete frame (a capture cut short) took no time.
  frames[0].set_complete(false);
  FrameEvidence incomplete(frames, 1000);
  incomplete.ListPids(10);
  EXPECT_EQ(incomplete.NowNs(), 1000);
}

TEST(FrameEvidence, PathIdentityAnswersOnlyTheAttestedPath) {
  std::vector<v1::Frame> frames = {HandFrame(0, 0, 0, {10})};
  FrameEvidence ev(frames, 0);
  EXPECT_EQ(ev.PathIdentity("/bin/sleep").err, ENOENT);
  ev.SetAttestedPath("/bin/sleep", test::kSleepExe);
  EXPECT_EQ(ev.PathIdentity("/bin/sleep"), test::kSleepExe);
  EXPECT_EQ(ev.PathIdentity("/usr/bin/sleep").err, ENOENT);
}

TEST(FrameEvidence, LookupsInOneFrame) {
  v1::Frame f = HandFrame(0, 0, 0, {10, 11});
  f.mutable_processes(1)->mutable_stat()->set_data("garbage");
  ASSERT_TRUE(StatInFrame(f, 10).has_value());
  EXPECT_EQ(StatInFrame(f, 10)->start_ticks, 100u);
  EXPECT_FALSE(StatInFrame(f, 11).has_value());
  EXPECT_FALSE(StatInFrame(f, 12).has_value());
  EXPECT_EQ(ExeInFrame(f, 11), (Identity{0, 0x803, 11}));
  EXPECT_EQ(ExeInFrame(f, 12).err, ENOENT);
}

}  // namespace
}  // namespace proctape
