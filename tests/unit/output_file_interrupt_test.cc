// SPDX-License-Identifier: Apache-2.0
// fs/interrupt.h with fs/output_file.h: an interrupt removes every
// temporary and ends by the signal, after the hooks; deferring notes the first
// signal and wakes the sleep; an ignored signal stays ignored (the rule of
// docs/cli/outputs.md). The tests fork: the signal ends the child, never this
// test binary.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

#include "fs/interrupt.h"
#include "fs/output_file.h"
#include "tests/unit/format_bytes.h"
#include "tests/unit/failure_text.h"
#include "tests/unit/output_file_fixture.h"

namespace proctape {
namespace {

using namespace test;  // OutputFileTest, FileAt, Slurp, Spit

// Runs `child` in a forked child and returns its wait status.
template <typename F>
int InChild(F child) {
  pid_t pid = ::fork();
  if (pid == 0) {
    // An ignored signal at its default, whatever the test runner inherited
    // (one started in a shell's background ignores SIGINT). A handled one
    // is left as it is: proctape's handler, installed once per process
    // (fs/interrupt.h) by an earlier test of this runner, is what this
    // child would install; reset to the default, it stayed unset here.
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction now {};
      if (::sigaction(sig, nullptr, &now) == 0 && now.sa_handler == SIG_IGN) ::signal(sig, SIG_DFL);
    }
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
    Failure error;
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
    Failure error;
    auto out = OutputFile::Open(FileAt(dir + "/out"), &error);
    if (!out) ::_exit(3);
    ::raise(SIGINT);
    if (Interrupted() != SIGINT) ::_exit(4);
    struct timespec now;
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    // An hour away: returns at once, the interrupt noted.
    const std::int64_t later = (static_cast<std::int64_t>(now.tv_sec) + 3600) * 1'000'000'000;
    if (SleepUntilOrInterrupted(later)) ::_exit(5);
    if (out->WriteAndCommit("done")) ::_exit(6);
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
    Failure error;
    auto out = OutputFile::Open(FileAt(dir + "/out"), &error);
    if (!out) ::_exit(3);
    ::raise(SIGHUP);
    if (out->Commit()) ::_exit(4);
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
