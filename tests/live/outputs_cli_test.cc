// The one rule for every file proctape writes (docs/cli/outputs.md), from the
// binary, for every command that writes one: capture -o, fingerprint -o,
// export -o (a file, and a proc-dir directory), resolve and liveness
// --record, lab --record, corpus check --junit; and corpus add's corpus. One
// test per rule, each run for every writer:
//   - an existing output without --force: exit 10, nothing changed, nothing
//     left beside it, nothing run (the lab starts no process);
//   - --force replaces it whole;
//   - a symbolic link is refused even with --force, its target untouched;
//   - a directory is refused (a proc-dir: a directory that is no export);
//   - a missing directory, an unwritable one (as nobody): refused first;
//   - a temporary left by an earlier run blocks nothing;
//   - an empty path, and --force without a file to replace: usage errors;
//   - an interrupt leaves nothing (capture: a complete file of the frames
//     done, exit 130).
// Every process a test starts is its own child, ended by its pid.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <string>
#include <vector>

#include "format/chunk_reader.h"
#include "format/reader.h"
#include "tests/live/files.h"
#include "tests/live/json_document.h"
#include "tests/live/output_writers.h"
#include "tests/live/sandbox.h"

#ifndef PROCTAPE_BINARY
#error "PROCTAPE_BINARY must name the built proctape CLI"
#endif

namespace proctape::live {
namespace {

const std::string kCorpus = SourceCorpus();
const std::string kRecording = CorpusRecording();

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// How a command is run: in `cwd`, with TMPDIR=`tmpdir` (the lab's private
// directory goes there), as root or as nobody.
struct Invocation {
  std::string cwd = "/";
  std::string tmpdir = "/tmp";
  bool nobody = false;
};

std::vector<std::string> Argv(const Invocation& how, const std::vector<std::string>& args) {
  std::vector<std::string> argv;
  if (how.nobody) {
    argv = {FindOnPath("setpriv"), "--reuid=65534", "--regid=65534", "--clear-groups"};
  }
  argv.insert(argv.end(), {"/usr/bin/env", "-C", how.cwd, "TMPDIR=" + how.tmpdir, PROCTAPE_BINARY});
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

CommandResult RunProctape(const Invocation& how, const std::vector<std::string>& args) {
  return RunCommand(Argv(how, args), 120'000);
}

class OutputRules : public ::testing::TestWithParam<Writer> {
 protected:
  void SetUp() override {
    if (GetParam().lab) {
      if (std::string why = SandboxUnavailable(SandboxKind::kUnshare); !why.empty()) {
        GTEST_SKIP() << why;
      }
    }
    ASSERT_FALSE(dir_.path().empty());
    ASSERT_FALSE(tmp_.path().empty());
    how_.cwd = dir_.path();
    how_.tmpdir = tmp_.path();
  }
  std::vector<std::string> Args(const std::string& out, bool force = false) const {
    std::vector<std::string> args = GetParam().args(out);
    if (force) args.push_back("--force");
    return args;
  }
  // Nothing ran: no output printed, no lab directory made.
  void ExpectNothingRan(const CommandResult& r) const {
    EXPECT_EQ(r.out, "") << Describe(r);
    EXPECT_EQ(Entries(tmp_.path()), std::vector<std::string>{}) << "the lab made its directory";
  }
  // What a successful run leaves at `out`: a file, or an export.
  void ExpectWritten(const std::string& out) const {
    if (GetParam().directory) {
      EXPECT_TRUE(Exists(out + "/proctape-frame")) << out;
    } else {
      EXPECT_NE(FileBytes(out).size(), 0u) << out;
    }
  }

  TempDir dir_{"outputs"};
  TempDir tmp_{"outputs-tmp"};
  Invocation how_;
};

TEST_P(OutputRules, AnExistingOutputIsRefusedWithoutForceAndNothingRuns) {
  const std::string out = dir_.File("out");
  std::string refusal = "exists: refused (use --force to replace it)";
  if (GetParam().directory) {  // an earlier export
    ASSERT_EQ(::mkdir(out.c_str(), 0755), 0);
    WriteFile(out + "/proctape-frame", "mine");
    refusal = "holds an earlier export: refused (use --force to replace it)";
  } else {
    WriteFile(out, "mine");
  }
  CommandResult r = RunProctape(how_, Args(out));
  EXPECT_EQ(r.exit_code, 10) << Describe(r);
  EXPECT_TRUE(OneLine(r.err)) << r.err;
  EXPECT_TRUE(Has(r.err, GetParam().option + " '" + out + "': " + refusal)) << r.err;
  EXPECT_EQ(FileBytes(GetParam().directory ? out + "/proctape-frame" : out), "mine");
  EXPECT_EQ(Entries(dir_.path()), std::vector<std::string>{"out"});
  ExpectNothingRan(r);
}

TEST_P(OutputRules, ForceReplacesItWholeAndLeavesNothingBeside) {
  const std::string out = dir_.File("out");
  if (GetParam().directory) {
    ASSERT_EQ(::mkdir(out.c_str(), 0755), 0);
    WriteFile(out + "/proctape-frame", "mine");
    WriteFile(out + "/stale", "mine");
  } else {
    WriteFile(out, "mine");
  }
  CommandResult r = RunProctape(how_, Args(out, true));
  EXPECT_EQ(GetParam().wrote.count(r.exit_code), 1u) << Describe(r);
  ExpectWritten(out);
  EXPECT_FALSE(Exists(out + "/stale"));
  EXPECT_EQ(Entries(dir_.path()), std::vector<std::string>{"out"});
  EXPECT_EQ(Entries(tmp_.path()), std::vector<std::string>{});
}

TEST_P(OutputRules, ASymbolicLinkIsRefusedEvenWithForceAndItsTargetUntouched) {
  const std::string target = dir_.File("target");
  const std::string link = dir_.File("link");
  if (GetParam().directory) {
    ASSERT_EQ(::mkdir(target.c_str(), 0755), 0);
    WriteFile(target + "/proctape-frame", "mine");
  } else {
    WriteFile(target, "mine");
  }
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  for (bool force : {false, true}) {
    CommandResult r = RunProctape(how_, Args(link, force));
    EXPECT_EQ(r.exit_code, 10) << Describe(r);
    EXPECT_TRUE(OneLine(r.err)) << r.err;
    EXPECT_TRUE(Has(r.err, GetParam().option + " '" + link +
                               "': is a symbolic link: refused, --force or not"))
        << r.err;
    ExpectNothingRan(r);
  }
  EXPECT_EQ(FileBytes(GetParam().directory ? target + "/proctape-frame" : target), "mine");
  EXPECT_EQ(Entries(dir_.path()), (std::vector<std::string>{"link", "target"}));
}

TEST_P(OutputRules, ADirectoryIsRefusedEvenWithForce) {
  const std::string out = dir_.File("out");
  ASSERT_EQ(::mkdir(out.c_str(), 0755), 0);
  WriteFile(out + "/notes", "mine");
  const std::string refusal =
      GetParam().directory
          ? "': is a directory that is not an earlier export (it holds no proctape-frame): "
            "refused, --force or not"
          : "': is a directory: refused, --force or not";
  for (bool force : {false, true}) {
    CommandResult r = RunProctape(how_, Args(out, force));
    EXPECT_EQ(r.exit_code, 10) << Describe(r);
    EXPECT_TRUE(OneLine(r.err)) << r.err;
    EXPECT_TRUE(Has(r.err, GetParam().option + " '" + out + refusal)) << r.err;
    ExpectNothingRan(r);
  }
  EXPECT_EQ(Entries(dir_.path()), std::vector<std::string>{"out"});
  EXPECT_EQ(Entries(out), std::vector<std::string>{"notes"});
}

TEST_P(OutputRules, AMissingDirectoryIsRefusedNamingIt) {
  const std::string out = dir_.File("nope/out");
  CommandResult r = RunProctape(how_, Args(out));
  EXPECT_EQ(r.exit_code, 10) << Describe(r);
  EXPECT_TRUE(OneLine(r.err)) << r.err;
  EXPECT_TRUE(Has(r.err, GetParam().option + " '" + out + "': cannot write: its directory " +
                             dir_.File("nope") + " does not exist"))
      << r.err;
  ExpectNothingRan(r);
  EXPECT_EQ(Entries(dir_.path()), std::vector<std::string>{});
}

TEST_P(OutputRules, AnUnwritableDirectoryIsRefusedBeforeAnyWork) {
  if (::geteuid() != 0 || FindOnPath("setpriv").empty()) {
    GTEST_SKIP() << "needs root and setpriv to run as nobody";
  }
  // Root's, 0755: nobody may enter it, not write in it. Its TMPDIR is nobody's.
  ASSERT_EQ(::chmod(dir_.path().c_str(), 0755), 0);
  ASSERT_EQ(::chmod(tmp_.path().c_str(), 0777), 0);
  Invocation how = how_;
  how.nobody = true;
  const std::string out = dir_.File("out");
  CommandResult r = RunProctape(how, Args(out));
  EXPECT_EQ(r.exit_code, 10) << Describe(r);
  EXPECT_TRUE(OneLine(r.err)) << r.err;
  EXPECT_TRUE(Has(r.err, GetParam().option + " '" + out + "': cannot write: cannot create a temporary"))
      << r.err;
  EXPECT_TRUE(Has(r.err, "Permission denied")) << r.err;
  ExpectNothingRan(r);
  EXPECT_EQ(Entries(dir_.path()), std::vector<std::string>{});
}

TEST_P(OutputRules, AStaleTemporaryOfAnEarlierRunDoesNotBlock) {
  const std::string out = dir_.File("out");
  // What a killed run left: an older proctape's NAME.partial, and one of
  // this rule. Neither blocks, neither is touched.
  for (const std::string& stale : {out + ".partial", out + ".k1ll3d.partial"}) {
    if (GetParam().directory) {
      ASSERT_EQ(::mkdir(stale.c_str(), 0755), 0);
    } else {
      WriteFile(stale, "left by a run that was killed");
    }
  }
  CommandResult r = RunProctape(how_, Args(out));
  EXPECT_EQ(GetParam().wrote.count(r.exit_code), 1u) << Describe(r);
  ExpectWritten(out);
  EXPECT_EQ(Entries(dir_.path()),
            (std::vector<std::string>{"out", "out.k1ll3d.partial", "out.partial"}));
  if (!GetParam().directory) {
    EXPECT_EQ(FileBytes(out + ".partial"), "left by a run that was killed");
  }
}

TEST_P(OutputRules, AnEmptyPathIsAUsageError) {
  CommandResult r = RunProctape(how_, Args(""));
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_TRUE(OneLine(r.err)) << r.err;
  EXPECT_TRUE(Has(r.err, "an empty path names no file")) << r.err;
  ExpectNothingRan(r);
  EXPECT_EQ(Entries(dir_.path()), std::vector<std::string>{}) << "nothing in the working directory";
}

INSTANTIATE_TEST_SUITE_P(EveryWriter, OutputRules, ::testing::ValuesIn(Writers()),
                         [](const ::testing::TestParamInfo<Writer>& p) { return p.param.name; });

TEST(OutputOptions, ForceWithoutAFileToReplaceIsAUsageError) {
  TempDir dir("outputs-force");
  Invocation how;
  how.cwd = dir.path();
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"capture", "--root", SelfPid(), "-o", "-", "--force"},
           {"fingerprint", "--root", SelfPid(), "-o", "-", "--force"},
           {"export", kRecording, "--format", "json", "--force"},
           {"export", kRecording, "--format", "dot", "--out", "-", "--force"},
           {"resolve", "--root", SelfPid(), "--token", "t", "--deadline-ms", "0", "--force"},
           {"resolve", "--root", SelfPid(), "--token", "t", "--deadline-ms", "0", "--record", "-",
            "--force"},
           {"liveness", "--pid", SelfPid(), "--start", SelfStart(), "--force"},
           {"corpus", "check", kCorpus, "--entry", "plain-unshare", "--force"},
       }) {
    CommandResult r = RunProctape(how, args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << Describe(r);
    EXPECT_TRUE(OneLine(r.err)) << r.err;
    EXPECT_TRUE(Has(r.err, "--force replaces an existing output file")) << r.err;
    EXPECT_EQ(r.out, "") << args[0];
  }
  EXPECT_EQ(Entries(dir.path()), std::vector<std::string>{});
}

TEST(OutputOptions, OutputAndOutAreOneOptionInEveryCommandWithAMainOutput) {
  TempDir dir("outputs-names");
  Invocation how;
  how.cwd = dir.path();
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"capture", "--root", SelfPid(), "--out", "a.ptape"},
           {"capture", "--root", SelfPid(), "--output", "b.ptape"},
           {"fingerprint", "--root", SelfPid(), "--out", "c.ptape"},
           {"export", kRecording, "--format", "dot", "-o", "d.dot"},
           {"export", kRecording, "--format", "dot", "--output", "e.dot"},
       }) {
    CommandResult r = RunProctape(how, args);
    EXPECT_EQ(r.exit_code, 0) << args[0] << " " << args[args.size() - 2] << ": " << Describe(r);
  }
  EXPECT_EQ(Entries(dir.path()),
            (std::vector<std::string>{"a.ptape", "b.ptape", "c.ptape", "d.dot", "e.dot"}));
}

// `args` run by `script` on a pseudo-terminal: standard output is a terminal.
CommandResult OnATerminal(const std::vector<std::string>& args) {
  std::string command = "exec '" + std::string(PROCTAPE_BINARY) + "'";
  for (const std::string& a : args) command += " '" + a + "'";  // no quote in them
  return RunCommand({FindOnPath("script"), "-q", "-e", "-c", command, "/dev/null"}, 60'000);
}

TEST(OutputOptions, ABinaryFileIsNeverWrittenToATerminal) {
  if (FindOnPath("script").empty()) GTEST_SKIP() << "needs script (util-linux) for a terminal";
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"capture", "--root", SelfPid(), "-o", "-"},
           {"fingerprint", "--root", SelfPid(), "-o", "-"},
           {"resolve", "--root", SelfPid(), "--token", "t", "--deadline-ms", "0", "--record", "-"},
           {"liveness", "--pid", SelfPid(), "--start", SelfStart(), "--record", "-"},
       }) {
    CommandResult r = OnATerminal(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << Describe(r);
    EXPECT_TRUE(Has(r.out, "'-' writes a binary file to standard output, which is a terminal"))
        << args[0] << ": " << Describe(r);
    EXPECT_FALSE(Has(r.out, "PTAPE")) << args[0] << ": the file reached the terminal";
  }
  // Text is for terminals.
  CommandResult r = OnATerminal({"export", kRecording, "--format", "dot"});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_TRUE(Has(r.out, "digraph proctape")) << r.out;
}

// ---- Interrupted ----------------------------------------------------------------

// Complete frames readable so far from a file being written.
int CompleteFrames(const std::string& path) {
  FormatError err;
  auto reader = ChunkReader::Open(path, &err);
  if (!reader) return 0;
  v1::Chunk chunk;
  int frames = 0;
  while (reader->Next(&chunk) == ChunkReader::Result::kChunk) {
    if (chunk.has_frame() && chunk.frame().complete()) ++frames;
  }
  return frames;
}

// Starts `args` as a child of this test; its stderr goes to `err_path`.
pid_t Start(const Invocation& how, const std::vector<std::string>& args, const std::string& err_path) {
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

int Reap(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

TEST(OutputInterrupts, CaptureInterruptedFinishesItsFileWithTheFramesDone) {
  TempDir dir("outputs-int");
  TempDir logs("outputs-log");
  Invocation how;
  how.cwd = dir.path();
  const std::string out = dir.File("frames.ptape");
  pid_t pid = Start(how, {"capture", "--root", SelfPid(), "-o", out, "--frames", "100000",
                          "--interval", "20"},
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
  pid_t pid = Start(how, {"resolve", "--root", SelfPid(), "--token", "t0k3n", "--deadline-ms",
                          "60000", "--record", dir.File("r.ptape")},
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
  EXPECT_TRUE(fields.count("exit_status") && fields.at("exit_status").number_value() == 130)
      << err;
}

TEST(OutputInterrupts, CaptureInterruptedUnderJsonFailsInJsonWithItsFileFinished) {
  TempDir dir("outputs-int");
  TempDir logs("outputs-log");
  Invocation how;
  how.cwd = dir.path();
  const std::string out = dir.File("frames.ptape");
  pid_t pid = Start(how, {"capture", "--root", SelfPid(), "-o", out, "--frames", "100000",
                          "--interval", "20", "--json"},
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
  pid_t pid = Start(how, {"resolve", "--root", SelfPid(), "--token", "t0k3n", "--deadline-ms",
                          "60000", "--record", dir.File("r.ptape"), "--json"},
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
  pid_t pid = Start(how, {"lab", "never-exec", "--record", dir.File("x.ptape"), "--deadline-ms",
                          "60000"},
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
    })) << "pid " << p << " still runs";
  }
}

// ---- The corpus ------------------------------------------------------------------

TEST(CorpusOutputs, ACorpusWhoseDirectoryIsMissingIsRefusedBeforeAnyWork) {
  TempDir dir("outputs-corpus");
  const std::string corpus = dir.File("nope/corpus");
  CommandResult r = Proctape({"corpus", "add", kRecording, "--corpus", corpus});
  EXPECT_EQ(r.exit_code, 10) << Describe(r);
  EXPECT_TRUE(OneLine(r.err)) << r.err;
  EXPECT_TRUE(Has(r.err, "cannot create the corpus " + corpus + ": its directory " +
                             dir.File("nope") + " does not exist"))
      << r.err;
  EXPECT_EQ(Entries(dir.path()), std::vector<std::string>{});
}

TEST(CorpusOutputs, AManifestThatIsALinkIsRefusedAndItsTargetUntouched) {
  TempDir dir("outputs-corpus");
  ASSERT_EQ(::mkdir(dir.File("corpus").c_str(), 0755), 0);
  WriteFile(dir.File("elsewhere"), "");
  ASSERT_EQ(::symlink(dir.File("elsewhere").c_str(), dir.File("corpus/MANIFEST").c_str()), 0);
  CommandResult r = Proctape({"corpus", "add", kRecording, "--corpus", dir.File("corpus")});
  EXPECT_EQ(r.exit_code, 10) << Describe(r);
  EXPECT_TRUE(OneLine(r.err)) << r.err;
  EXPECT_TRUE(Has(r.err, dir.File("corpus/MANIFEST") + " is a symbolic link: refused")) << r.err;
  EXPECT_EQ(FileBytes(dir.File("elsewhere")), "");
  EXPECT_EQ(Entries(dir.File("corpus")), std::vector<std::string>{"MANIFEST"});
}

TEST(CorpusOutputs, AnUnwritableCorpusIsRefusedBeforeTheRecordingIsReplayed) {
  if (::geteuid() != 0 || FindOnPath("setpriv").empty()) {
    GTEST_SKIP() << "needs root and setpriv to run as nobody";
  }
  TempDir dir("outputs-corpus");
  ASSERT_EQ(::chmod(dir.path().c_str(), 0755), 0);
  ASSERT_EQ(::mkdir(dir.File("corpus").c_str(), 0755), 0);
  Invocation how;
  how.nobody = true;
  CommandResult r = RunProctape(how, {"corpus", "add", kRecording, "--corpus", dir.File("corpus")});
  EXPECT_EQ(r.exit_code, 10) << Describe(r);
  EXPECT_TRUE(OneLine(r.err)) << r.err;
  EXPECT_TRUE(Has(r.err, "cannot write in the corpus " + dir.File("corpus") +
                             ": Permission denied"))
      << r.err;
  EXPECT_EQ(Entries(dir.File("corpus")), std::vector<std::string>{});
}

TEST(CorpusOutputs, TheCorpusIsNamedByCorpusInAddCheckAndList) {
  TempDir dir("outputs-corpus");
  const std::string corpus = dir.File("c");
  CommandResult r = Proctape({"corpus", "add", kRecording, "--corpus", corpus, "--name", "one"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  r = Proctape({"corpus", "list", "--corpus", corpus});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_TRUE(StartsWith(r.out, "one ")) << r.out;
  r = Proctape({"corpus", "check", "--corpus", corpus});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  // The positional DIR of check and list is the same option's shorthand.
  EXPECT_EQ(Proctape({"corpus", "list", corpus}).out, Proctape({"corpus", "list", "--corpus", corpus}).out);
  for (const char* command : {"check", "list"}) {
    r = Proctape({"corpus", command, corpus, "--corpus", corpus});
    EXPECT_EQ(r.exit_code, 2) << command << ": " << Describe(r);
    EXPECT_TRUE(OneLine(r.err)) << r.err;
  }
  r = Proctape({"corpus", "add", kRecording, "--corpus", ""});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
}

}  // namespace
}  // namespace proctape::live
