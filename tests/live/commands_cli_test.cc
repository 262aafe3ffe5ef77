// The command line's contract for what commands do (docs/cli/commands.md),
// tested from the built binary: progress on a terminal only, an empty
// selection is not a success, options checked together, several files and
// standard input, corpus rm and its notes, help without parser noise.
#include <gtest/gtest.h>
#include <pty.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cctype>
#include <chrono>
#include <sstream>
#include <string>
#include <vector>

#include "corpus/corpus.h"
#include "lab/lab.h"
#include "tests/live/cli_contract.h"
#include "tests/live/files.h"
#include "tests/live/sandbox.h"

#ifndef PROCTAPE_BINARY
#error "PROCTAPE_BINARY must name the built proctape CLI"
#endif

namespace proctape {
namespace {

using live::CommandResult;
using live::Describe;
using live::Proctape;
using live::TempDir;

const std::string kSource = PROCTAPE_SOURCE_DIR;
// Two recordings of the shipped corpus (docs/corpus.md): lab pid-reuse and
// lab hostile-comm, both in an unshare sandbox.
const std::string kPidReuse = kSource + "/corpus/021e7cdf322033a4.ptape";
const std::string kHostileComm = kSource + "/corpus/d40fb836ad433348.ptape";

// Runs the binary with its standard error on a pseudo-terminal (standard
// output on a pipe), as a person at a terminal sees it. The child is ours:
// reaped here; killed by its pid if it outlives `timeout_ms`.
CommandResult ProctapeOnTerminal(std::vector<std::string> args, int timeout_ms = 120'000) {
  args.insert(args.begin(), PROCTAPE_BINARY);
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
  CommandResult r = ProctapeOnTerminal(
      {"export", kPidReuse, "--format", "json", "--out", dir.File("x.json")});
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


// ---- An empty selection is not a success ----------------------------------------

// A --root that is in no frame: the file is still written (it is evidence of
// what /proc held), but the exit status is 5, not found, and one line says so.
TEST(EmptySelection, CaptureOfARootInNoFrameWritesTheFileAndExitsNotFound) {
  TempDir dir("empty");
  // A pid this host can have that no process has.
  const std::string absent = live::AbsentPid();
  CommandResult r = Proctape({"capture", "--root", absent, "-o", dir.File("x.ptape"), "--frames",
                              "2", "--interval", "0"});
  EXPECT_EQ(r.exit_code, 5) << Describe(r);
  EXPECT_TRUE(live::StartsWith(r.out, "wrote ")) << Describe(r);
  EXPECT_TRUE(live::OneLine(r.err)) << Describe(r);
  EXPECT_TRUE(live::StartsWith(r.err, "proctape: --root " + absent + " ")) << Describe(r);
  EXPECT_NE(r.err.find("in no frame"), std::string::npos) << Describe(r);
  CommandResult verify = Proctape({"verify", dir.File("x.ptape")});
  EXPECT_EQ(verify.exit_code, 0) << Describe(verify);

  CommandResult json = Proctape({"capture", "--root", absent, "-o", dir.File("y.ptape"), "--json"});
  EXPECT_EQ(json.exit_code, 5) << Describe(json);
  EXPECT_NE(json.err.find("\"exit_status\":5"), std::string::npos) << Describe(json);
}

// A root that is there is captured as before: exit 0, nothing on stderr.
TEST(EmptySelection, CaptureOfALiveRootIsASuccess) {
  TempDir dir("empty");
  CommandResult r = Proctape({"capture", "--root", std::to_string(::getpid()), "-o",
                              dir.File("x.ptape")});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.err, "") << Describe(r);
}


// `capture --proc-root DIR` of a directory that holds no process (empty, or
// files and directories of no /proc copy, or a numeric entry without a stat
// file) is refused on one line naming DIR, exit 2, and writes nothing: it is
// not a frame of 0 processes. One numeric entry with a stat file is a frame.
TEST(EmptySelection, CaptureOfAProcRootWithNoProcessIsRefused) {
  TempDir out("empty-out");
  TempDir empty("empty-dir");
  TempDir unrelated("unrelated-dir");
  live::WriteFile(unrelated.File("README"), "not /proc\n");
  ASSERT_EQ(::mkdir(unrelated.File("src").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir(unrelated.File("42").c_str(), 0755), 0);  // numeric, but no stat
  for (const TempDir* dir : {&empty, &unrelated}) {
    CommandResult r = Proctape({"capture", "--proc-root", dir->path(), "-o", out.File("x.ptape")});
    EXPECT_EQ(r.exit_code, 2) << dir->path() << ": " << Describe(r);
    EXPECT_EQ(r.out, "") << Describe(r);
    EXPECT_TRUE(live::OneLine(r.err)) << Describe(r);
    EXPECT_NE(r.err.find(dir->path()), std::string::npos) << Describe(r);
    EXPECT_NE(r.err.find("holds no process"), std::string::npos) << Describe(r);
    EXPECT_FALSE(live::Exists(out.File("x.ptape"))) << dir->path();
  }
  live::WriteFile(unrelated.File("42/stat"), "42 (x) S 1 42 42 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 7\n");
  CommandResult one = Proctape({"capture", "--proc-root", unrelated.path(), "-o", out.File("y.ptape")});
  EXPECT_EQ(one.exit_code, 0) << Describe(one);
  EXPECT_NE(one.out.find("1 process record"), std::string::npos) << Describe(one);
}


// ---- Options that only make sense together are checked together -------------------

// `lab --list` lists the scenarios and stages none: a scenario, an output or
// a sandbox beside it is a usage error, not silently ignored.
TEST(OptionsTogether, LabListTakesNoScenarioRecordOrSandbox) {
  TempDir dir("together");
  for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
           {"lab", "--list", "plain"},
           {"lab", "plain", "--list"},
           {"lab", "--list", "--record", dir.File("x.ptape")},
           {"lab", "--list", "--sandbox", "bwrap"},
           {"lab", "--list", "--deadline-ms", "200"}}) {
    CommandResult r = Proctape(args);
    EXPECT_EQ(r.exit_code, 2) << args[2] << ": " << Describe(r);
    EXPECT_EQ(r.out, "") << Describe(r);
    EXPECT_TRUE(live::OneLine(r.err)) << Describe(r);
    EXPECT_NE(r.err.find("--list"), std::string::npos) << Describe(r);
  }
  EXPECT_FALSE(live::Exists(dir.File("x.ptape")));
  CommandResult list = Proctape({"lab", "--list", "--json"});
  EXPECT_EQ(list.exit_code, 0) << Describe(list);
}

// --interval is the time between frames: with one frame there is none.
TEST(OptionsTogether, CaptureIntervalNeedsSeveralFrames) {
  TempDir dir("together");
  for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
           {"capture", "-o", dir.File("x.ptape"), "--interval", "500"},
           {"capture", "-o", dir.File("x.ptape"), "--frames", "1", "--interval", "0"}}) {
    CommandResult r = Proctape(args);
    EXPECT_EQ(r.exit_code, 2) << Describe(r);
    EXPECT_TRUE(live::OneLine(r.err)) << Describe(r);
    EXPECT_NE(r.err.find("--interval"), std::string::npos) << Describe(r);
    EXPECT_FALSE(live::Exists(dir.File("x.ptape")));
  }
}


// ---- Several files, and standard input -------------------------------------------

// The binary with `input` as its standard input (through /bin/sh's redirection).
CommandResult ProctapeReading(const std::string& input, const std::string& args) {
  return live::RunCommand({"/bin/sh", "-c", std::string("exec \"$0\" ") + args + " < \"$1\"",
                           PROCTAPE_BINARY, input},
                          60'000);
}

std::string Truncated(const TempDir& dir) {
  const std::string bytes = live::FileBytes(kPidReuse);
  live::WriteFile(dir.File("cut.ptape"), bytes.substr(0, bytes.size() / 2));
  return dir.File("cut.ptape");
}

// verify A B C: a line for each, in order; the exit status is the largest of
// theirs (13 truncated beats 10 missing), 0 only when every file is intact.
TEST(SeveralFiles, VerifyReportsEachFileAndExitsWithTheLargestStatus) {
  TempDir dir("several");
  CommandResult all = Proctape({"verify", kPidReuse, kHostileComm});
  EXPECT_EQ(all.exit_code, 0) << Describe(all);
  EXPECT_EQ(all.out.find(kPidReuse + ": intact"), 0u) << Describe(all);
  EXPECT_NE(all.out.find("\n" + kHostileComm + ": intact"), std::string::npos) << Describe(all);

  CommandResult r = Proctape({"verify", kPidReuse, dir.File("missing"), Truncated(dir)});
  EXPECT_EQ(r.exit_code, 13) << Describe(r);
  EXPECT_EQ(r.out.find(kPidReuse + ": intact"), 0u) << Describe(r);
  EXPECT_NE(r.err.find("proctape: " + dir.File("missing") + ": "), std::string::npos);
  EXPECT_NE(r.err.find("proctape: " + dir.File("cut.ptape") + ": "), std::string::npos);

  // --json: one document, {"files": [...]} of the reports in order
  // (VerifyReports).
  CommandResult json = Proctape({"verify", "--json", kPidReuse, dir.File("missing")});
  EXPECT_EQ(json.exit_code, 10) << Describe(json);
  EXPECT_EQ(json.out.rfind("{\"files\":[{\"file\":\"" + kPidReuse + "\"", 0), 0u)
      << Describe(json);
  EXPECT_NE(json.out.find("},{\"file\":\"" + dir.File("missing") + "\""), std::string::npos);
  EXPECT_EQ(json.out.substr(json.out.size() - 4), "}]}\n") << Describe(json);
}

TEST(SeveralFiles, ShowShowsEachFileSeparatedByABlankLine) {
  TempDir dir("several");
  CommandResult r = Proctape({"show", kPidReuse, dir.File("missing"), kHostileComm});
  EXPECT_EQ(r.exit_code, 10) << Describe(r);
  EXPECT_EQ(r.out.rfind("file: " + kPidReuse + "\n", 0), 0u) << Describe(r);
  EXPECT_NE(r.out.find("\n\nfile: " + kHostileComm + "\n"), std::string::npos) << Describe(r);
  EXPECT_TRUE(live::OneLine(r.err)) << Describe(r);
  CommandResult json = Proctape({"show", "--json", kPidReuse, kHostileComm});
  EXPECT_EQ(json.exit_code, 0) << Describe(json);
  EXPECT_EQ(json.out.rfind("{\"files\":[{", 0), 0u) << Describe(json);
}

// corpus add A B C adds each; a refusal does not stop the next; the exit
// status is the largest of theirs.
TEST(SeveralFiles, CorpusAddAddsEachFileAndARefusalDoesNotStopTheNext) {
  TempDir dir("several");
  const std::string corpus = dir.File("corpus");
  CommandResult r = Proctape({"corpus", "add", kPidReuse, Truncated(dir), kHostileComm,
                              "--corpus", corpus});
  EXPECT_EQ(r.exit_code, 13) << Describe(r);
  EXPECT_NE(r.out.find("added pid-reuse-unshare "), std::string::npos) << Describe(r);
  EXPECT_NE(r.out.find("added hostile-comm-unshare "), std::string::npos) << Describe(r);
  EXPECT_TRUE(live::OneLine(r.err)) << Describe(r);
  CommandResult list = Proctape({"corpus", "list", corpus});
  EXPECT_EQ(list.exit_code, 0) << Describe(list);
  EXPECT_NE(list.out.find("hostile-comm-unshare"), std::string::npos) << Describe(list);
  EXPECT_NE(list.out.find("pid-reuse-unshare"), std::string::npos) << Describe(list);
}

// --name and --expect speak of one file: with several they are refused.
TEST(SeveralFiles, CorpusAddNameOrExpectWithSeveralFilesIsAUsageError) {
  TempDir dir("several");
  for (const char* option : {"--name", "--expect"}) {
    CommandResult r = Proctape({"corpus", "add", kPidReuse, kHostileComm, option, "RESOLVED",
                                "--corpus", dir.File("corpus")});
    EXPECT_EQ(r.exit_code, 2) << option << ": " << Describe(r);
    EXPECT_TRUE(live::OneLine(r.err)) << Describe(r);
    EXPECT_NE(r.err.find(option), std::string::npos) << Describe(r);
    EXPECT_FALSE(live::Exists(dir.File("corpus"))) << option;
  }
}

// '-' reads standard input wherever a file is read.
TEST(StandardInput, EveryCommandThatReadsAFileTakesDash) {
  TempDir dir("stdin");
  struct Case {
    std::string args;
    std::string out;  // what standard output begins with
  };
  for (const Case& c : std::vector<Case>{
           {"verify -", "-: intact"},
           {"show -", "file: -\n"},
           {"tree -", "-: frame 0"},
           {"diff -", "-: frame 0 -> frame 2"},
           {"explain -", "-: 2 recorded checks"},
           {"export - --format dot", "// proctape export --format dot"},
           {"replay -", "resolution 0: REPRODUCED"},
           {"corpus add - --corpus " + dir.File("corpus"), "added pid-reuse-unshare "}}) {
    CommandResult r = ProctapeReading(kPidReuse, c.args);
    EXPECT_EQ(r.exit_code, 0) << c.args << ": " << Describe(r);
    EXPECT_EQ(r.out.rfind(c.out, 0), 0u) << c.args << ": " << Describe(r);
  }
}

// Standard input can be read once: two inputs naming '-' are a usage error,
// not a second read that finds it empty.
TEST(StandardInput, CanBeReadOnlyOnce) {
  TempDir dir("stdin");
  for (const std::string& args : {std::string("verify - -"), std::string("show - -"),
                                   std::string("diff - -"),
                                   "corpus add - - --corpus " + dir.File("corpus"),
                                   std::string("replay - --fingerprint -"),
                                   std::string("ownership --baseline - --current - --uid 0 "
                                               "--cgroup / --self 1")}) {
    CommandResult r = ProctapeReading(kPidReuse, args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << Describe(r);
    EXPECT_TRUE(live::OneLine(r.err)) << args << ": " << Describe(r);
    EXPECT_NE(r.err.find("standard input"), std::string::npos) << args << ": " << Describe(r);
  }
}


// ---- corpus add's note, corpus rm -------------------------------------------------

// A lab recording added without --note says what its scenario shows: the
// lab's own description, the note the shipped corpus holds for it.
TEST(CorpusNotes, ALabRecordingAddedWithoutANoteSaysWhatItsScenarioShows) {
  TempDir dir("notes");
  CommandResult r = Proctape({"corpus", "add", kPidReuse, "--corpus", dir.File("c")});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Manifest added, shipped;
  std::string error;
  ASSERT_TRUE(LoadManifest(dir.File("c"), false, &added, &error)) << error;
  ASSERT_TRUE(LoadManifest(kSource + "/corpus", false, &shipped, &error)) << error;
  ASSERT_EQ(added.entries.size(), 1u);
  ASSERT_NE(lab::FindScenario("pid-reuse"), nullptr);
  EXPECT_EQ(added.entries[0].shows, lab::FindScenario("pid-reuse")->shows);
  for (const ManifestEntry& e : shipped.entries) {
    if (e.name == "pid-reuse-unshare") {
      EXPECT_EQ(added.entries[0].shows, e.shows);
    }
  }
  // A note given is the note.
  r = Proctape({"corpus", "add", kHostileComm, "--corpus", dir.File("c"), "--note", "mine"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  ASSERT_TRUE(LoadManifest(dir.File("c"), false, &added, &error)) << error;
  ASSERT_EQ(added.entries.size(), 2u);
  EXPECT_EQ(added.entries[0].shows, "mine");  // hostile-comm-unshare sorts first
}


// corpus rm NAME: the entry leaves the MANIFEST, its file the directory; the
// corpus still checks. An unknown name removes nothing (exit 2).
TEST(CorpusRm, RemovesTheEntryAndItsFile) {
  TempDir dir("rm");
  const std::string corpus = dir.File("c");
  ASSERT_EQ(Proctape({"corpus", "add", kPidReuse, kHostileComm, "--corpus", corpus}).exit_code, 0);
  Manifest before;
  std::string error;
  ASSERT_TRUE(LoadManifest(corpus, false, &before, &error)) << error;
  ASSERT_EQ(before.entries.size(), 2u);

  CommandResult unknown = Proctape({"corpus", "rm", "pid-reuse-unshare", "nope", "--corpus", corpus});
  EXPECT_EQ(unknown.exit_code, 2) << Describe(unknown);
  EXPECT_TRUE(live::OneLine(unknown.err)) << Describe(unknown);
  EXPECT_TRUE(live::Exists(corpus + "/" + before.entries[1].file));

  CommandResult r = Proctape({"corpus", "rm", "pid-reuse-unshare", "--corpus", corpus});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out.rfind("removed pid-reuse-unshare ", 0), 0u) << Describe(r);
  Manifest after;
  ASSERT_TRUE(LoadManifest(corpus, false, &after, &error)) << error;
  ASSERT_EQ(after.entries.size(), 1u);
  EXPECT_EQ(after.entries[0].name, "hostile-comm-unshare");
  EXPECT_FALSE(live::Exists(corpus + "/" + before.entries[1].file));
  EXPECT_EQ(Proctape({"corpus", "check", corpus}).exit_code, 0);

  CommandResult none = Proctape({"corpus", "rm", "x", "--corpus", dir.File("nothing")});
  EXPECT_EQ(none.exit_code, 23) << Describe(none);
}


// ownership: a --uid or --cgroup that is not the verifier's (an empty scope
// among them) is refused with its own status, 26, saying what the scope holds.
TEST(EmptySelection, OwnershipOfAScopeWithoutTheVerifierExits26) {
  for (const std::vector<std::string>& scope : std::vector<std::vector<std::string>>{
           {"--uid", "4242", "--cgroup", "/"}, {"--uid", "0", "--cgroup", "/nonexistent"}}) {
    std::vector<std::string> args = {"ownership", "--baseline", kPidReuse, "--current",
                                     kHostileComm, "--self", "1"};
    args.insert(args.end(), scope.begin(), scope.end());
    CommandResult r = Proctape(args);
    EXPECT_EQ(r.exit_code, 26) << scope[1] << " " << scope[3] << ": " << Describe(r);
    EXPECT_NE(r.out.find("REFUSED"), std::string::npos) << Describe(r);
    EXPECT_NE(r.out.find("scope-without-verifier"), std::string::npos) << Describe(r);
    EXPECT_NE(r.out.find("0 processes are in it"), std::string::npos) << Describe(r);
  }
  CommandResult table = Proctape({"help", "exit-codes"});
  EXPECT_NE(table.out.find("\n 26  ownership: "), std::string::npos) << Describe(table);
}

// The root cgroup "/" is planned, with a warning on standard error (JSON
// under --json) that says what it may hold.
TEST(EmptySelection, OwnershipOfTheRootCgroupWarns) {
  CommandResult r = Proctape({"ownership", "--baseline", kPidReuse, "--current", kHostileComm,
                              "--uid", "0", "--cgroup", "/", "--self", "1", "--json"});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_TRUE(live::OneLine(r.err)) << Describe(r);
  EXPECT_TRUE(live::StartsWith(r.err, "{\"command\":\"ownership\",")) << Describe(r);
  EXPECT_NE(r.err.find("\"warning\":\"--cgroup / is the root cgroup"), std::string::npos)
      << Describe(r);
}


// ---- Help that fits a person --------------------------------------------------

// Every command's help: exit 0, no line over 80 columns, a blank line before
// "Usage:", value names that say what a value is (FILE, DIR, PID, N, ...),
// and no parser noise or private references: no generic VALUE or TEXT, no
// "FILES(1x)", no "TEXT:{a,b}" or "[2 - 2147483647]", no "the seed".
TEST(Help, EveryCommandsHelpFitsEightyColumnsWithoutParserNoise) {
  const std::vector<live::CommandWords> commands = live::EveryCommand();
  ASSERT_GE(commands.size(), 18u) << "commands found: " << commands.size();
  for (std::vector<std::string> args : commands) {
    std::string name;
    for (const std::string& a : args) name += a + " ";
    args.push_back("--help");
    CommandResult r = Proctape(args);
    EXPECT_EQ(r.exit_code, 0) << name << Describe(r);
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
      EXPECT_LE(live::Columns(line), 80u) << name << "--help: " << line;
    }
    if (args[0] != "help") {
      EXPECT_NE(r.out.find("\n\nUsage: proctape "), std::string::npos) << name << r.out;
    }
    for (const char* noise : {"VALUE", "TEXT", "(1x)", ":{", " INT", "UINT", " - 2147483647]",
                              "Print this help"}) {
      EXPECT_EQ(r.out.find(noise), std::string::npos) << name << "--help holds " << noise;
    }
    std::string lower = r.out;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    EXPECT_EQ(lower.find("seed"), std::string::npos) << name << "--help cites the seed";
  }
}

// `help --help` is the list of commands, like `help`.
TEST(Help, HelpOfHelpIsTheListOfCommands) {
  CommandResult list = Proctape({"help"});
  CommandResult r = Proctape({"help", "--help"});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out, list.out);
}


// ---- Failures through one channel ----------------------------------------------

// Under --json a failure is one JSON object on standard error, in every
// command (these printed text before).
TEST(JsonFailures, EveryCommandsFailureIsJsonUnderJson) {
  struct Case {
    std::vector<std::string> args;
    std::string command;
    int exit_code;
  };
  for (const Case& c : std::vector<Case>{
           {{"diff", kPidReuse, kHostileComm, "--frames", "0", "1", "--json"}, "diff", 2},
           {{"tree", "/nonexistent/x.ptape", "--json"}, "tree", 10},
           {{"lab", "--list", "plain", "--json"}, "lab", 2},
           {{"resolve", "--token", "T", "--json"}, "resolve", 2},
           {{"show", "/nonexistent/x.ptape", "--json"}, "show", 10}}) {
    CommandResult r = Proctape(c.args);
    EXPECT_EQ(r.exit_code, c.exit_code) << c.command << ": " << Describe(r);
    EXPECT_TRUE(live::OneLine(r.err)) << c.command << ": " << Describe(r);
    EXPECT_TRUE(live::StartsWith(r.err, "{\"command\":\"" + c.command + "\",\"error\":"))
        << c.command << ": " << Describe(r);
    const std::string status = "\"exit_status\":" + std::to_string(c.exit_code);
    const std::size_t at = r.err.find(status);
    ASSERT_NE(at, std::string::npos) << c.command << ": " << Describe(r);
    EXPECT_TRUE(r.err[at + status.size()] == ',' || r.err[at + status.size()] == '}') << r.err;
  }
}


// A resolve that retries until its deadline says so on a terminal, and
// clears the line before its verdict; its recording is the same with or
// without anyone watching (the progress reads the CLI's own clock, never the
// evidence): the recording replays.
TEST(ProgressCli, ResolveShowsItsRetriesOnATerminal) {
  TempDir dir("progress");
  const std::string token = live::RandomHex(16);
  CommandResult r = ProctapeOnTerminal({"resolve", "--root", std::to_string(::getpid()),
                                        "--token", token, "--deadline-ms", "2000", "--record",
                                        dir.File("r.ptape")});
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
}  // namespace proctape
