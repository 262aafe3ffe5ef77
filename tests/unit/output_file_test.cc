// format/output_file.h and format/interrupt.h: the one rule for every file
// proctape writes (docs/cli/outputs.md), one test per rule. The interrupt
// tests fork: the signal ends the child, never this test binary.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "format/interrupt.h"
#include "format/output_file.h"

namespace proctape {
namespace {

class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = "/tmp/proctape-output-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  std::vector<std::string> Names(const std::string& sub = "") const {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(sub.empty() ? dir_ : Path(sub))) {
      out.push_back(e.path().filename().string());
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  // Opens `path` as a file output; the refusal in *error.
  std::unique_ptr<OutputFile> Open(const std::string& path, bool force, OutputError* error,
                                   bool stdout_allowed = false) {
    OutputRequest request;
    request.path = path;
    request.force = force;
    request.stdout_allowed = stdout_allowed;
    return OutputFile::Open(request, error);
  }
  std::unique_ptr<OutputFile> OpenDirectory(const std::string& path, bool force,
                                            OutputError* error) {
    OutputRequest request;
    request.path = path;
    request.force = force;
    request.directory = true;
    request.directory_marker = "marker";
    return OutputFile::Open(request, error);
  }

  std::string dir_;
};

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void Spit(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

OutputRequest FileAt(const std::string& path) {
  OutputRequest request;
  request.path = path;
  return request;
}

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// ---- Checked before any work --------------------------------------------------

TEST_F(OutputFileTest, AnEmptyPathIsAUsageError) {
  OutputError error;
  EXPECT_FALSE(Open("", true, &error, true));
  EXPECT_TRUE(error.usage);
  EXPECT_EQ(error.message, "an empty path names no file");
}

TEST_F(OutputFileTest, DashIsStandardOutputOnlyWhereTheCommandAllowsIt) {
  OutputError error;
  EXPECT_FALSE(Open("-", false, &error, false));
  EXPECT_TRUE(error.usage);
  EXPECT_TRUE(Has(error.message, "standard output")) << error.message;
  std::unique_ptr<OutputFile> out = Open("-", false, &error, true);
  ASSERT_TRUE(out) << error.message;
  EXPECT_TRUE(out->is_stdout());
  EXPECT_EQ(out->fd(), STDOUT_FILENO);
  EXPECT_EQ(out->temporary(), "");
  EXPECT_EQ(out->shown(), "standard output");
  EXPECT_TRUE(Names().empty());
}

TEST_F(OutputFileTest, AMissingDirectoryIsRefusedNamingIt) {
  OutputError error;
  EXPECT_FALSE(Open(Path("nope/out.ptape"), true, &error));
  EXPECT_FALSE(error.usage);
  EXPECT_EQ(error.message, "cannot write " + Path("nope/out.ptape") + ": its directory " +
                               Path("nope") + " does not exist");
  Spit(Path("file"), "x");
  EXPECT_FALSE(Open(Path("file/out.ptape"), true, &error));
  EXPECT_TRUE(Has(error.message, Path("file") + " is not a directory")) << error.message;
  EXPECT_EQ(Names(), std::vector<std::string>{"file"});
}

TEST_F(OutputFileTest, ASymbolicLinkIsRefusedEvenWithForceAndItsTargetUntouched) {
  Spit(Path("precious"), "keep me");
  ASSERT_EQ(::symlink(Path("precious").c_str(), Path("link").c_str()), 0);
  ASSERT_EQ(::symlink(Path("nowhere").c_str(), Path("dangling").c_str()), 0);
  for (const char* name : {"link", "dangling"}) {
    for (bool force : {false, true}) {
      OutputError error;
      EXPECT_FALSE(Open(Path(name), force, &error));
      EXPECT_EQ(error.message, Path(name) + " is a symbolic link: refused, --force or not (a "
                                            "link's target is never written)");
    }
  }
  EXPECT_EQ(Slurp(Path("precious")), "keep me");
  EXPECT_EQ(Names(), (std::vector<std::string>{"dangling", "link", "precious"}));
}

TEST_F(OutputFileTest, ADirectoryOrADeviceIsRefusedEvenWithForce) {
  ASSERT_EQ(::mkdir(Path("d").c_str(), 0755), 0);
  OutputError error;
  EXPECT_FALSE(Open(Path("d"), true, &error));
  EXPECT_EQ(error.message, Path("d") + " is a directory: refused, --force or not (name a file)");
  EXPECT_FALSE(Open(Path("d/"), true, &error));
  EXPECT_TRUE(Has(error.message, "names a directory")) << error.message;
  // Never replaced by a rename: checked before a temporary is made in /dev.
  EXPECT_FALSE(Open("/dev/null", true, &error));
  EXPECT_TRUE(Has(error.message, "/dev/null is not a regular file")) << error.message;
  EXPECT_EQ(Names(), std::vector<std::string>{"d"});
}

TEST_F(OutputFileTest, AnExistingFileNeedsForce) {
  Spit(Path("out"), "older");
  OutputError error;
  EXPECT_FALSE(Open(Path("out"), false, &error));
  EXPECT_EQ(error.message, Path("out") + " exists: refused (use --force to replace it)");
  EXPECT_EQ(Names(), std::vector<std::string>{"out"});
  std::unique_ptr<OutputFile> out = Open(Path("out"), true, &error);
  ASSERT_TRUE(out) << error.message;
  std::string why;
  ASSERT_TRUE(out->Write("newer", &why)) << why;
  EXPECT_EQ(Slurp(Path("out")), "older");  // until the commit
  ASSERT_TRUE(out->Commit(&why)) << why;
  EXPECT_EQ(Slurp(Path("out")), "newer");
  EXPECT_EQ(Names(), std::vector<std::string>{"out"});
}

// ---- A temporary beside it, new for each run -----------------------------------

TEST_F(OutputFileTest, TheTemporaryIsMadeAtOnceBesideTheOutputWithANewName) {
  OutputError error;
  std::unique_ptr<OutputFile> a = Open(Path("out.ptape"), false, &error);
  ASSERT_TRUE(a) << error.message;
  std::unique_ptr<OutputFile> b = Open(Path("out.ptape"), false, &error);
  ASSERT_TRUE(b) << error.message;
  std::vector<std::string> names = Names();
  ASSERT_EQ(names.size(), 2u);
  for (const std::string& name : names) {
    EXPECT_TRUE(IsTemporaryOf(name, "out.ptape")) << name;
    EXPECT_TRUE(Path(name) == a->temporary() || Path(name) == b->temporary()) << name;
  }
  EXPECT_NE(a->temporary(), b->temporary());
}

TEST_F(OutputFileTest, TemporariesLeftByEarlierRunsBlockNothingAndAreLeftAlone) {
  Spit(Path("out.ptape.partial"), "an older proctape's");
  Spit(Path("out.ptape.zzzzzz.partial"), "killed");
  OutputError error;
  std::unique_ptr<OutputFile> out = Open(Path("out.ptape"), false, &error);
  ASSERT_TRUE(out) << error.message;
  std::string why;
  ASSERT_TRUE(out->Write("new", &why) && out->Commit(&why)) << why;
  EXPECT_EQ(Names(), (std::vector<std::string>{"out.ptape", "out.ptape.partial",
                                               "out.ptape.zzzzzz.partial"}));
  EXPECT_EQ(Slurp(Path("out.ptape.zzzzzz.partial")), "killed");
}

TEST_F(OutputFileTest, ALongNameKeepsItsTemporaryWithinNameMax) {
  const std::string base(255, 'n');
  OutputError error;
  std::unique_ptr<OutputFile> out = Open(Path(base), false, &error);
  ASSERT_TRUE(out) << error.message;
  const std::string name = out->temporary().substr(dir_.size() + 1);
  EXPECT_LE(name.size(), 255u);
  EXPECT_TRUE(IsTemporaryOf(name, base)) << name;
  std::string why;
  ASSERT_TRUE(out->Commit(&why)) << why;
  EXPECT_EQ(Names(), std::vector<std::string>{base});
}

TEST_F(OutputFileTest, IsTemporaryOfNamesTheRuleExactly) {
  EXPECT_TRUE(IsTemporaryOf("a.ptape.x1y2z3.partial", "a.ptape"));
  EXPECT_FALSE(IsTemporaryOf("a.ptape.partial", "a.ptape"));
  EXPECT_FALSE(IsTemporaryOf("a.ptape.x1y2z.partial", "a.ptape"));
  EXPECT_FALSE(IsTemporaryOf("a.ptape.X1Y2Z3.partial", "a.ptape"));
  EXPECT_FALSE(IsTemporaryOf("b.ptape.x1y2z3.partial", "a.ptape"));
  EXPECT_FALSE(IsTemporaryOf("a.ptape.x1y2z3.partial2", "a.ptape"));
}

// ---- Commit, and nothing left behind otherwise ---------------------------------

TEST_F(OutputFileTest, NotCommittedLeavesNothing) {
  OutputError error;
  {
    std::unique_ptr<OutputFile> out = Open(Path("out"), false, &error);
    ASSERT_TRUE(out) << error.message;
    std::string why;
    ASSERT_TRUE(out->Write("half", &why)) << why;
  }
  EXPECT_TRUE(Names().empty());
}

TEST_F(OutputFileTest, AFileThatAppearedMeanwhileIsNotReplacedWithoutForce) {
  OutputError error;
  std::unique_ptr<OutputFile> out = Open(Path("out"), false, &error);
  ASSERT_TRUE(out) << error.message;
  Spit(Path("out"), "theirs");
  std::string why;
  EXPECT_FALSE(out->Commit(&why));
  EXPECT_EQ(why, Path("out") + " appeared while it was being written: not replaced without "
                               "--force (nothing was written)");
  EXPECT_EQ(Slurp(Path("out")), "theirs");
  EXPECT_EQ(Names(), std::vector<std::string>{"out"});
}

TEST_F(OutputFileTest, AbandonLeavesTheTemporaryAsSigkillWould) {
  OutputError error;
  std::unique_ptr<OutputFile> out = Open(Path("out"), false, &error);
  ASSERT_TRUE(out) << error.message;
  std::string why;
  ASSERT_TRUE(out->Write("chunks", &why)) << why;
  const std::string left = out->Abandon();
  out.reset();
  EXPECT_EQ(Slurp(left), "chunks");
  EXPECT_FALSE(std::filesystem::exists(Path("out")));
}

TEST_F(OutputFileTest, WriteOutputFileIsTheWholeRuleInOneCall) {
  std::string error;
  ASSERT_TRUE(WriteOutputFile(Path("a"), "one", false, &error)) << error;
  EXPECT_FALSE(WriteOutputFile(Path("a"), "two", false, &error));
  EXPECT_TRUE(Has(error, "exists: refused (use --force")) << error;
  ASSERT_TRUE(WriteOutputFile(Path("a"), "two", true, &error)) << error;
  EXPECT_EQ(Slurp(Path("a")), "two");
  EXPECT_EQ(Names(), std::vector<std::string>{"a"});
}

// ---- A directory output --------------------------------------------------------

TEST_F(OutputFileTest, ADirectoryOutputIsATemporaryDirectoryRenamed) {
  OutputError error;
  std::unique_ptr<OutputFile> out = OpenDirectory(Path("frame0/"), false, &error);
  ASSERT_TRUE(out) << error.message;
  ASSERT_EQ(Names().size(), 1u);
  EXPECT_TRUE(IsTemporaryOf(Names()[0], "frame0")) << Names()[0];
  ASSERT_EQ(::mkdirat(out->fd(), "1", 0755), 0);
  std::string why;
  ASSERT_TRUE(out->Commit(&why)) << why;
  EXPECT_EQ(Names(), std::vector<std::string>{"frame0"});
  EXPECT_EQ(Names("frame0"), std::vector<std::string>{"1"});
}

TEST_F(OutputFileTest, ANonEmptyDirectoryIsReplacedOnlyWhenAnEarlierOutputAndForced) {
  ASSERT_EQ(::mkdir(Path("home").c_str(), 0755), 0);
  Spit(Path("home/notes"), "mine");
  OutputError error;
  for (bool force : {false, true}) {
    EXPECT_FALSE(OpenDirectory(Path("home"), force, &error));
    EXPECT_EQ(error.message, Path("home") + " is a directory that is not an earlier export (it "
                                            "holds no marker): refused, --force or not");
  }
  ASSERT_EQ(::mkdir(Path("old").c_str(), 0755), 0);
  Spit(Path("old/marker"), "");
  Spit(Path("old/stale"), "");
  EXPECT_FALSE(OpenDirectory(Path("old"), false, &error));
  EXPECT_EQ(error.message, Path("old") + " holds an earlier export: refused (use --force to "
                                         "replace it)");
  std::unique_ptr<OutputFile> out = OpenDirectory(Path("old"), true, &error);
  ASSERT_TRUE(out) << error.message;
  ASSERT_EQ(::mkdirat(out->fd(), "new", 0755), 0);
  std::string why;
  ASSERT_TRUE(out->Commit(&why)) << why;
  EXPECT_EQ(Names("old"), std::vector<std::string>{"new"});
  EXPECT_EQ(Names(), (std::vector<std::string>{"home", "old"})) << "the earlier one is removed";
  EXPECT_EQ(Slurp(Path("home/notes")), "mine");
}

TEST_F(OutputFileTest, AnEmptyDirectoryIsReplacedWithoutForce) {
  ASSERT_EQ(::mkdir(Path("empty").c_str(), 0755), 0);
  OutputError error;
  std::unique_ptr<OutputFile> out = OpenDirectory(Path("empty"), false, &error);
  ASSERT_TRUE(out) << error.message;
  std::string why;
  ASSERT_TRUE(out->Commit(&why)) << why;
  EXPECT_EQ(Names(), std::vector<std::string>{"empty"});
}

TEST_F(OutputFileTest, AFailedDirectoryOutputLeavesNothing) {
  OutputError error;
  {
    std::unique_ptr<OutputFile> out = OpenDirectory(Path("d"), false, &error);
    ASSERT_TRUE(out) << error.message;
    ASSERT_EQ(::mkdirat(out->fd(), "1", 0755), 0);
    int fd = ::openat(out->fd(), "1/stat", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0);
    ::close(fd);
  }
  EXPECT_TRUE(Names().empty());
}

// ---- Interrupts ----------------------------------------------------------------

// Runs `child` in a forked child and returns its wait status.
template <typename F>
int InChild(F child) {
  pid_t pid = ::fork();
  if (pid == 0) {
    child();
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

TEST_F(OutputFileTest, AnInterruptRemovesEveryTemporaryAndEndsByTheSignal) {
  const std::string dir = dir_;
  int status = InChild([&dir] {
    OutputError error;
    OutputRequest file = FileAt(dir + "/out.ptape");
    OutputRequest tree = FileAt(dir + "/frame0");
    tree.directory = true;
    auto a = OutputFile::Open(file, &error);
    auto b = OutputFile::Open(tree, &error);
    if (!a || !b) ::_exit(3);
    if (::mkdirat(b->fd(), "1", 0755) != 0) ::_exit(4);
    ::close(::openat(b->fd(), "1/stat", O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
    ::raise(SIGTERM);
    ::_exit(5);  // not reached: the handler re-raises
  });
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
  EXPECT_TRUE(Names().empty());
}

int g_hook_fd = -1;
void HookWritesAByte() {
  ssize_t n = ::write(g_hook_fd, "h", 1);
  (void)n;
}

TEST_F(OutputFileTest, AnInterruptRunsTheHooksFirst) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  int status = InChild([&fds] {
    g_hook_fd = fds[1];
    AddInterruptHook(&HookWritesAByte);
    ::raise(SIGHUP);
  });
  ::close(fds[1]);
  char c = 0;
  EXPECT_EQ(::read(fds[0], &c, 1), 1);
  EXPECT_EQ(c, 'h');
  ::close(fds[0]);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGHUP) << status;
}

TEST_F(OutputFileTest, DeferringNotesTheFirstSignalAndWakesTheSleep) {
  const std::string dir = dir_;
  int status = InChild([&dir] {
    DeferInterrupts();
    OutputError error;
    auto out = OutputFile::Open(FileAt(dir + "/out"), &error);
    if (!out) ::_exit(3);
    ::raise(SIGINT);
    if (Interrupted() != SIGINT) ::_exit(4);
    struct timespec now;
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    // An hour away: returns at once, the interrupt noted.
    const std::int64_t later = (static_cast<std::int64_t>(now.tv_sec) + 3600) * 1'000'000'000;
    if (SleepUntilOrInterrupted(later)) ::_exit(5);
    std::string why;
    if (!out->Write("done", &why) || !out->Commit(&why)) ::_exit(6);
    ::raise(SIGINT);  // the second: acted on
    ::_exit(7);
  });
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT)
      << (WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status)) : "");
  EXPECT_EQ(Names(), std::vector<std::string>{"out"});
  EXPECT_EQ(Slurp(Path("out")), "done");
}

TEST_F(OutputFileTest, ASignalIgnoredWhenTheHandlerComesStaysIgnored) {
  const std::string dir = dir_;
  int status = InChild([&dir] {
    ::signal(SIGHUP, SIG_IGN);  // nohup
    OutputError error;
    auto out = OutputFile::Open(FileAt(dir + "/out"), &error);
    if (!out) ::_exit(3);
    ::raise(SIGHUP);
    std::string why;
    if (!out->Commit(&why)) ::_exit(4);
  });
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(Names(), std::vector<std::string>{"out"});
}

TEST_F(OutputFileTest, RemoveTemporaryAtRemovesATreeAndNeverFollowsALink) {
  Spit(Path("precious"), "keep");
  ASSERT_EQ(::mkdir(Path("t").c_str(), 0755), 0);
  for (int i = 0; i < 300; ++i) Spit(Path("t/f" + std::to_string(i)), "x");
  ASSERT_EQ(::mkdir(Path("t/a").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir(Path("t/a/b").c_str(), 0755), 0);
  Spit(Path("t/a/b/c"), "x");
  ASSERT_EQ(::symlink(dir_.c_str(), Path("t/a/up").c_str()), 0);
  int dir_fd = ::open(dir_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(dir_fd, 0);
  EXPECT_EQ(RemoveTemporaryAt(dir_fd, "t", true), 0);
  EXPECT_EQ(RemoveTemporaryAt(dir_fd, "t", true), ENOENT);
  ::close(dir_fd);
  EXPECT_EQ(Names(), std::vector<std::string>{"precious"});
  EXPECT_EQ(Slurp(Path("precious")), "keep");
}

}  // namespace
}  // namespace proctape
