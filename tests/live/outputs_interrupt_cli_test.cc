// SPDX-License-Identifier: Apache-2.0
// The one output rule (docs/cli/outputs.md) when a command that writes a file
// is interrupted (SIGINT), from the binary: an interrupted capture finishes
// its file with the frames done (exit 130); an interrupted resolve --record
// leaves no recording; an interrupted lab removes its directory and its
// recording and ends what it started; under --json the interrupt is the last
// line of standard error, a JSON object. Every process a test starts is its
// own child, ended by its pid.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "format/reader.h"
#include "tests/live/complete_frames.h"
#include "tests/live/files.h"
#include "tests/live/json_document.h"
#include "tests/live/output_writers.h"
#include "tests/live/outputs_cli_fixture.h"
#include "tests/live/sandbox.h"

namespace proctape::live {
namespace {

using namespace outputs;  // outputs_cli_fixture.h

// Starts `args` as a child of this test; its stderr goes to `err_path`.
pid_t Start(const Invocation& how, const std::vector<std::string>& args,
            const std::string& err_path) {
  int err_fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  std::string error;
  pid_t pid = SpawnChild(Argv(how, args), -1, err_fd, &error);
  if (err_fd >= 0) ::close(err_fd);
  EXPECT_GT(pid, 0) << error;
  return pid;
}

// Polls `ready` every 10 ms for at most 60 s.
bool WaitFor(const std::function<bool()>& ready) {
  for (int i = 0; i < 6000; ++i) {
    if (ready()) return true;
    ::usleep(10'000);
  }
  return false;
}

// The wait status of our child `pid`, within 60 s (else it is killed: an
// interrupt that did not end it fails the test, it does not hang it).
int Reap(pid_t pid) {
  std::optional<int> status = ReapWithin(pid, 60'000);
  if (!status) ADD_FAILURE() << "child " << pid << " still running 60 s after the signal: killed";
  return status.value_or(-1);
}

TEST(OutputInterrupts, CaptureInterruptedFinishesItsFileWithTheFramesDone) {
  TempDir dir("outputs-int");
  TempDir logs("outputs-log");
  Invocation how;
  how.cwd = dir.path();
  const std::string out = dir.File("frames.ptape");
  pid_t pid = Start(
      how, {"capture", "--root", SelfPid(), "-o", out, "--frames", "100000", "--interval", "20"},
      logs.File("err"));
  ASSERT_GT(pid, 0);
  std::string partial;
  const bool two = WaitFor([&] {
    std::vector<std::string> temporaries = TemporariesOf(dir.path(), "frames.ptape");
    partial = temporaries.size() == 1 ? dir.File(temporaries[0]) : "";
    return !partial.empty() && CompleteFrames(partial) >= 2;
  });
  ::kill(pid, SIGINT);  // our unreaped child: the pid is its own
  const int status = Reap(pid);
  ASSERT_TRUE(two) << "no temporary with two frames within 60 s";
  ASSERT_TRUE(WIFEXITED(status)) << "ended by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 130);
  EXPECT_EQ(Entries(dir.path()), std::vector<std::string>{"frames.ptape"});
  Snapshot snap;
  FormatError read = ReadSnapshot(out, &snap);
  ASSERT_TRUE(read.ok()) << read.message;
  ASSERT_TRUE(snap.footer.has_value());
  EXPECT_GE(snap.frames.size(), 2u);
  EXPECT_LT(snap.frames.size(), 100000u);
  for (const v1::Frame& f : snap.frames) EXPECT_TRUE(f.complete());
  const std::string err = FileBytes(logs.File("err"));
  EXPECT_TRUE(Has(err, "interrupted by SIGINT after " + std::to_string(snap.frames.size()) +
                           " frames of 100000"))
      << err;
}

TEST(OutputInterrupts, ResolveInterruptedLeavesNoRecording) {
  TempDir dir("outputs-int");
  TempDir logs("outputs-log");
  Invocation how;
  how.cwd = dir.path();
  // No sandbox beneath the test: the resolver retries until its deadline.
  pid_t pid = Start(how,
                    {"resolve", "--root", SelfPid(), "--token", "t0k3n", "--deadline-ms", "60000",
                     "--record", dir.File("r.ptape")},
                    logs.File("err"));
  ASSERT_GT(pid, 0);
  // The frame before the check is in the temporary: the check is running.
  const bool recording = WaitFor([&] {
    for (const std::string& name : Entries(dir.path())) {
      if (CompleteFrames(dir.File(name)) >= 1) return true;
    }
    return false;
  });
  ::kill(pid, SIGINT);
  const int status = Reap(pid);
  ASSERT_TRUE(recording) << "no recording begun within 60 s";
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) << status;
  EXPECT_EQ(Entries(dir.path()), std::vector<std::string>{});
}

// The last line of `err` as a JSON object: an interrupt's failure under
// --json, with its message and exit status.
void ExpectJsonInterrupt(const std::string& err, const std::string& command) {
  std::vector<std::string> lines;
  for (std::size_t at = 0; at < err.size();) {
    std::size_t end = err.find('\n', at);
    if (end == std::string::npos) end = err.size();
    lines.push_back(err.substr(at, end - at));
    at = end + 1;
  }
  ASSERT_FALSE(lines.empty()) << command << ": an interrupt under --json says so";
  for (const std::string& line : lines) {
    EXPECT_TRUE(ParseJsonDocument(line).ok) << "standard error under --json is JSON: " << line;
  }
  const JsonDocument d = ParseJsonDocument(lines.back());
  ASSERT_TRUE(d.ok) << err;
  const auto& fields = d.value.struct_value().fields();
  EXPECT_TRUE(fields.count("command") && fields.at("command").string_value() == command) << err;
  EXPECT_TRUE(fields.count("error") &&
              fields.at("error").string_value().find("interrupted by SIGINT") == 0)
      << err;
  EXPECT_TRUE(fields.count("exit_status") && fields.at("exit_status").number_value() == 130) << err;
}

TEST(OutputInterrupts, CaptureInterruptedUnderJsonFailsInJsonWithItsFileFinished) {
  TempDir dir("outputs-int");
  TempDir logs("outputs-log");
  Invocation how;
  how.cwd = dir.path();
  const std::string out = dir.File("frames.ptape");
  pid_t pid = Start(how,
                    {"capture", "--root", SelfPid(), "-o", out, "--frames", "100000", "--interval",
                     "20", "--json"},
                    logs.File("err"));
  ASSERT_GT(pid, 0);
  const bool two = WaitFor([&] {
    std::vector<std::string> temporaries = TemporariesOf(dir.path(), "frames.ptape");
    return temporaries.size() == 1 && CompleteFrames(dir.File(temporaries[0])) >= 2;
  });
  ::kill(pid, SIGINT);  // our unreaped child: the pid is its own
  const int status = Reap(pid);
  ASSERT_TRUE(two) << "no temporary with two frames within 60 s";
  ASSERT_TRUE(WIFEXITED(status)) << "ended by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 130);
  Snapshot snap;
  FormatError read = ReadSnapshot(out, &snap);
  EXPECT_TRUE(read.ok()) << "the file is finished: " << read.message;
  ExpectJsonInterrupt(FileBytes(logs.File("err")), "capture");
}

TEST(OutputInterrupts, ResolveInterruptedUnderJsonFailsInJsonAndLeavesNoRecording) {
  TempDir dir("outputs-int");
  TempDir logs("outputs-log");
  Invocation how;
  how.cwd = dir.path();
  // No sandbox beneath the test: the resolver retries until its deadline.
  pid_t pid = Start(how,
                    {"resolve", "--root", SelfPid(), "--token", "t0k3n", "--deadline-ms", "60000",
                     "--record", dir.File("r.ptape"), "--json"},
                    logs.File("err"));
  ASSERT_GT(pid, 0);
  const bool recording = WaitFor([&] {
    for (const std::string& name : Entries(dir.path())) {
      if (CompleteFrames(dir.File(name)) >= 1) return true;
    }
    return false;
  });
  ::kill(pid, SIGINT);
  const int status = Reap(pid);
  ASSERT_TRUE(recording) << "no recording begun within 60 s";
  // Ended by the signal, as without --json: a shell says 130.
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) << status;
  EXPECT_EQ(Entries(dir.path()), std::vector<std::string>{});
  ExpectJsonInterrupt(FileBytes(logs.File("err")), "resolve");
}

TEST(OutputInterrupts, LabInterruptedRemovesItsDirectoryAndItsRecording) {
  if (std::string why = SandboxUnavailable(SandboxKind::kUnshare); !why.empty()) {
    GTEST_SKIP() << why;
  }
  TempDir dir("outputs-int");
  TempDir tmp("outputs-tmp");
  TempDir logs("outputs-log");
  Invocation how;
  how.cwd = dir.path();
  how.tmpdir = tmp.path();
  // never-exec keeps the resolver retrying for its whole deadline.
  pid_t pid =
      Start(how, {"lab", "never-exec", "--record", dir.File("x.ptape"), "--deadline-ms", "60000"},
            logs.File("err"));
  ASSERT_GT(pid, 0);
  std::vector<std::pair<pid_t, std::uint64_t>> seen;
  const bool staged = WaitFor([&] {
    seen.clear();
    for (pid_t p : Descendants(pid)) {
      if (auto st = ReadStat(p)) seen.emplace_back(p, st->start_ticks);
    }
    bool recording = false;
    for (const std::string& name : Entries(dir.path())) {
      recording |= CompleteFrames(dir.File(name)) >= 1;
    }
    return seen.size() >= 4 && recording && !Entries(tmp.path()).empty();
  });
  ::kill(pid, SIGINT);
  const int status = Reap(pid);
  ASSERT_TRUE(staged) << "the lab did not stage and begin recording within 60 s";
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) << status;
  EXPECT_EQ(Entries(dir.path()), std::vector<std::string>{}) << "the recording's temporary";
  EXPECT_EQ(Entries(tmp.path()), std::vector<std::string>{}) << "the lab's private directory";
  for (const auto& [p, start] : seen) {
    EXPECT_TRUE(WaitFor([&, p = p, start = start] {
      std::optional<ProcStat> st = ReadStat(p);
      return !st || st->start_ticks != start || st->state == 'Z' || st->state == 'X';
    })) << "pid "
        << p << " still runs";
  }
}

}  // namespace
}  // namespace proctape::live
