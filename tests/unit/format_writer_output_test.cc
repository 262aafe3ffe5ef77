// SPDX-License-Identifier: Apache-2.0
// format/writer.h, the output path handled safely: symbolic links, existing
// files, the temporary until Finish, standard output and input for "-", and a
// writer that fails or is dropped leaving nothing.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "fs/output_file.h"
#include "format/reader.h"
#include "format/writer.h"
#include "proctape.pb.h"
#include "tests/unit/format_writer_fixture.h"

namespace proctape {
namespace {

using namespace test;  // FormatWriterTest, Exists, Names, Slurp, Spit, the sample snapshot

TEST_F(FormatWriterTest, SymlinkOutputIsRefusedAndItsTargetUntouched) {
  const std::string target = Path("precious");
  const std::string link = Path("out.ptape");
  Spit(target, "keep me");
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  for (bool force : {false, true}) {
    Failure failure;
    SnapshotWriter::Options options;
    options.force = force;
    EXPECT_FALSE(SnapshotWriter::Create(link, options, &failure));
    EXPECT_EQ(failure.kind, FailureKind::kIo);
    EXPECT_NE(failure.message.find("symbolic link"), std::string::npos) << failure.message;
  }
  EXPECT_EQ(Slurp(target), "keep me");
  EXPECT_EQ(Names(dir_), (std::vector<std::string>{"out.ptape", "precious"}));

  // A dangling link is refused too (nothing created at its target).
  const std::string dangling = Path("dangling.ptape");
  ASSERT_EQ(::symlink(Path("nowhere").c_str(), dangling.c_str()), 0);
  Failure failure;
  EXPECT_FALSE(SnapshotWriter::Create(dangling, {}, &failure));
  EXPECT_FALSE(Exists(Path("nowhere")));
}

TEST_F(FormatWriterTest, StaleTemporariesDoNotBlockAndAreNeverFollowed) {
  // What earlier runs left: an old-style NAME.partial (a link to a file that
  // must survive) and a temporary of this rule. Neither blocks, neither is
  // written, removed or followed.
  const std::string target = Path("precious");
  const std::string path = Path("out.ptape");
  Spit(target, "keep me");
  ASSERT_EQ(::symlink(target.c_str(), (path + ".partial").c_str()), 0);
  Spit(path + ".k1ll3d.partial", "left by a killed capture");
  Failure failure;
  auto w = SnapshotWriter::Create(path, {}, &failure);
  ASSERT_TRUE(w) << failure.message;
  ASSERT_TRUE(w->WriteHeader(SampleHeader()));
  ASSERT_TRUE(w->Finish({})) << w->error();
  EXPECT_EQ(Slurp(target), "keep me");
  EXPECT_EQ(Slurp(path + ".k1ll3d.partial"), "left by a killed capture");
  Snapshot s;
  EXPECT_TRUE(ReadSnapshot(path, &s).ok());
  EXPECT_EQ(Names(dir_), (std::vector<std::string>{"out.ptape", "out.ptape.k1ll3d.partial",
                                                   "out.ptape.partial", "precious"}));
}

TEST_F(FormatWriterTest, ExistingFileIsReplacedOnlyWithForce) {
  const std::string path = Path("out.ptape");
  Spit(path, "an older capture");
  Failure failure;
  EXPECT_FALSE(SnapshotWriter::Create(path, {}, &failure));
  EXPECT_EQ(failure.kind, FailureKind::kIo);
  EXPECT_NE(failure.message.find("exists"), std::string::npos) << failure.message;
  EXPECT_NE(failure.message.find("--force"), std::string::npos) << failure.message;
  EXPECT_EQ(Slurp(path), "an older capture");
  EXPECT_EQ(Names(dir_), std::vector<std::string>{"out.ptape"});

  SnapshotWriter::Options options;
  options.force = true;
  auto w = SnapshotWriter::Create(path, options, &failure);
  ASSERT_TRUE(w) << failure.message;
  // Until Finish, the old file is still there.
  ASSERT_TRUE(w->WriteHeader(SampleHeader()));
  EXPECT_EQ(Slurp(path), "an older capture");
  ASSERT_TRUE(w->Finish({})) << w->error();
  Snapshot s;
  FormatError e = ReadSnapshot(path, &s);
  EXPECT_TRUE(e.ok()) << e.message;
  EXPECT_EQ(Names(dir_), std::vector<std::string>{"out.ptape"});
}

TEST_F(FormatWriterTest, FileAppearingDuringTheCaptureIsNotReplacedWithoutForce) {
  const std::string path = Path("out.ptape");
  Failure failure;
  auto w = SnapshotWriter::Create(path, {}, &failure);
  ASSERT_TRUE(w) << failure.message;
  ASSERT_TRUE(w->WriteHeader(SampleHeader()));
  Spit(path, "written meanwhile");
  EXPECT_FALSE(w->Finish({}));
  EXPECT_NE(w->error().find("appeared while it was being written"), std::string::npos)
      << w->error();
  EXPECT_EQ(Slurp(path), "written meanwhile");
  EXPECT_EQ(Names(dir_), std::vector<std::string>{"out.ptape"}) << "nothing is left behind";
}

TEST_F(FormatWriterTest, TemporaryUntilFinishThenRenamed) {
  const std::string path = Path("out.ptape");
  Failure failure;
  auto w = SnapshotWriter::Create(path, {}, &failure);
  ASSERT_TRUE(w) << failure.message;
  // NAME.XXXXXX.partial beside NAME: a new name for each writer.
  const std::string partial = w->temporary();
  EXPECT_EQ(partial.substr(0, dir_.size() + 1), dir_ + "/");
  EXPECT_TRUE(IsTemporaryOf(partial.substr(dir_.size() + 1), "out.ptape")) << partial;
  auto other = SnapshotWriter::Create(Path("out.ptape"), {}, &failure);
  ASSERT_TRUE(other) << failure.message;
  EXPECT_NE(other->temporary(), partial);
  other.reset();
  EXPECT_TRUE(Exists(partial));
  EXPECT_FALSE(Exists(path));
  ASSERT_TRUE(w->WriteHeader(SampleHeader()));
  w->BeginFrame(0, 1);
  for (v1::ProcessRecord p : SampleProcesses()) ASSERT_TRUE(w->AddProcess(std::move(p)));
  ASSERT_TRUE(w->EndFrame(2, "", 3));
  // Each chunk is on disk as soon as it is complete.
  EXPECT_EQ(std::filesystem::file_size(partial), w->bytes_written());
  EXPECT_TRUE(Exists(partial));
  EXPECT_FALSE(Exists(path));
  Snapshot s;
  FormatError e = ReadSnapshot(partial, &s);
  EXPECT_EQ(e.kind, FormatErrorKind::kTruncated) << e.message;
  EXPECT_EQ(s.chunks, 2u);
  ASSERT_EQ(s.frames.size(), 1u);
  EXPECT_EQ(static_cast<std::size_t>(s.frames[0].processes_size()), SampleProcesses().size());

  ASSERT_TRUE(w->Finish({})) << w->error();
  EXPECT_FALSE(Exists(partial));
  EXPECT_TRUE(Exists(path));
  e = ReadSnapshot(path, &s);
  EXPECT_TRUE(e.ok()) << e.message;
  EXPECT_EQ(Names(dir_), std::vector<std::string>{"out.ptape"});
}

TEST_F(FormatWriterTest, AWriterThatFailsOrIsDroppedUnfinishedLeavesNothing) {
  Failure failure;
  {
    auto w = SnapshotWriter::Create(Path("dropped.ptape"), {}, &failure);
    ASSERT_TRUE(w) << failure.message;
    ASSERT_TRUE(w->WriteHeader(SampleHeader()));
  }
  {
    auto w = SnapshotWriter::Create(Path("failed.ptape"), {}, &failure);
    ASSERT_TRUE(w) << failure.message;
    EXPECT_FALSE(w->AddObservation(v1::Observation()));  // before the header: breaks a rule
    EXPECT_FALSE(w->Finish({}));
  }
  EXPECT_EQ(Names(dir_), std::vector<std::string>{});
}

TEST_F(FormatWriterTest, AbandonLeavesWhatSigkillWouldLeave) {
  Failure failure;
  auto w = SnapshotWriter::Create(Path("killed.ptape"), {}, &failure);
  ASSERT_TRUE(w) << failure.message;
  ASSERT_TRUE(w->WriteHeader(SampleHeader()));
  const std::string partial = w->Abandon();
  EXPECT_EQ(partial, w->temporary());
  w.reset();
  Snapshot s;
  FormatError e = ReadSnapshot(partial, &s);
  EXPECT_EQ(e.kind, FormatErrorKind::kTruncated) << e.message;
  EXPECT_EQ(s.chunks, 1u);
}

// Redirects a standard descriptor to `fd` for the lifetime of the object.
class Redirect {
 public:
  Redirect(int target, int fd) : target_(target), saved_(::dup(target)) {
    std::fflush(stdout);
    ::dup2(fd, target_);
  }
  ~Redirect() {
    ::dup2(saved_, target_);
    ::close(saved_);
  }

 private:
  int target_;
  int saved_;
};

std::string Drain(int fd) {
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  return out;
}

TEST_F(FormatWriterTest, DashWritesToStandardOutputAndReadsFromStandardInput) {
  // The capture is far below a pipe's buffer, so one process does both ends.
  int out_pipe[2];
  ASSERT_EQ(::pipe(out_pipe), 0);
  bool created = false, finished = false;
  Failure failure;
  std::string error;
  std::uint64_t written = 0;
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir_);  // so that a stray "-.partial" would show
  {
    Redirect redirect(STDOUT_FILENO, out_pipe[1]);
    auto w = SnapshotWriter::Create("-", {}, &failure);
    created = w != nullptr;
    if (w) {
      w->WriteHeader(SampleHeader());
      w->BeginFrame(0, 1);
      w->AddProcess(v1::ProcessRecord(SampleProcesses()[0]));
      w->EndFrame(2, "", 3);
      finished = w->Finish({});
      written = w->bytes_written();
      error = w->error();
    }
  }
  std::filesystem::current_path(cwd);
  ::close(out_pipe[1]);
  ASSERT_TRUE(created) << failure.message;
  ASSERT_TRUE(finished) << error;
  const std::string bytes = Drain(out_pipe[0]);
  ::close(out_pipe[0]);
  EXPECT_EQ(bytes.size(), written);
  EXPECT_TRUE(std::filesystem::is_empty(dir_));
  // Standard output is left open for the rest of the program.
  EXPECT_NE(::fcntl(STDOUT_FILENO, F_GETFD), -1);

  // Read back through "-" (standard input, a pipe: size unknown).
  int in_pipe[2];
  ASSERT_EQ(::pipe(in_pipe), 0);
  ASSERT_EQ(::write(in_pipe[1], bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  ::close(in_pipe[1]);
  Snapshot s;
  FormatError e;
  {
    Redirect redirect(STDIN_FILENO, in_pipe[0]);
    e = ReadSnapshot("-", &s);
  }
  ::close(in_pipe[0]);
  ASSERT_TRUE(e.ok()) << e.message;
  ASSERT_EQ(s.frames.size(), 1u);
  EXPECT_TRUE(Same(SampleProcesses()[0], s.frames[0].processes(0)));
  EXPECT_TRUE(Same(SampleHeader(), s.header));
}

TEST_F(FormatWriterTest, CallsAfterAFailureDoNothing) {
  const std::string path = Path("out.ptape");
  Failure failure;
  auto w = SnapshotWriter::Create(path, {}, &failure);
  ASSERT_TRUE(w) << failure.message;
  ASSERT_TRUE(w->WriteHeader(SampleHeader()));
  EXPECT_FALSE(w->EndFrame(1, "", 0));  // no frame open
  EXPECT_NE(w->error().find("outside a frame"), std::string::npos);
  const std::uint64_t bytes = w->bytes_written();
  EXPECT_FALSE(w->WriteHeader(SampleHeader()));
  EXPECT_FALSE(w->Finish({}));
  EXPECT_EQ(w->bytes_written(), bytes);
  EXPECT_FALSE(Exists(path));
}

TEST_F(FormatWriterTest, FinishInsideAnOpenFrameFails) {
  const std::string path = Path("out.ptape");
  Failure failure;
  auto w = SnapshotWriter::Create(path, {}, &failure);
  ASSERT_TRUE(w) << failure.message;
  ASSERT_TRUE(w->WriteHeader(SampleHeader()));
  w->BeginFrame(0, 0);
  EXPECT_FALSE(w->Finish({}));
  EXPECT_NE(w->error().find("open frame"), std::string::npos) << w->error();
  EXPECT_FALSE(Exists(path));
}

}  // namespace
}  // namespace proctape
