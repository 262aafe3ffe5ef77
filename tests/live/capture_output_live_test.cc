// SPDX-License-Identifier: Apache-2.0
// `proctape capture` on the real host (`docs/cli/outputs.md`): where a capture
// goes. A capture killed by SIGKILL leaves a readable .partial; an existing
// file is not overwritten without --force; a symbolic link is refused even
// with it; -o - writes a readable file to standard output. Every process a
// test starts is ended by its pid.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

#include "tests/live/build_paths.h"
#include "format/file_format.h"
#include "format/reader.h"
#include "tests/live/capture_live_fixture.h"
#include "tests/live/complete_frames.h"
#include "tests/live/files.h"
#include "tests/live/sandbox.h"

namespace proctape {
namespace {

using live::CommandResult;
using live::DecompressedChunks;
using live::Exists;
using live::FileBytes;
using live::FindRecord;
using live::OneLine;
using live::TempDir;
using live::TemporariesOf;
using live::WriteFile;
// capture_live_fixture.h, complete_frames.h
using live::CompleteFrames;
using live::Explain;

using live::Proctape;

// A direct child running proctape, killed and reaped by its pid.
class Capturer {
 public:
  explicit Capturer(const std::vector<std::string>& args) {
    std::vector<std::string> argv = args;
    argv.insert(argv.begin(), ::proctape::live::TestedBinary());
    pid_ = live::SpawnChild(argv, -1, -1, &error_);
  }
  ~Capturer() { KillAndReap(); }
  pid_t pid() const { return pid_; }
  const std::string& error() const { return error_; }
  // SIGKILL (ours and unreaped, so the pid is exact), then waitpid. Returns
  // the wait status.
  int KillAndReap() {
    if (pid_ <= 0) return status_;
    ::kill(pid_, SIGKILL);
    while (::waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    return status_;
  }

 private:
  pid_t pid_ = -1;
  int status_ = 0;
  std::string error_;
};

TEST(CaptureLive, ACaptureKilledBySigkillLeavesAReadablePartial) {
  TempDir dir;
  const std::string file = dir.File("killed.ptape");
  Capturer capturer({"capture", "-o", file, "--frames", "50", "--interval", "50"});
  ASSERT_GT(capturer.pid(), 0) << capturer.error();
  // The temporary beside the file, killed.ptape.XXXXXX.partial (made before
  // the first frame), and at least one frame complete in it (a whole-host
  // scan of a busy host can take longer than 0.5 s); bounded at 60 s.
  std::string partial;
  for (int i = 0; i < 6000; ++i) {
    std::vector<std::string> temporaries = TemporariesOf(dir.path(), "killed.ptape");
    if (temporaries.size() == 1) partial = dir.File(temporaries[0]);
    if (!partial.empty() && CompleteFrames(partial) >= 1) break;
    ::usleep(10'000);
  }
  int status = capturer.KillAndReap();
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
      << "the capture ended before it was killed: status " << status;

  EXPECT_FALSE(Exists(file)) << "a killed capture must not have its final name";
  ASSERT_TRUE(Exists(partial));
  Snapshot snap;
  FormatError err = ReadSnapshot(partial, &snap);
  EXPECT_EQ(err.kind, FormatErrorKind::kTruncated)
      << FormatErrorName(err.kind) << ": " << err.message;
  EXPECT_NE(err.message.find("truncated"), std::string::npos) << err.message;
  EXPECT_EQ(err.message.find('\n'), std::string::npos) << err.message;
  EXPECT_FALSE(snap.footer.has_value());
  EXPECT_EQ(snap.header.format_version(), kFormatVersion);
  ASSERT_GE(snap.frames.size(), 1u);
  EXPECT_GT(snap.frames[0].processes_size(), 0);
  EXPECT_EQ(snap.frames[0].index(), 0u);

  // Every complete chunk reads back: the chunk reader gets exactly as many
  // chunks as the snapshot reader did, then either a clean chunk boundary
  // (killed between chunks: only the footer is missing) or the same cut.
  FormatError chunk_err;
  std::vector<std::string> chunks = DecompressedChunks(partial, &chunk_err);
  EXPECT_TRUE(chunk_err.ok() || chunk_err.kind == FormatErrorKind::kTruncated)
      << FormatErrorName(chunk_err.kind) << ": " << chunk_err.message;
  EXPECT_EQ(chunks.size(), snap.chunks);
  EXPECT_GE(chunks.size(), 2u);  // the header and at least one frame
}

TEST(CaptureLive, AnExistingFileIsNotOverwrittenWithoutForce) {
  TempDir dir;
  const std::string file = dir.File("precious.ptape");
  WriteFile(file, "precious bytes\n");
  CommandResult r = Proctape({"capture", "-o", file});
  EXPECT_EQ(r.exit_code, 10) << Explain(r);
  EXPECT_TRUE(OneLine(r.err)) << r.err;
  EXPECT_EQ(r.err.rfind("proctape: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(file), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--force"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(FileBytes(file), "precious bytes\n");
  EXPECT_FALSE(Exists(file + ".partial"));

  CommandResult forced =
      Proctape({"capture", "-o", file, "--force", "--root", std::to_string(::getpid())});
  ASSERT_EQ(forced.exit_code, 0) << Explain(forced);
  Snapshot snap;
  EXPECT_TRUE(ReadSnapshot(file, &snap).ok());
}

TEST(CaptureLive, ASymbolicLinkIsRefusedEvenWithForce) {
  TempDir dir;
  const std::string target = dir.File("target");
  const std::string link = dir.File("link.ptape");
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  // A dangling link: following it would create the target.
  CommandResult r = Proctape({"capture", "-o", link});
  EXPECT_EQ(r.exit_code, 10) << Explain(r);
  EXPECT_TRUE(OneLine(r.err)) << r.err;
  EXPECT_NE(r.err.find("symbolic link"), std::string::npos) << r.err;
  EXPECT_FALSE(Exists(target));
  // A link to an existing file, with --force: still refused, target untouched.
  WriteFile(target, "target bytes");
  CommandResult forced = Proctape({"capture", "-o", link, "--force"});
  EXPECT_EQ(forced.exit_code, 10) << Explain(forced);
  EXPECT_TRUE(OneLine(forced.err)) << forced.err;
  EXPECT_EQ(FileBytes(target), "target bytes");
  struct stat st;
  ASSERT_EQ(::lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_FALSE(Exists(link + ".partial"));
}

TEST(CaptureLive, DashWritesAReadableFileToStandardOutput) {
  TempDir dir;
  CommandResult r = Proctape({"capture", "-o", "-", "--root", std::to_string(::getpid())});
  ASSERT_EQ(r.exit_code, 0) << Explain(r);
  // The summary goes to standard error, so standard output is the file alone.
  EXPECT_EQ(r.err.rfind("wrote standard output: 1 frame, ", 0), 0u) << r.err;
  const std::string file = dir.File("from-stdout.ptape");
  WriteFile(file, r.out);
  Snapshot snap;
  FormatError err = ReadSnapshot(file, &snap);
  ASSERT_TRUE(err.ok()) << err.message;
  ASSERT_TRUE(snap.footer.has_value());
  ASSERT_EQ(snap.frames.size(), 1u);
  EXPECT_NE(FindRecord(snap.frames[0], ::getpid()), nullptr);
}

}  // namespace
}  // namespace proctape
