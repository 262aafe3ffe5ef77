// SPDX-License-Identifier: Apache-2.0
// The views' pipelines on real files (analyze/view_read.h, diff_files.h,
// tree_file.h, show_file.h): what is read, which frames are compared or
// drawn, a damaged file's frames used with its damage said, and the
// failure kind of a request that cannot be shown.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "analyze/diff_files.h"
#include "analyze/show_file.h"
#include "analyze/tree_file.h"
#include "analyze/view_read.h"
#include "replay_fixture.h"
#include "views_fixture.h"

namespace proctape {
namespace {

using test::MakeFrame;
using test::MakeSnapshot;
using test::Proc;

// Two frames: pid 70 exits between them, pid 90 appears.
Snapshot TwoFrames() {
  return MakeSnapshot(
      {MakeFrame(0, {Proc(1).Comm("init").Ppid(0).Start(1), Proc(70).Start(700)}, 1'000'000'000),
       MakeFrame(1, {Proc(1).Comm("init").Ppid(0).Start(1), Proc(90).Start(900)}, 2'000'000'000)});
}

class ViewFilesTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(dir_.ok()); }
  // `snapshot` written as a file named `name`; cut by `cut` bytes at its end.
  std::string Write(const Snapshot& snapshot, const std::string& name, std::uintmax_t cut = 0) {
    const std::string path = dir_.File(name);
    std::string error;
    EXPECT_TRUE(test::WriteSnapshotFile(snapshot, path, &error)) << error;
    if (cut > 0) std::filesystem::resize_file(path, std::filesystem::file_size(path) - cut);
    return path;
  }

 private:
  test::ReplayTempDir dir_;
};

TEST_F(ViewFilesTest, ReadViewFileKeepsTheFramesPickedOnceTheFileIsKnown) {
  const std::string path = Write(TwoFrames(), "two.ptape");
  ViewFile file;
  ReadKeep keep;
  keep.observations = false;
  std::size_t last = 99;
  const MaybeFailure failed = ReadViewFile(
      path, keep,
      [&](const Snapshot& s) {
        last = LastCompleteFrame(s);
        return std::vector<std::uint64_t>{last};
      },
      &file);
  ASSERT_FALSE(failed) << failed->message;
  EXPECT_EQ(last, 1u);
  ASSERT_EQ(file.snapshot.frames.size(), 2u);
  EXPECT_EQ(file.snapshot.frames[0].processes_size(), 0);  // a shell
  EXPECT_EQ(file.snapshot.frames[1].processes_size(), 2);
  EXPECT_EQ(file.name, path);
  EXPECT_FALSE(file.Damage());
}

TEST_F(ViewFilesTest, RefuseViewPutsEveryDamageBeforeWhyWithTheFirstDamagesKind) {
  const Failure refused =
      RefuseView({Failure(FailureKind::kTruncated, "a: cut"), Failure(FailureKind::kChecksum, "b")},
                 "no frame 7");
  EXPECT_EQ(refused.kind, FailureKind::kTruncated);
  EXPECT_EQ(refused.message, "a: cut; b; no frame 7");
  EXPECT_EQ(RefuseView({}, "no frame 7", FailureKind::kNotFound).kind, FailureKind::kNotFound);
}

TEST_F(ViewFilesTest, DiffComparesTheFirstAndLastCompleteFrameOfOneFile) {
  DiffRequest request;
  request.files = {Write(TwoFrames(), "two.ptape")};
  ASSERT_FALSE(CheckDiffRequest(&request));
  EXPECT_TRUE(request.one_file);
  const DiffOutcome diff = DiffFiles(request);
  ASSERT_FALSE(diff.failure) << diff.failure->message;
  EXPECT_EQ(diff.report.frame_a(), 0u);
  EXPECT_EQ(diff.report.frame_b(), 1u);
  EXPECT_EQ(diff.report.exited(), 1u);
  EXPECT_EQ(diff.report.appeared(), 1u);
  EXPECT_TRUE(diff.notes.damages.empty());
  EXPECT_FALSE(diff.notes.nothing_selected);
}

TEST_F(ViewFilesTest, DiffRefusesFramesItCannotCompare) {
  DiffRequest two_files;
  two_files.files = {"a.ptape", "b.ptape"};
  two_files.frames = {0, 1};
  const MaybeFailure frames = CheckDiffRequest(&two_files);
  ASSERT_TRUE(frames);
  EXPECT_EQ(frames->kind, FailureKind::kUsage);

  DiffRequest itself;
  itself.files = {"a.ptape"};
  itself.frames = {1, 1};
  const MaybeFailure same = CheckDiffRequest(&itself);
  ASSERT_TRUE(same);
  EXPECT_EQ(same->message,
            "--frames 1 1: a frame compared with itself shows no change; give two different "
            "frames");

  DiffRequest one_frame;
  one_frame.files = {Write(MakeSnapshot({MakeFrame(0, {Proc(1)})}), "one.ptape")};
  ASSERT_FALSE(CheckDiffRequest(&one_frame));
  const DiffOutcome diff = DiffFiles(one_frame);
  ASSERT_TRUE(diff.failure);
  EXPECT_EQ(diff.failure->kind, FailureKind::kUsage);
  EXPECT_NE(diff.failure->message.find("holds one frame"), std::string::npos);
}

TEST_F(ViewFilesTest, DiffOfADamagedFileSaysTheDamageAndAFilterThatSelectsNothing) {
  DiffRequest request;
  request.files = {Write(TwoFrames(), "cut.ptape", 3)};  // the footer cut
  request.filter.pid = 4242;
  ASSERT_FALSE(CheckDiffRequest(&request));
  const DiffOutcome diff = DiffFiles(request);
  ASSERT_FALSE(diff.failure) << diff.failure->message;
  ASSERT_EQ(diff.notes.damages.size(), 1u);
  EXPECT_EQ(diff.notes.damages[0].kind, FailureKind::kTruncated);
  EXPECT_NE(diff.notes.damages[0].message.find("(the frames before the damage are used)"),
            std::string::npos);
  ASSERT_TRUE(diff.notes.nothing_selected);
  EXPECT_EQ(diff.notes.nothing_selected->kind, FailureKind::kNotFound);

  request.frame_b = 7;  // past the frames before the damage: the damage's kind, in one line
  const DiffOutcome past = DiffFiles(request);
  ASSERT_TRUE(past.failure);
  EXPECT_EQ(past.failure->kind, FailureKind::kTruncated);
  EXPECT_EQ(past.failure->message.rfind(request.files[0] + ": ", 0), 0u);
}

TEST_F(ViewFilesTest, TreeDrawsTheFrameAskedAndSaysWhyItCannot) {
  TreeRequest request;
  request.file = Write(TwoFrames(), "two.ptape");
  request.tree.frame = 1;
  const TreeOutcome tree = TreeOfFile(request);
  ASSERT_FALSE(tree.failure) << tree.failure->message;
  EXPECT_EQ(tree.report.frame(), 1u);
  EXPECT_EQ(tree.report.frames(), 2u);
  EXPECT_TRUE(tree.notes.damages.empty());

  request.tree.frame = 0;
  request.tree.root = 4242;
  const TreeOutcome no_root = TreeOfFile(request);
  ASSERT_TRUE(no_root.failure);
  EXPECT_EQ(no_root.failure->kind, FailureKind::kNotFound);

  request.tree.root = 0;
  request.tree.frame = 5;
  const TreeOutcome no_frame = TreeOfFile(request);
  ASSERT_TRUE(no_frame.failure);
  EXPECT_EQ(no_frame.failure->kind, FailureKind::kUsage);

  request.file = request.file + ".missing";
  const TreeOutcome missing = TreeOfFile(request);
  ASSERT_TRUE(missing.failure);
  EXPECT_EQ(missing.failure->kind, FailureKind::kIo);
}

TEST_F(ViewFilesTest, TreeOfADamagedFileHoldsTheDamageAsItsWarning) {
  TreeRequest request;
  request.file = Write(TwoFrames(), "cut.ptape", 3);
  const TreeOutcome tree = TreeOfFile(request);
  ASSERT_FALSE(tree.failure) << tree.failure->message;
  ASSERT_EQ(tree.notes.damages.size(), 1u);
  EXPECT_EQ(tree.notes.damages[0].kind, FailureKind::kTruncated);
  EXPECT_EQ(tree.notes.damages[0].message,
            tree.report.warning() + " (the frames before the damage are used)");
}

TEST_F(ViewFilesTest, ShowFileReportsTheFileAndItsSelections) {
  ProcessFilter filter;
  filter.comm = "init";
  const ShowOutcome show = ShowFile(Write(TwoFrames(), "two.ptape"), filter);
  ASSERT_FALSE(show.unread);
  EXPECT_EQ(show.report.frames_size(), 2);
  EXPECT_EQ(show.report.selected(), 1u);
  EXPECT_EQ(show.selections(1).processes_size(), 1);
  EXPECT_FALSE(show.damage);
  EXPECT_FALSE(show.nothing_selected);

  filter.comm = "absent";
  const ShowOutcome none = ShowFile(Write(TwoFrames(), "none.ptape", 3), filter);
  ASSERT_TRUE(none.nothing_selected);
  EXPECT_EQ(none.nothing_selected->kind, FailureKind::kNotFound);
  ASSERT_TRUE(none.damage);
  EXPECT_EQ(none.damage->kind, FailureKind::kTruncated);
}

TEST_F(ViewFilesTest, ShowFileOfAFileThatCannotBeReadIsItsErrorAlone) {
  const ShowOutcome show = ShowFile("/nonexistent/x.ptape", {});
  ASSERT_TRUE(show.unread);
  EXPECT_EQ(show.report.file(), "/nonexistent/x.ptape");
  EXPECT_EQ(show.report.error_kind(), "io");
  ASSERT_TRUE(show.damage);
  EXPECT_EQ(show.damage->kind, FailureKind::kIo);
}

}  // namespace
}  // namespace proctape
