// SPDX-License-Identifier: Apache-2.0
// The replay of a file as `proctape replay` asks for it (replay/file_replay.h):
// the tape and frame models of a recording, what stops a replay (a damaged
// or missing file, options a file cannot take), and the reads it starts from
// (replay/recording_read.h).
#include "replay/file_replay.h"

#include <gtest/gtest.h>

#include <string>

#include "replay/recording_read.h"
#include "tests/unit/fake_host.h"
#include "tests/unit/replay_fixture.h"
#include "tests/unit/replay_tape_fixture.h"

namespace proctape {
namespace {

using namespace test;

// A recording of the typical resolution with its two frames: its path.
std::string RecordFramed(const ReplayTempDir& dir) {
  RecordOptions options;
  options.frames = true;
  RecordTypical(dir, "framed.ptape", nullptr, options);
  return dir.File("framed.ptape");
}

// The same recording, written as a
// plain capture: the frames alone, no tape and no resolution.
std::string WritePlainCapture(const ReplayTempDir& dir) {
  Snapshot s = ReadBack(RecordFramed(dir));
  s.observations.clear();
  s.resolutions.clear();
  std::string error;
  EXPECT_TRUE(WriteSnapshotFile(s, dir.File("plain.ptape"), &error)) << error;
  return dir.File("plain.ptape");
}

// The replay of `file` in `model`, asserted to run.
FileReplayOutcome ReplayModelOf(const std::string& file, ReplayModel model) {
  FileReplayRequest request;
  request.file = file;
  request.model = model;
  FileReplayOutcome out = ReplayFileAsRequested(request);
  EXPECT_FALSE(out.failure) << out.failure->failure.message;
  EXPECT_FALSE(out.fingerprint_refused);
  EXPECT_TRUE(out.notes.empty());
  return out;
}

TEST(FileReplay, TapeModelReproducesTheRecordedResolution) {
  ReplayTempDir dir;
  RecordTypical(dir, "typical.ptape");
  const FileReplayOutcome out = ReplayModelOf(dir.File("typical.ptape"), ReplayModel::kTape);
  ASSERT_EQ(out.tape.size(), 1u);
  EXPECT_EQ(out.tape[0].outcome(), v1::ReplayResult::REPRODUCED) << Why(out.tape[0]);
  EXPECT_EQ(out.report.file(), "typical.ptape");
  EXPECT_EQ(out.report.model(), "tape");
  EXPECT_EQ(out.report.replays_size(), 1);
  EXPECT_TRUE(out.frame_runs.empty());
}

TEST(FileReplay, FrameModelRerunsTheRecordedResolutionOnItsFrames) {
  ReplayTempDir dir;
  const FileReplayOutcome out = ReplayModelOf(RecordFramed(dir), ReplayModel::kFrames);
  ASSERT_EQ(out.frame_runs.size(), 1u);
  EXPECT_TRUE(out.frame_runs[0].run.same_decision) << out.frame_runs[0].text;
  EXPECT_EQ(out.frame_runs[0].run.verdict.status, Status::kResolved);
  EXPECT_EQ(out.report.model(), "frames");
  EXPECT_EQ(out.report.frame_runs_size(), 1);
  EXPECT_TRUE(out.tape.empty());
}

TEST(FileReplay, AMissingFileIsItsReadFailureAboutItsName) {
  ReplayTempDir dir;
  FileReplayRequest request;
  request.file = dir.File("absent.ptape");
  const FileReplayOutcome out = ReplayFileAsRequested(request);
  ASSERT_TRUE(out.failure);
  EXPECT_EQ(out.failure->failure.kind, FailureKind::kIo);
  EXPECT_EQ(out.failure->path, request.file);
  EXPECT_EQ(out.failure->failure.message, "cannot open: No such file or directory");
}

TEST(FileReplay, APlainCaptureNeedsARootAndATokenForTheFrameModel) {
  ReplayTempDir dir;
  FileReplayRequest request;
  request.file = WritePlainCapture(dir);
  request.model = ReplayModel::kFrames;
  request.token_given = true;
  request.overrides.token = kToken;
  const FileReplayOutcome out = ReplayFileAsRequested(request);
  ASSERT_TRUE(out.failure);
  EXPECT_EQ(out.failure->failure.kind, FailureKind::kUsage);
  EXPECT_TRUE(out.failure->path.empty());
  EXPECT_EQ(out.failure->failure.message,
            request.file +
                " records no resolution: --model frames needs --root (it takes --root, --token "
                "and --exe-identity or --exe-like)");
}

// The request of the options on a plain capture: its root's start tick from
// the first frame, the executable of --exe-like's pid.
FileReplayRequest PlainCaptureRequest(const std::string& file, const std::string& token) {
  FileReplayRequest request;
  request.file = file;
  request.model = ReplayModel::kFrames;
  request.root_given = request.token_given = true;
  request.overrides.root_pid = kAppServer;
  request.overrides.token = token;
  request.exe_like = kSleep;
  return request;
}

TEST(FileReplay, APlainCaptureResolvesTheRequestOfTheOptions) {
  ReplayTempDir dir;
  const FileReplayOutcome out =
      ReplayFileAsRequested(PlainCaptureRequest(WritePlainCapture(dir), kToken));
  ASSERT_FALSE(out.failure) << out.failure->failure.message;
  // The token entry asked is the one the recording kept verbatim.
  EXPECT_TRUE(out.notes.empty());
  ASSERT_EQ(out.frame_runs.size(), 1u);
  EXPECT_EQ(out.frame_runs[0].run.verdict.status, Status::kResolved) << out.frame_runs[0].text;
  EXPECT_EQ(out.frame_runs[0].run.verdict.pid, kSleep);
  EXPECT_EQ(out.report.frame_runs_size(), 1);
}

TEST(FileReplay, ATokenNotKeptVerbatimIsNotedBeforeTheRun) {
  ReplayTempDir dir;
  const std::string file = WritePlainCapture(dir);
  const FileReplayOutcome out =
      ReplayFileAsRequested(PlainCaptureRequest(file, "another-token-1234"));
  ASSERT_FALSE(out.failure) << out.failure->failure.message;
  ASSERT_EQ(out.notes.size(), 1u);
  EXPECT_EQ(out.notes[0].substr(0, file.size() + 50),
            file + ": environ values are stored redacted and the token");
  ASSERT_EQ(out.frame_runs.size(), 1u);
}

TEST(FileReplay, ExeLikeOfAPidTheFirstFrameLacksIsAUsageFailure) {
  ReplayTempDir dir;
  FileReplayRequest request;
  request.file = RecordFramed(dir);
  request.exe_like = 999999;
  const FileReplayOutcome out = ReplayFileAsRequested(request);
  ASSERT_TRUE(out.failure);
  EXPECT_EQ(out.failure->failure.kind, FailureKind::kUsage);
  EXPECT_EQ(out.failure->failure.message,
            "--exe-like 999999: the first frame of " + request.file + " holds no process 999999");
}

TEST(FileReplay, TheLegacyCheckWantsAFrame) {
  ReplayTempDir dir;
  RecordTypical(dir, "typical.ptape");
  FileReplayRequest request;
  request.file = dir.File("typical.ptape");
  request.legacy_marker = "3";
  const FileReplayOutcome out = ReplayFileAsRequested(request);
  ASSERT_TRUE(out.failure);
  EXPECT_EQ(out.failure->failure.kind, FailureKind::kUsage);
  EXPECT_FALSE(out.legacy);
  EXPECT_NE(out.failure->failure.message.find("holds no frame: it is a recording"),
            std::string::npos)
      << out.failure->failure.message;
}

TEST(FileReplay, ARefusedFingerprintStopsTheReplayWithTheRecordingsBoot) {
  ReplayTempDir dir;
  RecordTypical(dir, "typical.ptape");
  FileReplayRequest request;
  request.file = dir.File("typical.ptape");
  std::string boot_asked;
  request.fingerprint = [&boot_asked](const std::string& boot_id) {
    boot_asked = boot_id;
    return std::optional<v1::RootFingerprint>();
  };
  const FileReplayOutcome out = ReplayFileAsRequested(request);
  EXPECT_TRUE(out.fingerprint_refused);
  EXPECT_FALSE(out.failure);
  EXPECT_TRUE(out.tape.empty());
  EXPECT_EQ(boot_asked, "00000000-0000-4000-8000-000000000000\n");
}

TEST(RecordingRead, ACaptureIsNoRecordingAndACheckPastTheLastIsRefused) {
  ReplayTempDir dir;
  Snapshot snapshot;
  const std::string plain = WritePlainCapture(dir);
  MaybeFileFailure none = ReadRecordingFile("explore", plain, std::nullopt, &snapshot);
  ASSERT_TRUE(none);
  EXPECT_EQ(none->failure.kind, FailureKind::kUsage);
  EXPECT_EQ(none->failure.message, plain +
                                       " holds no recorded resolution (it is a capture (2 "
                                       "frames)): explore starts from a recording");
  MaybeFileFailure past =
      ReadRecordingFile("explore", dir.File("framed.ptape"), std::uint64_t{1}, &snapshot);
  ASSERT_TRUE(past);
  EXPECT_EQ(past->failure.message, "--check 1: " + dir.File("framed.ptape") + " records 1 check");
  EXPECT_FALSE(ReadRecordingFile("explore", dir.File("framed.ptape"), std::uint64_t{0}, &snapshot));
  EXPECT_EQ(snapshot.resolutions.size(), 1u);
}

TEST(RecordingRead, ReadMaskedFileGivesTheDamageAboutTheNameAndTheMask) {
  ReplayTempDir dir;
  RecordTypical(dir, "typical.ptape");
  Snapshot snapshot;
  TokenMask mask;
  EXPECT_FALSE(ReadMaskedFile(dir.File("typical.ptape"), ReadKeep{}, &snapshot, &mask));
  EXPECT_EQ(mask.Masked(kToken), std::string(kToken.size(), '*'));
  MaybeFileFailure missing = ReadMaskedFile(dir.File("none.ptape"), ReadKeep{}, &snapshot, &mask);
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->failure.kind, FailureKind::kIo);
  EXPECT_EQ(missing->path, dir.File("none.ptape"));
}

}  // namespace
}  // namespace proctape
