// SPDX-License-Identifier: Apache-2.0
// The frame model of replay (`docs/replay.md`, "Two models"): answer every
// call from the captured frames instead of the tape (the latest frame whose
// scan started at or before the virtual time; the clock advances by the
// recorded scan durations), so that a changed resolver, or a different request
// ... runs against any capture ... Reads of pids absent from the frame answer
// ENOENT, like a live /proc. Snapshots here are made from FakeHost frames
// scanned with the real frame scanner and written with the real SnapshotWriter,
// and the resolver and the liveness check are re-run on them. FrameEvidence's
// own rules, on frames built by hand: frame_evidence_test.cc.
#include "replay/frame_evidence.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "capture/frame_scanner.h"
#include "capture/recorder.h"
#include "core/resolver.h"
#include "fake_host.h"
#include "format/reader.h"
#include "format/writer.h"
#include "proto/convert.h"
#include "replay/replay.h"
#include "replay/unanswered.h"

namespace proctape {
namespace {

using test::FakeHost;
using test::kAppServer;
using test::kSleep;
using test::kSleepStart;
using test::kToken;

// Writes snapshot files into a fresh directory and reads them back.
class FrameModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "proctape-fm-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr) << std::strerror(errno);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // Opens a file with a header; `keep_environ` as `capture --env keep`,
  // `kept_entries_` (set before) as a recording's.
  void Begin(bool keep_environ = true) {
    Failure failure;
    path_ = dir_ + "/s" + std::to_string(files_++) + ".ptape";
    writer_ = SnapshotWriter::Create(path_, {}, &failure);
    ASSERT_NE(writer_, nullptr) << failure.message;
    keep_environ_ = keep_environ;
    v1::Header header;
    header.set_format_version(1);
    header.set_capturer_uid(1000);
    header.mutable_redaction()->set_environ(keep_environ ? v1::RedactionPolicy::ENVIRON_KEPT
                                                         : v1::RedactionPolicy::ENVIRON_REDACTED);
    // What the frames keep verbatim, as a recording's header says it.
    for (const std::string& e : kept_entries_) header.mutable_redaction()->add_kept_entries(e);
    ASSERT_TRUE(writer_->WriteHeader(header)) << writer_->error();
  }

  // One frame of `host`, scanned by the real frame scanner.
  void Frame(MemoryEvidence& host, const ScanOptions& extra = {}) {
    ScanOptions options = extra;
    options.keep_environ = keep_environ_;
    options.kept_entries = kept_entries_;
    FrameCallbacks cb;
    std::uint64_t index = frames_++;
    cb.begin = [&](std::int64_t t) { writer_->BeginFrame(index, t); };
    cb.record = [&](v1::ProcessRecord&& r) { return writer_->AddProcess(std::move(r)); };
    ScanStats s = ScanFrame(host, options, nullptr, cb);
    ASSERT_TRUE(writer_->EndFrame(s.scan_end_mono_ns, s.cut_reason, s.bytes_read))
        << writer_->error();
  }

  // A resolution recorded through RecordingEvidence on `host`.
  void Record(MemoryEvidence& host, const Request& request) {
    RecordingEvidence recorder(
        host, [&](v1::Observation&& o) { writer_->AddObservation(std::move(o)); },
        RecorderOptions{keep_environ_, {request.token_var + "=" + request.token}, [&host] {
                          return host.now_ns;
                        }});
    v1::Resolution resolution;
    resolution.set_start_mono_ns(host.now_ns);
    *resolution.mutable_resolve() = ToProto(request);
    resolution.mutable_resolve()->set_exe_path("/bin/sleep");
    *resolution.mutable_verdict() = ToProto(Resolve(recorder, request));
    resolution.set_end_mono_ns(host.now_ns);
    resolution.set_observation_count(recorder.observations());
    ASSERT_TRUE(writer_->WriteResolution(resolution)) << writer_->error();
  }

  // Finishes the file and reads it back whole (`keep`: as replay --model
  // frames reads it, say).
  Snapshot Finish(const ReadKeep& keep = {}) {
    Snapshot snapshot;
    EXPECT_TRUE(writer_->Finish(v1::Footer())) << writer_->error();
    writer_.reset();
    FormatError error = ReadSnapshot(path_, &snapshot, keep);
    EXPECT_TRUE(error.ok()) << error.message;
    frames_ = 0;
    return snapshot;
  }

  std::string dir_;
  std::string path_;
  int files_ = 0;
  std::uint64_t frames_ = 0;
  bool keep_environ_ = true;
  std::vector<std::string> kept_entries_;  // kept verbatim when redacting
  std::unique_ptr<SnapshotWriter> writer_;
};

TEST_F(FrameModelTest, FindsTheSamePidTheResolverFindsOnTheLiveHost) {
  FakeHost live;
  Verdict on_live = Resolve(live, FakeHost::TypicalRequest());
  ASSERT_EQ(on_live.status, Status::kResolved);

  Begin();
  FakeHost host;  // the same host, captured
  Frame(host);
  Snapshot snapshot = Finish();
  ASSERT_EQ(snapshot.frames.size(), 1u);
  ASSERT_TRUE(snapshot.resolutions.empty());

  FrameRun run =
      RunOnFrames(snapshot, FakeHost::TypicalRequest(), FrameModelStart(snapshot, nullptr));
  EXPECT_EQ(run.verdict.status, Status::kResolved) << run.verdict.detail;
  EXPECT_EQ(run.verdict.pid, on_live.pid);
  EXPECT_EQ(run.verdict.start_ticks, on_live.start_ticks);
  EXPECT_EQ(run.verdict.attempts, 1u);
  EXPECT_EQ(run.first_frame, 0u);
  EXPECT_EQ(run.last_frame, 0u);
  EXPECT_FALSE(run.recorded.has_value());
  EXPECT_EQ(DescribeFrameRun(run).rfind("request on the frames: RESOLVED host pid 4103, start "
                                        "tick 510003 (1 attempt, ",
                                        0),
            0u)
      << DescribeFrameRun(run);
}

TEST_F(FrameModelTest, PidsAbsentFromTheFrameAnswerEnoentLikeALiveProc) {
  Begin();
  FakeHost host;
  Frame(host);
  Snapshot snapshot = Finish();
  FrameEvidence ev(snapshot.frames, FrameModelStart(snapshot, nullptr));

  ReadResult gone = ev.ReadFile(999999, ProcFile::kStat, 4096);
  EXPECT_EQ(gone.err, ENOENT);
  EXPECT_TRUE(gone.data.empty());
  EXPECT_EQ(ev.ExeIdentity(999999).err, ENOENT);
  // exe is never read, only its identity taken.
  EXPECT_EQ(ev.ReadFile(kSleep, ProcFile::kExe, 4096).err, ENOENT);

  ReadResult stat = ev.ReadFile(kSleep, ProcFile::kStat, 4096);
  ASSERT_TRUE(stat.ok());
  EXPECT_EQ(stat.data,
            MemoryEvidence::StatLine(kSleep, "sleep", 'S', test::kSandboxShell, kSleepStart));
  EXPECT_EQ(ev.ExeIdentity(kSleep), test::kSleepExe);
  // kthreadd's exe was recorded as ENOENT: its errno is the answer.
  EXPECT_EQ(ev.ExeIdentity(test::kKthreadd).err, ENOENT);

  // The scan never read a cgroup of the fake host: recorded as ENOENT.
  EXPECT_EQ(ev.ReadFile(kSleep, ProcFile::kCgroup, 4096).err, ENOENT);
}
TEST_F(FrameModelTest, VirtualTimeReachesALaterFrameWhereTheSleepAppears) {
  // Frame 0: the sandbox has not exec'd the sleep yet. Frame 1, 350 ms later:
  // it has. The resolver retries every 100 ms until the clock reaches frame 1.
  Begin();
  FakeHost before;
  before.Remove(kSleep);
  before.now_ns = 1'000'000'000;
  before.call_cost_ns = 1000;  // a scan takes time
  Frame(before);
  FakeHost after;
  after.now_ns = 1'350'000'000;
  after.call_cost_ns = 1000;
  Frame(after);
  Snapshot snapshot = Finish();
  ASSERT_EQ(snapshot.frames.size(), 2u);
  EXPECT_GT(snapshot.frames[0].scan_end_mono_ns(), snapshot.frames[0].scan_start_mono_ns());

  FrameRun run =
      RunOnFrames(snapshot, FakeHost::TypicalRequest(), FrameModelStart(snapshot, nullptr));
  EXPECT_EQ(run.verdict.status, Status::kResolved) << run.verdict.detail;
  EXPECT_EQ(run.verdict.pid, kSleep);
  // Attempts start at 0, 100, 200, 300 ms (frame 0) and 400 ms (frame 1).
  EXPECT_EQ(run.verdict.attempts, 5u);
  EXPECT_EQ(run.first_frame, 0u);
  EXPECT_EQ(run.last_frame, 1u);
  EXPECT_GE(run.virtual_ns, 400'000'000);

  // Frame 0 alone: no match by the deadline, in virtual time.
  Begin();
  FakeHost only_before;
  only_before.Remove(kSleep);
  Frame(only_before);
  Snapshot one = Finish();
  FrameRun none = RunOnFrames(one, FakeHost::TypicalRequest(), FrameModelStart(one, nullptr));
  EXPECT_EQ(none.verdict.status, Status::kNoMatch);
  EXPECT_EQ(none.verdict.attempts, 51u);
  EXPECT_EQ(none.virtual_ns, 5'000'000'000);
}

// Read as replay --model frames reads it (ReadKeep::shared_records: frames
// are shells, a record unchanged from the previous frame held once), a
// capture answers every call as it does read plainly: the same verdict,
// attempts, calls and frames.
TEST_F(FrameModelTest, SharedRecordsAnswerAsTheFramesDo) {
  auto write = [&] {
    Begin();
    FakeHost before;
    before.Remove(kSleep);
    before.now_ns = 1'000'000'000;
    before.call_cost_ns = 1000;
    Frame(before);
    for (std::int64_t at : {1'350'000'000, 1'700'000'000}) {
      FakeHost after;
      after.now_ns = at;
      after.call_cost_ns = 1000;
      Frame(after);
    }
  };
  write();
  Snapshot plain = Finish();
  write();
  ReadKeep keep;
  keep.shared_records = true;
  Snapshot shared = Finish(keep);
  ASSERT_EQ(shared.records.size(), 3u);
  EXPECT_EQ(shared.frames[2].processes_size(), 0);            // a shell
  EXPECT_LT(shared.records.held(), shared.records.listed());  // frame 2 is frame 1's
  EXPECT_EQ(shared.records[2], shared.records[1]);

  FrameRun a = RunOnFrames(plain, FakeHost::TypicalRequest(), FrameModelStart(plain, nullptr));
  FrameRun b = RunOnFrames(shared, FakeHost::TypicalRequest(), FrameModelStart(shared, nullptr));
  EXPECT_EQ(b.verdict.status, Status::kResolved) << b.verdict.detail;
  EXPECT_EQ(b.verdict.status, a.verdict.status);
  EXPECT_EQ(b.verdict.pid, a.verdict.pid);
  EXPECT_EQ(b.verdict.start_ticks, a.verdict.start_ticks);
  EXPECT_EQ(b.verdict.attempts, a.verdict.attempts);
  EXPECT_EQ(b.calls, a.calls);
  EXPECT_EQ(b.first_frame, a.first_frame);
  EXPECT_EQ(b.last_frame, a.last_frame);
  EXPECT_EQ(DescribeFrameRun(b), DescribeFrameRun(a));
}

TEST_F(FrameModelTest, ARecordedResolutionIsReRunFromItsStartAndCompared) {
  kept_entries_ = {"PROCTAPE_TOKEN=" + kToken};
  Begin(/*keep_environ=*/false);  // as `resolve --record`: redacted, token entry kept
  FakeHost host;
  Frame(host);
  Record(host, FakeHost::TypicalRequest());
  Frame(host);
  Snapshot snapshot = Finish();
  ASSERT_EQ(snapshot.resolutions.size(), 1u);
  ASSERT_EQ(snapshot.resolutions[0].verdict().status(), v1::Verdict::RESOLVED);

  FrameRun same = RerunOnFrames(snapshot, 0, RequestOverrides{});
  EXPECT_EQ(same.resolution_index, 0u);
  EXPECT_EQ(same.verdict.status, Status::kResolved) << same.verdict.detail;
  EXPECT_EQ(same.verdict.pid, kSleep);
  ASSERT_TRUE(same.recorded.has_value());
  EXPECT_TRUE(same.same_decision);
  EXPECT_FALSE(same.request_changed);
  EXPECT_NE(DescribeFrameRun(same).find("(the same decision)"), std::string::npos);

  // What if the sandbox had been started by another invocation?
  RequestOverrides other;
  other.token = test::kOldToken;
  FrameRun changed = RerunOnFrames(snapshot, 0, other);
  EXPECT_TRUE(changed.request_changed);
  EXPECT_NE(changed.verdict.status, Status::kResolved);
  EXPECT_FALSE(changed.same_decision);
  EXPECT_NE(DescribeFrameRun(changed).find("a DIFFERENT decision"), std::string::npos);
  // The what-if's verdict names the sleep it found as a near miss (docs/resolver.md).
  EXPECT_NE(DescribeFrameRun(changed).find("near miss: pid 4103, start tick 510003: argv exact"),
            std::string::npos)
      << DescribeFrameRun(changed);

  // A different root start tick: the root restarted.
  RequestOverrides restarted;
  restarted.root_start_ticks = test::kAppServerStart + 1;
  EXPECT_EQ(RerunOnFrames(snapshot, 0, restarted).verdict.status, Status::kRootRestarted);
}

// A recorded request with a deadline of years and a retry interval of a
// nanosecond once made the frame model retry without end. Outside the timing
// limits of core/resolver.h it is INVALID_REQUEST in replay as live.
TEST_F(FrameModelTest, ARecordedRequestOutsideTheTimingLimitsIsInvalidNotEndless) {
  kept_entries_ = {"PROCTAPE_TOKEN=" + kToken};
  Begin(/*keep_environ=*/false);
  FakeHost host;
  host.Remove(kSleep);  // nothing ever matches: only the deadline would end it
  Frame(host);
  Record(host, FakeHost::TypicalRequest());
  Snapshot snapshot = Finish();
  ASSERT_EQ(snapshot.resolutions.size(), 1u);
  v1::Bounds* b = snapshot.resolutions[0].mutable_resolve()->mutable_bounds();
  b->set_deadline_ns(std::int64_t{10} * 365 * 86'400'000'000'000);  // ten years
  b->set_retry_interval_ns(1);
  FrameRun run = RerunOnFrames(snapshot, 0, RequestOverrides{});
  EXPECT_EQ(run.verdict.status, Status::kInvalidRequest) << run.verdict.detail;
  EXPECT_EQ(run.verdict.attempts, 0u);
}

// docs/replay.md, "What a replay cannot answer": a plain capture's environ
// values are all redacted, so whether the sleep carries the token cannot be
// told. The run diverges at that read, with the reason and no verdict
// (it used to say TOKEN_MISMATCH, from the stars).
TEST_F(FrameModelTest, ATokenCheckOnRedactedEnvironValuesIsUnanswered) {
  Begin(/*keep_environ=*/false);  // plain `proctape capture`: every value redacted
  FakeHost host;
  Frame(host);
  Snapshot snapshot = Finish();
  FrameRun run =
      RunOnFrames(snapshot, FakeHost::TypicalRequest(), FrameModelStart(snapshot, nullptr));
  EXPECT_EQ(run.unanswered, v1::UNANSWERED_REDACTED) << run.verdict.detail;
  EXPECT_EQ(run.unanswered_call, "ReadFile(pid 4103, environ, bound 65536)");
  const std::string text = DescribeFrameRun(run);
  EXPECT_EQ(text.rfind("request on the frames: DIVERGED: the frames cannot answer ReadFile(pid "
                       "4103, environ, bound 65536) (",
                       0),
            0u)
      << text;
  EXPECT_NE(text.find(UnansweredWhy(v1::UNANSWERED_REDACTED)), std::string::npos) << text;
  EXPECT_EQ(text.find("TOKEN_MISMATCH"), std::string::npos) << text;
}

// A record without the file asked, and a read cut at a smaller bound than
// the one asked, are bytes the frame never held: not ENOENT (a process that
// is gone), not a whole file.
TEST_F(FrameModelTest, AReadTheFrameHoldsOnlyInPartIsUnanswered) {
  Begin();
  FakeHost host;
  Frame(host);
  Snapshot snapshot = Finish();
  const Request request = FakeHost::TypicalRequest();
  const std::int64_t start = FrameModelStart(snapshot, nullptr);
  ASSERT_EQ(RunOnFrames(snapshot, request, start).verdict.status, Status::kResolved);

  Snapshot no_environ = snapshot;
  for (v1::ProcessRecord& r : *no_environ.frames[0].mutable_processes()) {
    if (r.pid() == kSleep) r.clear_environ();
  }
  FrameRun missing = RunOnFrames(no_environ, request, start);
  EXPECT_EQ(missing.unanswered, v1::UNANSWERED_NOT_RECORDED) << DescribeFrameRun(missing);
  EXPECT_EQ(missing.unanswered_call, "ReadFile(pid 4103, environ, bound 65536)");

  Snapshot cut = snapshot;
  for (v1::ProcessRecord& r : *cut.frames[0].mutable_processes()) {
    if (r.pid() != kSleep) continue;
    r.mutable_environ()->set_data(r.environ().data().substr(0, 10));
    r.mutable_environ()->set_truncated(true);
    r.mutable_environ()->set_bound(10);
  }
  FrameRun past = RunOnFrames(cut, request, start);
  EXPECT_EQ(past.unanswered, v1::UNANSWERED_PAST_BOUND) << DescribeFrameRun(past);
  EXPECT_NE(DescribeFrameRun(past).find(UnansweredWhy(v1::UNANSWERED_PAST_BOUND)),
            std::string::npos);
}

TEST_F(FrameModelTest, ALivenessCheckIsReRunOnTheFrames) {
  Begin();
  FakeHost host;
  Frame(host);
  RecordingEvidence recorder(
      host, [&](v1::Observation&& o) { writer_->AddObservation(std::move(o)); },
      RecorderOptions{true, {}, [&host] { return host.now_ns; }});
  v1::Resolution resolution;
  resolution.set_start_mono_ns(host.now_ns);
  resolution.mutable_liveness()->set_pid(kSleep);
  resolution.mutable_liveness()->set_start_ticks(kSleepStart);
  *resolution.mutable_liveness_verdict() = ToProto(CheckLiveness(recorder, kSleep, kSleepStart));
  resolution.set_observation_count(recorder.observations());
  ASSERT_TRUE(writer_->WriteResolution(resolution));
  Snapshot snapshot = Finish();

  FrameRun run = RerunOnFrames(snapshot, 0, RequestOverrides{});
  EXPECT_TRUE(run.liveness);
  EXPECT_EQ(run.liveness_verdict.status, LivenessStatus::kAlive);
  EXPECT_TRUE(run.same_decision);
}

}  // namespace
}  // namespace proctape
