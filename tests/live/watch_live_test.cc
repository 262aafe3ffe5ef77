// SPDX-License-Identifier: Apache-2.0
// Watching (BENCHMARKS.md, "Watching at 10 ms"): `capture --root PID --interval
// 10 --until-exit` of a PID-namespace sandbox in which a shell forks a child
// that execs, the lab's pre-exec race held open: the child sits between fork
// and exec (a copy of the shell: its comm and cmdline) until the test writes a
// line to its standard input, then execs cat, which holds until the test closes
// that pipe. The test waits, for each state, until /proc shows it and two more
// frames are complete in the capture's temporary, so no 10 ms race decides the
// outcome; it then asserts the file shows the states in order and that the
// frame showing the sandbox exited is the last one.
//
//   test ─┬─ capture --root L --interval 10 --until-exit
//         └─ L: unshare --pid --fork | bwrap --unshare-pid   (our child)
//              └─ sh -c '( read line; exec /bin/cat >/dev/null ); exit 0'
//                   └─ ( subshell: read line ) ─exec→ /bin/cat
//
// Every process is the test's child or the sandbox's (--kill-child,
// --die-with-parent, PR_SET_PDEATHSIG), ended by pid.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <optional>
#include <string>
#include <vector>

#include "capture/procfs_evidence.h"
#include "format/reader.h"
#include "tests/live/build_paths.h"
#include "tests/live/complete_frames.h"
#include "tests/live/files.h"
#include "tests/live/sandbox.h"

namespace proctape::live {
namespace {

const char kScript[] = "( read line; exec /bin/cat >/dev/null ); exit 0";

// Polls `ready` every 5 ms for at most 60 s.
bool WaitFor(const std::function<bool()>& ready) {
  for (int i = 0; i < 12000; ++i) {
    if (ready()) return true;
    ::usleep(5'000);
  }
  return false;
}

// Comm (stat field 2) of a record's stat, as stored.
std::string Comm(const v1::ProcessRecord& r) {
  const std::string& stat = r.stat().data();
  std::size_t open = stat.find('('), close = stat.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return "";
  return stat.substr(open + 1, close - open - 1);
}

char State(const v1::ProcessRecord& r) {
  const std::string& stat = r.stat().data();
  std::size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() ? stat[close + 2] : 0;
}

class WatchSandbox : public ::testing::TestWithParam<SandboxKind> {};

TEST_P(WatchSandbox, UntilExitAtTenMillisecondsShowsThePreExecRaceAndEndsWithTheExit) {
  const SandboxKind kind = GetParam();
  if (std::string why = SandboxUnavailable(kind); !why.empty()) GTEST_SKIP() << why;
  const std::string tool = FindOnPath(SandboxName(kind));
  std::vector<std::string> argv = NamespaceArgv(kind, tool);
  argv.insert(argv.end(), {"/bin/sh", "-c", kScript, "sh"});
  const std::string shell_cmdline = std::string("/bin/sh\0-c\0", 11) + kScript + '\0' + "sh" + '\0';

  TempDir dir("watch-live");
  int go[2];
  ASSERT_EQ(::pipe2(go, O_CLOEXEC), 0);
  std::string error;
  const pid_t sandbox = SpawnChild(argv, -1, -1, &error, go[0]);
  ::close(go[0]);
  ASSERT_GT(sandbox, 0) << error;

  // The sandbox's shell and its forked child: two processes with the
  // shell's cmdline, the child's parent the shell.
  pid_t shell = 0, child = 0;
  auto find_pair = [&] {
    for (pid_t p : Descendants(sandbox)) {
      std::optional<std::string> cmdline = ReadProc(p, "cmdline");
      std::optional<ProcStat> st = ReadStat(p);
      if (!cmdline || !st || *cmdline != shell_cmdline) continue;
      std::optional<std::string> parent = ReadProc(st->ppid, "cmdline");
      if (parent && *parent == shell_cmdline) {
        shell = st->ppid;
        child = p;
        return true;
      }
    }
    return false;
  };
  const bool forked = WaitFor(find_pair);

  const std::string out = dir.File("watch.ptape");
  const int err_fd =
      ::open(dir.File("err").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  const int out_fd =
      ::open(dir.File("out").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  const pid_t capture =
      forked ? SpawnChild({::proctape::live::TestedBinary(), "capture", "--root",
                           std::to_string(sandbox), "--interval", "10", "--until-exit", "-o", out},
                          out_fd, err_fd, &error)
             : -1;
  ::close(err_fd);
  ::close(out_fd);

  // Two frames complete after a state was seen in /proc: the second of them
  // began after the state was reached (the first may have begun before).
  std::string partial;
  auto frames = [&] {
    if (partial.empty()) {
      std::vector<std::string> t = TemporariesOf(dir.path(), "watch.ptape");
      if (t.size() == 1) partial = dir.File(t[0]);
    }
    return partial.empty() ? 0 : CompleteFrames(partial);
  };
  auto two_more_frames = [&] {
    const int seen = frames();
    return WaitFor([&] { return frames() >= seen + 2; });
  };
  bool before_exec = false, exec_seen = false, after_exec = false;
  if (capture > 0) {
    before_exec = two_more_frames();
    // Let the child exec: it reads its line, then becomes cat.
    const bool written = ::write(go[1], "go\n", 3) == 3;
    exec_seen = written && WaitFor([&] {
                  std::optional<std::string> cmdline = ReadProc(child, "cmdline");
                  return cmdline && *cmdline == std::string("/bin/cat\0", 9);
                });
    after_exec = exec_seen && two_more_frames();
  }
  // End cat (end of input); the shell, then the sandbox, exit. The sandbox
  // stays our unreaped zombie until the capture has ended: its last frame
  // must say the root exited by itself.
  ::close(go[1]);
  const std::optional<int> capture_status =
      capture > 0 ? ReapWithin(capture, 60'000) : std::optional<int>(-1);
  const std::optional<int> sandbox_status = ReapWithin(sandbox, 60'000);

  ASSERT_TRUE(forked) << "the sandbox's shell never forked its child within 60 s";
  ASSERT_GT(capture, 0) << error;
  ASSERT_TRUE(before_exec) << "no frames within 60 s before the exec";
  ASSERT_TRUE(exec_seen) << "the child never exec'd cat within 60 s";
  ASSERT_TRUE(after_exec) << "no frames within 60 s after the exec";
  ASSERT_TRUE(sandbox_status.has_value()) << "the sandbox did not exit once its input closed";
  ASSERT_TRUE(capture_status.has_value()) << "capture --until-exit did not end within 60 s of "
                                             "the exit: "
                                          << FileBytes(dir.File("err"));
  ASSERT_TRUE(WIFEXITED(*capture_status))
      << "capture ended by signal " << WTERMSIG(*capture_status);
  ASSERT_EQ(WEXITSTATUS(*capture_status), 0) << FileBytes(dir.File("err"));
  EXPECT_TRUE(StartsWith(FileBytes(dir.File("out")), "wrote " + out + ": "))
      << FileBytes(dir.File("out"));

  Snapshot snap;
  FormatError read = ReadSnapshot(out, &snap);
  ASSERT_TRUE(read.ok()) << read.message;
  ASSERT_GE(snap.frames.size(), 5u);
  // Why it stopped, said: the root's exit, in the last frame.
  EXPECT_TRUE(Has(FileBytes(dir.File("err")), "--until-exit: root " + std::to_string(sandbox) +
                                                  " exited (gone, a zombie, or "
                                                  "its pid another process's): frame " +
                                                  std::to_string(snap.frames.size() - 1) +
                                                  ", the last, shows it"))
      << FileBytes(dir.File("err"));
  // The states of the child, frame by frame, as KERNEL-FACTS lists them:
  // 'f' forked (the shell's copy), 'x' an exec half done (the shell's argv,
  // an empty one or cat's, with either name: 'sh' with cat's argv was seen
  // here on a loaded host), 'e' exec'd (cat), 'z' cat exiting
  // ("a zombie ... its cmdline reads empty": also before it is a zombie, once
  // its memory is released), '-' absent, '?' anything else.
  const std::string cat_cmdline("/bin/cat\0", 9);
  std::string states, unexpected;
  for (const v1::Frame& f : snap.frames) {
    const v1::ProcessRecord* r = FindRecord(f, child);
    if (r == nullptr) {
      states += '-';
      continue;
    }
    const std::string comm = Comm(*r), &cmdline = r->cmdline().data();
    if (comm == "sh" && cmdline == shell_cmdline) {
      states += 'f';
    } else if (comm == "cat" && cmdline == cat_cmdline) {
      states += 'e';
    } else if (comm == "cat" && cmdline.empty() && states.find('e') != std::string::npos) {
      states += 'z';
    } else if ((comm == "sh" || comm == "cat") &&
               (cmdline.empty() || cmdline == shell_cmdline || cmdline == cat_cmdline) &&
               State(*r) != 'Z') {
      states += 'x';
    } else {
      states += '?';
      unexpected += " [frame " + std::to_string(states.size() - 1) + ": comm '" + comm +
                    "', state " + State(*r) + ", cmdline of " + std::to_string(cmdline.size()) +
                    " bytes]";
    }
  }
  SCOPED_TRACE("child states by frame: " + states + unexpected);
  const std::size_t first_forked = states.find('f');
  const std::size_t first_exec = states.find('e');
  ASSERT_NE(first_forked, std::string::npos);
  ASSERT_NE(first_exec, std::string::npos);
  EXPECT_LT(first_forked, first_exec);
  // One way through: forked, exec half done, exec'd, exiting, gone; each
  // state may be missed between two frames, none comes back.
  std::string order = states;
  order.erase(std::unique(order.begin(), order.end()), order.end());
  EXPECT_EQ(order.find('?'), std::string::npos);
  for (std::size_t k = 1; k < order.size(); ++k) {
    EXPECT_LT(std::string("fxez-").find(order[k - 1]), std::string("fxez-").find(order[k]))
        << "state " << order[k - 1] << " before " << order[k];
  }
  // Before the exec the shell and its child are both in the frame, parent
  // and child; the shell is in the subtree of the root.
  const v1::Frame& pre = snap.frames[first_forked];
  ASSERT_NE(FindRecord(pre, shell), nullptr);
  EXPECT_EQ(FindRecord(pre, shell)->cmdline().data(), shell_cmdline);
  ASSERT_NE(FindRecord(pre, sandbox), nullptr);
  // The last frame, and only it, shows the root exited: our unreaped zombie
  // (or gone), the child gone.
  const v1::Frame& last = snap.frames.back();
  EXPECT_EQ(FindRecord(last, child), nullptr);
  const v1::ProcessRecord* root_last = FindRecord(last, sandbox);
  if (root_last != nullptr) {
    EXPECT_EQ(State(*root_last), 'Z');
  }
  for (std::size_t k = 0; k + 1 < snap.frames.size(); ++k) {
    const v1::ProcessRecord* r = FindRecord(snap.frames[k], sandbox);
    ASSERT_NE(r, nullptr) << "frame " << k;
    EXPECT_NE(State(*r), 'Z') << "frame " << k;
  }
  // Frames on 10 ms slots: each starts at or after its slot (no assertion on
  // how close: a loaded host may skip slots, which capture counts).
  const std::int64_t start = snap.header.capture_start_mono_ns();
  for (std::size_t k = 1; k < snap.frames.size(); ++k) {
    EXPECT_GT(snap.frames[k].scan_start_mono_ns(), snap.frames[k - 1].scan_start_mono_ns());
    EXPECT_GE(snap.frames[k].scan_start_mono_ns(),
              start + static_cast<std::int64_t>(k) * 10'000'000)
        << k;
  }
}

INSTANTIATE_TEST_SUITE_P(Sandboxes, WatchSandbox,
                         ::testing::Values(SandboxKind::kUnshare, SandboxKind::kBwrap),
                         [](const ::testing::TestParamInfo<SandboxKind>& p) {
                           return std::string(SandboxName(p.param));
                         });

// The kernel lists a child on the thread that forked it: a child started by
// a second thread of this process is in its task's children file, not the
// main thread's, and ListChildren, reading every thread's, names both.
TEST(WatchLive, ListChildrenNamesTheChildrenOfEveryThread) {
  std::string error;
  std::unique_ptr<Child> by_main = Child::Start({"/bin/sleep", "60"}, &error);
  ASSERT_NE(by_main, nullptr) << error;
  std::unique_ptr<Child> by_thread;
  std::mutex mu;
  std::condition_variable cv;
  bool started = false, done = false;
  // The thread stays until the check is done: the child's PR_SET_PDEATHSIG
  // fires when the thread that forked it ends.
  std::thread t([&] {
    std::string thread_error;
    std::unique_ptr<Child> c = Child::Start({"/bin/sleep", "60"}, &thread_error);
    std::unique_lock<std::mutex> lock(mu);
    by_thread = std::move(c);
    error = thread_error;
    started = true;
    cv.notify_all();
    cv.wait(lock, [&] { return done; });
  });
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return started; });
  }
  std::vector<std::int64_t> children;
  bool truncated = false;
  int err = -1;
  Failure open_failure;
  std::unique_ptr<ProcfsEvidence> proc = ProcfsEvidence::Open("/proc", &open_failure);
  if (proc) err = proc->ListChildren(::getpid(), 1'000'000, &children, &truncated);
  std::vector<std::int64_t> bounded;
  bool cut = false;
  if (proc) proc->ListChildren(::getpid(), 1, &bounded, &cut);
  const int gone = proc ? proc->ListChildren(999'999'999, 10, &bounded, &cut) : -1;
  const pid_t thread_child = by_thread ? by_thread->pid() : -1;
  {
    std::lock_guard<std::mutex> lock(mu);
    done = true;
    cv.notify_all();
  }
  t.join();
  by_thread.reset();  // ended by pid and reaped, as by_main at the end
  ASSERT_NE(proc, nullptr) << open_failure.message;
  ASSERT_GT(thread_child, 0) << error;
  ASSERT_EQ(err, 0);
  EXPECT_FALSE(truncated);
  auto has = [&](std::int64_t pid) {
    return std::find(children.begin(), children.end(), pid) != children.end();
  };
  EXPECT_TRUE(has(by_main->pid()));
  EXPECT_TRUE(has(thread_child));
  EXPECT_EQ(bounded.size(), 1u);
  EXPECT_TRUE(cut);
  EXPECT_EQ(gone, ENOENT);
}

TEST(WatchLive, UntilExitWithoutRootIsAUsageErrorOnOneLine) {
  TempDir dir("watch-usage");
  CommandResult r = Proctape({"capture", "--until-exit", "-o", dir.File("x.ptape")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(OneLine(r.err)) << r.err;
  EXPECT_TRUE(Has(r.err, "--until-exit")) << r.err;
  EXPECT_FALSE(Exists(dir.File("x.ptape")));
}

TEST(WatchLive, UntilExitStopsAtFramesNWhenTheRootRunsOn) {
  TempDir dir("watch-frames");
  CommandResult r = Proctape({"capture", "--root", std::to_string(::getpid()), "--until-exit",
                              "--frames", "3", "--interval", "10", "-o", dir.File("x.ptape")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Snapshot snap;
  ASSERT_TRUE(ReadSnapshot(dir.File("x.ptape"), &snap).ok());
  EXPECT_EQ(snap.frames.size(), 3u);
  for (const v1::Frame& f : snap.frames) EXPECT_NE(FindRecord(f, ::getpid()), nullptr);
  // Why it stopped, said: not the root's exit.
  EXPECT_TRUE(Has(r.err, "proctape: note: --until-exit: stopped at --frames 3 with root " +
                             std::to_string(::getpid()) + " still running"))
      << r.err;
}

TEST(WatchLive, UntilExitOfARootThatIsNotThereWritesOneFrameAndExitsFive) {
  TempDir dir("watch-absent");
  // A pid that is not running: our reaped child's.
  std::string error;
  pid_t gone = SpawnChild({"/bin/true"}, -1, -1, &error);
  ASSERT_GT(gone, 0) << error;
  ::waitpid(gone, nullptr, 0);
  CommandResult r = Proctape({"capture", "--root", std::to_string(gone), "--until-exit",
                              "--interval", "10", "-o", dir.File("x.ptape")});
  ASSERT_EQ(r.exit_code, 5) << r.err;
  Snapshot snap;
  ASSERT_TRUE(ReadSnapshot(dir.File("x.ptape"), &snap).ok());
  EXPECT_EQ(snap.frames.size(), 1u);
}

}  // namespace
}  // namespace proctape::live
