// SPDX-License-Identifier: Apache-2.0
// What the legacy check would have done (`docs/resolver.md`, "The legacy
// check"): `proctape replay FILE --legacy-marker N` reports what treating the
// marker N as a host pid and probing it with `kill(N, 0)` would have concluded
// at capture time, from the frame. Frames are scanned from FakeHost by the real
// frame scanner and written with the real SnapshotWriter.
#include "replay/legacy_replay.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "capture/frame_scanner.h"
#include "capture/recorder.h"
#include "core/resolver.h"
#include "fake_host.h"
#include "format/reader.h"
#include "format/writer.h"
#include "proto/convert.h"

namespace proctape {
namespace {

using test::FakeHost;
using test::kHostPid3;
using test::kSleep;

std::string Status(std::int64_t pid, const std::string& name, const std::string& uids) {
  return "Name:\t" + name + "\nState:\tS (sleeping)\nPid:\t" + std::to_string(pid) + "\nUid:\t" +
         uids + "\nGid:\t0\t0\t0\t0\n";
}

// The typical host, with real status Uid lines: pid 3 (postgres) belongs to
// uid 1001, kthreadd to root; the sandbox runs as uid 1000.
class HostWithUids : public FakeHost {
 public:
  HostWithUids() {
    SetFile(test::kKthreadd, ProcFile::kStatus, Status(test::kKthreadd, "kthreadd", "0\t0\t0\t0"));
    SetFile(kHostPid3, ProcFile::kStatus, Status(kHostPid3, "postgres", "1001\t1001\t1001\t1001"));
    SetFile(kSleep, ProcFile::kStatus, Status(kSleep, "sleep", "1000\t1000\t1000\t1000"));
  }
};

class LegacyReplayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "proctape-lr-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr) << std::strerror(errno);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // A capture of `host` by a capturer of uid `capturer_uid`: one frame, and,
  // with `record`, a resolution of the typical request recorded after it.
  Snapshot Capture(MemoryEvidence& host, std::uint32_t capturer_uid, bool record = false) {
    std::string path = dir_ + "/c" + std::to_string(files_++) + ".ptape";
    Failure failure;
    auto writer = SnapshotWriter::Create(path, {}, &failure);
    EXPECT_NE(writer, nullptr) << failure.message;
    if (!writer) return {};
    v1::Header header;
    header.set_format_version(1);
    header.set_capturer_uid(capturer_uid);
    EXPECT_TRUE(writer->WriteHeader(header));
    FrameCallbacks cb;
    cb.begin = [&](std::int64_t t) { writer->BeginFrame(0, t); };
    cb.record = [&](v1::ProcessRecord&& r) { return writer->AddProcess(std::move(r)); };
    ScanStats s = ScanFrame(host, ScanOptions{}, nullptr, cb);
    EXPECT_TRUE(writer->EndFrame(s.scan_end_mono_ns, s.cut_reason, s.bytes_read));
    if (record) {
      Request request = FakeHost::TypicalRequest();
      RecordingEvidence recorder(
          host, [&](v1::Observation&& o) { writer->AddObservation(std::move(o)); },
          RecorderOptions{true, {}, [&host] { return host.now_ns; }});
      v1::Resolution resolution;
      *resolution.mutable_resolve() = ToProto(request);
      *resolution.mutable_verdict() = ToProto(Resolve(recorder, request));
      resolution.set_observation_count(recorder.observations());
      EXPECT_TRUE(writer->WriteResolution(resolution));
    }
    EXPECT_TRUE(writer->Finish(v1::Footer())) << writer->error();
    Snapshot snapshot;
    FormatError read = ReadSnapshot(path, &snapshot);
    EXPECT_TRUE(read.ok()) << read.message;
    return snapshot;
  }

  std::string dir_;
  int files_ = 0;
};

TEST(ParseStatusUids, RealAndSavedFromTheUidLine) {
  auto u = ParseStatusUids("Name:\tx\nUid:\t1000\t1001\t1002\t1003\nGid:\t5\t5\t5\t5\n");
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->real, 1000u);
  EXPECT_EQ(u->saved, 1002u);
  EXPECT_FALSE(ParseStatusUids("Name:\tx\n").has_value());
  EXPECT_FALSE(ParseStatusUids("Uid:\t1000\n").has_value());
  EXPECT_FALSE(ParseStatusUids("Uid:\t-1\t0\t0\t0\n").has_value());
  EXPECT_FALSE(ParseStatusUids("Uid:\t4294967296\t0\t0\t0\n").has_value());
  EXPECT_TRUE(ParseStatusUids("Uid:\t4294967295\t0\t0\t0\n").has_value());
}

TEST_F(LegacyReplayTest, TheProbeAnswersFromTheFrameByTheCallersUid) {
  HostWithUids host;
  Snapshot s = Capture(host, 1000);
  ASSERT_EQ(s.frames.size(), 1u);
  const v1::Frame& frame = s.frames[0];
  FrameSignalProbe user(frame, 1000);
  EXPECT_EQ(user.Kill0(kHostPid3), EPERM);  // another user's process
  EXPECT_EQ(user.Kill0(kSleep), 0);         // its own
  EXPECT_EQ(user.Kill0(77777), ESRCH);      // nobody's
  FrameSignalProbe owner(frame, 1001);
  EXPECT_EQ(owner.Kill0(kHostPid3), 0);
  FrameSignalProbe root(frame, 0);
  EXPECT_EQ(root.Kill0(kHostPid3), 0);
  EXPECT_EQ(root.Kill0(test::kKthreadd), 0);
  EXPECT_EQ(root.Kill0(77777), ESRCH);
  // No Uid line (the fake host's default status): not comparable, EPERM.
  EXPECT_EQ(user.Kill0(test::kAppServer), EPERM);
}

TEST_F(LegacyReplayTest, ASavedSetUserIdOfTheCallerAllowsTheSignal) {
  HostWithUids host;
  host.SetFile(kHostPid3, ProcFile::kStatus, Status(kHostPid3, "su", "0\t0\t1000\t0"));
  Snapshot s = Capture(host, 1000);
  FrameSignalProbe user(s.frames[0], 1000);
  EXPECT_EQ(user.Kill0(kHostPid3), 0);
}

TEST_F(LegacyReplayTest, AProcessThatEndedDuringTheScanIsGone) {
  HostWithUids host;
  host.SetFileError(kHostPid3, ProcFile::kStat, ENOENT);
  Snapshot s = Capture(host, 0);
  FrameSignalProbe root(s.frames[0], 0);
  EXPECT_EQ(root.Kill0(kHostPid3), ESRCH);
}

TEST_F(LegacyReplayTest, Marker3NamesAnotherUsersProcessEpermUnprivilegedAliveForRoot) {
  HostWithUids host;
  Snapshot user = Capture(host, 1000);
  v1::LegacyReport r = LegacyReplay(user, "3");
  EXPECT_EQ(r.outcome(), v1::LegacyReport::ERROR);
  EXPECT_EQ(r.err(), EPERM);
  EXPECT_EQ(r.pid(), 3);
  EXPECT_TRUE(r.present());
  EXPECT_EQ(r.comm(), "postgres");
  EXPECT_TRUE(r.uid_known());
  EXPECT_EQ(r.uid(), 1001u);
  EXPECT_EQ(r.capturer_uid(), 1000u);
  EXPECT_EQ(r.root_outcome(), v1::LegacyReport::ALIVE);
  EXPECT_EQ(r.unprivileged_outcome(), v1::LegacyReport::ERROR);
  EXPECT_FALSE(r.resolution_recorded());
  EXPECT_EQ(DescribeLegacy(r),
            "marker 3 names host pid 3 (postgres, uid 1001): the legacy check reports EPERM for "
            "an unprivileged caller or ALIVE for root or its owner (uid 1001); no recorded "
            "resolution in the file names the sandboxed sleep's host pid\n"
            "at capture time (capturer uid 1000): kill(3, 0) failed with EPERM: the legacy check "
            "throws\n");

  HostWithUids same_host;
  Snapshot root = Capture(same_host, 0);
  v1::LegacyReport as_root = LegacyReplay(root, "3\n");  // as `echo $$ > marker` wrote it
  EXPECT_EQ(as_root.outcome(), v1::LegacyReport::ALIVE);
  EXPECT_EQ(as_root.err(), 0);
  EXPECT_NE(as_root.capture_time().find("the legacy check reports ALIVE"), std::string::npos);
}

TEST_F(LegacyReplayTest, WithARecordedResolutionTheReportNamesTheSandboxedSleep) {
  // The example of a marker taken as a host pid: pid 3 is kthreadd on this
  // host.
  HostWithUids host;
  host.AddProcess(kHostPid3, test::kKthreadd, 3, "kthreadd", {}, {}, Identity{ENOENT, 0, 0});
  host.SetFile(kHostPid3, ProcFile::kStatus, Status(kHostPid3, "kthreadd", "0\t0\t0\t0"));
  Snapshot s = Capture(host, 1000, /*record=*/true);
  ASSERT_EQ(s.resolutions.size(), 1u);
  ASSERT_EQ(s.resolutions[0].verdict().status(), v1::Verdict::RESOLVED);
  v1::LegacyReport r = LegacyReplay(s, "3");
  EXPECT_TRUE(r.resolution_recorded());
  EXPECT_EQ(r.recorded_status(), v1::Verdict::RESOLVED);
  EXPECT_EQ(r.sandboxed_pid(), kSleep);
  EXPECT_EQ(r.detail(),
            "marker 3 names host pid 3 (kthreadd, uid 0): the legacy check reports EPERM for an "
            "unprivileged caller or ALIVE for root; it is an unrelated process: the sandboxed "
            "sleep is host pid 4103");
  // JSON goes through the schema's message.
  std::string json = ToJson(r);
  EXPECT_NE(json.find("\"outcome\":\"ERROR\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"sandboxed_pid\":4103"), std::string::npos) << json;
}

TEST_F(LegacyReplayTest, AnAbsentMarkerPidIsDeadForEveryCaller) {
  HostWithUids host;
  Snapshot s = Capture(host, 1000, /*record=*/true);
  v1::LegacyReport r = LegacyReplay(s, "77777");
  EXPECT_EQ(r.outcome(), v1::LegacyReport::DEAD);
  EXPECT_EQ(r.err(), ESRCH);
  EXPECT_FALSE(r.present());
  EXPECT_EQ(r.root_outcome(), v1::LegacyReport::DEAD);
  EXPECT_EQ(r.unprivileged_outcome(), v1::LegacyReport::DEAD);
  EXPECT_EQ(r.detail(),
            "marker 77777 names host pid 77777, which no process held at capture time (frame 0): "
            "kill(77777, 0) fails with ESRCH and the legacy check reports DEAD for every caller; "
            "yet the sandboxed sleep is alive as host pid 4103");
}

TEST_F(LegacyReplayTest, AMarkerThatIsNotAPidIsInvalid) {
  HostWithUids host;
  Snapshot s = Capture(host, 1000);
  for (const char* marker : {"", "abc", "3x", "03", "-3", "0", "2147483648", "3\n\n"}) {
    v1::LegacyReport r = LegacyReplay(s, marker);
    EXPECT_EQ(r.outcome(), v1::LegacyReport::INVALID_MARKER) << marker;
    EXPECT_EQ(r.pid(), 0) << marker;
    EXPECT_EQ(r.root_outcome(), v1::LegacyReport::INVALID_MARKER) << marker;
  }
  EXPECT_EQ(LegacyReplay(s, "abc").detail(),
            "marker 'abc' does not hold a pid: the legacy check rejects it before probing "
            "anything");
}

TEST_F(LegacyReplayTest, TheMarkersProcessIsTheSleepWhenNoNamespaceSeparatesThem) {
  HostWithUids host;
  Snapshot s = Capture(host, 1000, /*record=*/true);
  v1::LegacyReport r = LegacyReplay(s, std::to_string(kSleep));
  EXPECT_EQ(r.outcome(), v1::LegacyReport::ALIVE);
  EXPECT_NE(r.detail().find("the sandboxed sleep itself"), std::string::npos) << r.detail();
}

TEST_F(LegacyReplayTest, AHostileCommIsEscaped) {
  HostWithUids host;
  host.AddProcess(kHostPid3, 1, 900, "evil) R 1\n\x1b[2J", {"x"}, {}, Identity{0, 1, 2});
  host.SetFile(kHostPid3, ProcFile::kStatus, Status(kHostPid3, "evil", "1001\t1001\t1001\t1001"));
  Snapshot s = Capture(host, 1000);
  v1::LegacyReport r = LegacyReplay(s, "3");
  EXPECT_EQ(r.comm(), "evil) R 1\\x0a\\x1b[2J");  // escaped text, as every view shows it
  EXPECT_NE(r.detail().find("(evil) R 1\\x0a\\x1b[2J, uid 1001)"), std::string::npos) << r.detail();
  EXPECT_EQ(r.detail().find('\n'), std::string::npos);
}

}  // namespace
}  // namespace proctape
