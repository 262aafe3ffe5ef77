// SPDX-License-Identifier: Apache-2.0
// The command line's contract for progress (docs/cli/commands.md), tested
// from the built binary: a line on a terminal only, cleared when done.
#include <gtest/gtest.h>
#include <pty.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <string>
#include <vector>

#include "tests/live/cli_contract.h"
#include "tests/live/commands_fixture.h"
#include "tests/live/files.h"
#include "tests/live/sandbox.h"
#include "tests/live/build_paths.h"

namespace proctape::live {
namespace {

// Runs the binary with its standard error on a pseudo-terminal (standard
// output on a pipe), as a person at a terminal sees it. The child is ours:
// reaped here; killed by its pid if it outlives `timeout_ms`.
CommandResult ProctapeOnTerminal(std::vector<std::string> args, int timeout_ms = 120'000) {
  args.insert(args.begin(), ::proctape::live::TestedBinary());
  CommandResult result;
  int master = -1, slave = -1;
  struct winsize ws {};
  ws.ws_col = 100;
  ws.ws_row = 40;
  if (::openpty(&master, &slave, nullptr, nullptr, &ws) != 0) {
    result.error = "openpty failed";
    return result;
  }
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) {
    result.error = "pipe failed";
    ::close(master);
    ::close(slave);
    return result;
  }
  pid_t pid = live::SpawnChild(args, out[1], slave, &result.error);
  ::close(out[1]);
  ::close(slave);
  if (pid < 0) {
    ::close(out[0]);
    ::close(master);
    return result;
  }
  result.started = true;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  struct pollfd fds[2] = {{out[0], POLLIN, 0}, {master, POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_fds = 2;
  while (open_fds > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      ::kill(pid, SIGKILL);  // our own unreaped child: its pid is still ours
      break;
    }
    int n = ::poll(fds, 2, static_cast<int>(left.count()));
    if (n <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buf[4096];
      ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {  // EOF on the pipe; EIO on the master once the child is gone
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
        continue;
      }
      sinks[i]->append(buf, static_cast<std::size_t>(got));
    }
  }
  for (struct pollfd& f : fds) {
    if (f.fd >= 0) ::close(f.fd);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.term_signal = WTERMSIG(status);
  return result;
}

constexpr char kClear[] = "\r\033[K";

// ---- Progress ----------------------------------------------------------------

// Every command that can take over a second shows where it is on a terminal,
// on one line that it clears when done; nothing before the work has taken
// half a second (cli/progress.h), so a fast command prints no line at all.
TEST(ProgressCli, AFastCommandOnATerminalPrintsNoProgressLine) {
  TempDir dir("progress");
  CommandResult r =
      ProctapeOnTerminal({"export", kPidReuse, "--format", "json", "--out", dir.File("x.json")});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.err, "") << "a fast export shows no progress line: " << Describe(r);
  EXPECT_TRUE(live::StartsWith(r.out, "wrote ")) << Describe(r);
  r = ProctapeOnTerminal({"capture", "-o", dir.File("one.ptape"), "--threads", "1"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.err, "") << "a one-frame capture shows no progress line: " << Describe(r);
}

// Twelve frames 100 ms apart take over a second: the line is shown, and
// cleared instead of left behind.
TEST(ProgressCli, ASlowMultiFrameCaptureShowsItsLineAndClearsIt) {
  TempDir dir("progress");
  CommandResult r = ProctapeOnTerminal({"capture", "-o", dir.File("x.ptape"), "--frames", "12",
                                        "--interval", "100", "--threads", "1"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.err.find("/12"), std::string::npos) << r.err;
  ASSERT_GE(r.err.size(), 4u) << r.err;
  EXPECT_EQ(r.err.substr(r.err.size() - 4), kClear) << "the line is left behind: " << r.err;
  EXPECT_EQ(r.err.find('\n'), std::string::npos) << r.err;
}

// Silent otherwise: a pipe, a file or a CI log sees nothing of it.
TEST(ProgressCli, NothingWhenStandardErrorIsNotATerminal) {
  TempDir dir("progress");
  for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
           {"export", kPidReuse, "--format", "json", "--out", dir.File("x.json")},
           {"capture", "-o", dir.File("x.ptape"), "--frames", "2", "--interval", "0"},
           {"corpus", "check", kSource + "/corpus", "--jobs", "1"}}) {
    CommandResult r = Proctape(args);
    EXPECT_EQ(r.exit_code, 0) << args[0] << ": " << Describe(r);
    EXPECT_EQ(r.err, "") << args[0] << ": " << Describe(r);
  }
}

// A resolve that retries until its deadline says so on a terminal, and
// clears the line before its verdict; its recording is the same with or
// without anyone watching (the progress reads the CLI's own clock, never the
// evidence): the recording replays.
TEST(ProgressCli, ResolveShowsItsRetriesOnATerminal) {
  TempDir dir("progress");
  const std::string token = live::RandomHex(16);
  CommandResult r =
      ProctapeOnTerminal({"resolve", "--root", std::to_string(::getpid()), "--token", token,
                          "--deadline-ms", "2000", "--record", dir.File("r.ptape")});
  EXPECT_EQ(r.exit_code, 5) << Describe(r);  // NO_MATCH: nothing carries the token
  EXPECT_NE(r.err.find(kClear + std::string("resolve: nothing matches yet after ")),
            std::string::npos)
      << Describe(r);
  EXPECT_NE(r.err.find(kClear + std::string("proctape: warning: ")), std::string::npos)
      << "the line is cleared before the warning: " << Describe(r);
  CommandResult replay = Proctape({"replay", dir.File("r.ptape")});
  EXPECT_EQ(replay.exit_code, 0) << Describe(replay);
}

}  // namespace
}  // namespace proctape::live
