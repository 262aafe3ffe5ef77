// `proctape show`, `tree` and `diff` with the built binary (issue 6, section
// 1): on every corpus recording, on damaged copies, on hand-made hostile
// files, and on fresh captures of this host; their --help and their errors.
//
// Golden files: tests/golden/{show,tree,diff}/NAME.{txt,json} hold a run's
// standard output, then (if any) "--- stderr" and its standard error, then
// "--- exit N". The binary runs with its working directory at the repository
// root (corpus files) or at a temporary directory (hand-made files), and is
// given relative paths, so no path of this machine is in a golden file.
// PROCTAPE_UPDATE_GOLDEN=1 rewrites them (review the diff before committing).
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "corpus/manifest.h"
#include "format/writer.h"
#include "tests/live/files.h"
#include "tests/live/sandbox.h"
#include "tests/unit/views_fixture.h"
#include "views.pb.h"

#ifndef PROCTAPE_BINARY
#error "PROCTAPE_BINARY must name the built proctape CLI"
#endif
#ifndef PROCTAPE_SOURCE_DIR
#error "PROCTAPE_SOURCE_DIR must name the repository root"
#endif

namespace proctape {
namespace {

using live::CommandResult;
using live::Describe;
using live::FileBytes;
using live::OneLine;
using live::StartsWith;
using live::TempDir;
using live::WriteFile;

constexpr int kTimeoutMs = 120'000;
const std::string kSource = PROCTAPE_SOURCE_DIR;

// proctape ARGS, run with its working directory at `cwd`.
CommandResult ProctapeIn(const std::string& cwd, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", cwd,
                                   PROCTAPE_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return live::RunCommand(argv, kTimeoutMs);
}

CommandResult Proctape(const std::vector<std::string>& args) { return ProctapeIn(kSource, args); }

std::string Transcript(const CommandResult& r) {
  std::string out = r.out;
  if (!r.err.empty()) out += "--- stderr\n" + r.err;
  return out + "--- exit " + std::to_string(r.exit_code) + "\n";
}

// Compares a run with tests/golden/NAME, or rewrites it.
void ExpectGolden(const std::string& name, const CommandResult& r) {
  ASSERT_TRUE(r.started && !r.timed_out) << Describe(r);
  const std::string path = kSource + "/tests/golden/" + name;
  const std::string actual = Transcript(r);
  const char* update = std::getenv("PROCTAPE_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    WriteFile(path, actual);
    return;
  }
  ASSERT_TRUE(live::Exists(path)) << "no golden file tests/golden/" << name
                                  << " (PROCTAPE_UPDATE_GOLDEN=1 writes it)\n" << actual;
  EXPECT_EQ(FileBytes(path), actual)
      << "tests/golden/" << name << " differs (PROCTAPE_UPDATE_GOLDEN=1 rewrites it)";
}

// No terminal control byte in text output: only printable ASCII and newlines.
void ExpectPlainAscii(const std::string& text) {
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    ASSERT_TRUE(c == '\n' || (u >= 0x20 && u < 0x7f)) << "byte " << static_cast<int>(u);
  }
}

struct Entry {
  std::string name;
  std::string file;  // corpus/<sha>.ptape, relative to the repository root
};

std::vector<Entry> CorpusEntries() {
  Manifest manifest;
  ManifestError error;
  EXPECT_TRUE(ParseManifest(FileBytes(kSource + "/corpus/MANIFEST"), &manifest, &error))
      << error.message;
  std::vector<Entry> out;
  for (const ManifestEntry& e : manifest.entries) out.push_back({e.name, "corpus/" + e.file});
  return out;
}

std::string CorpusFile(const std::string& name) {
  for (const Entry& e : CorpusEntries()) {
    if (e.name == name) return e.file;
  }
  ADD_FAILURE() << "no corpus entry " << name;
  return "";
}

template <typename M>
M ParseJson(const std::string& json) {
  M message;
  auto status = google::protobuf::util::JsonStringToMessage(json, &message);
  EXPECT_TRUE(status.ok()) << status.ToString() << "\n" << json;
  return message;
}

// ---- The corpus: every recording ------------------------------------------

TEST(ViewsCorpusTest, ShowEveryRecording) {
  std::vector<Entry> entries = CorpusEntries();
  ASSERT_FALSE(entries.empty());
  for (const Entry& e : entries) {
    CommandResult r = Proctape({"show", e.file});
    EXPECT_EQ(r.exit_code, 0) << e.name << "\n" << Describe(r);
    ExpectPlainAscii(r.out);
    ExpectGolden("show/" + e.name + ".txt", r);
  }
}

TEST(ViewsCorpusTest, TreeOfTheFirstFrameOfEveryRecording) {
  for (const Entry& e : CorpusEntries()) {
    CommandResult r = Proctape({"tree", e.file});
    EXPECT_EQ(r.exit_code, 0) << e.name << "\n" << Describe(r);
    ExpectPlainAscii(r.out);
    ExpectGolden("tree/" + e.name + ".txt", r);
  }
}

TEST(ViewsCorpusTest, DiffFirstAndLastFrameOfEveryRecording) {
  for (const Entry& e : CorpusEntries()) {
    CommandResult r = Proctape({"diff", e.file});
    EXPECT_EQ(r.exit_code, 0) << e.name << "\n" << Describe(r);
    ExpectPlainAscii(r.out);
    ExpectGolden("diff/" + e.name + ".txt", r);
  }
}

TEST(ViewsCorpusTest, HostileCommTreeMarksTheResolvedSleepOnOneLine) {
  CommandResult r = Proctape({"tree", CorpusFile("hostile-comm-bwrap")});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  // The sleep exec'd through a link named "x) Z 1 1 1\nx": one line, escaped, resolved.
  EXPECT_NE(r.out.find("283 \"x) Z 1 1 1\\x0ax\" S ppid=282 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("<= resolved by resolution 0"), std::string::npos) << r.out;
  r = Proctape({"tree", CorpusFile("hostile-comm-bwrap"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  ExpectGolden("tree/hostile-comm-bwrap.json", r);
  auto report = ParseJson<v1::TreeReport>(r.out);
  bool found = false;
  for (const auto& node : report.nodes()) {
    if (node.process().comm() == "x) Z 1 1 1\\x0ax") {
      found = true;
      EXPECT_EQ(node.process().state(), "S");
      EXPECT_EQ(node.process().ppid(), 282);
    }
  }
  EXPECT_TRUE(found) << r.out;
}

TEST(ViewsCorpusTest, TreeOptions) {
  const std::string reuse = CorpusFile("pid-reuse-unshare");
  ExpectGolden("tree/pid-reuse-unshare-frame2.txt", Proctape({"tree", reuse, "--frame", "2"}));
  ExpectGolden("tree/plain-bwrap-root-marker.txt",
               Proctape({"tree", CorpusFile("plain-bwrap"), "--root", "16", "--marker", "1"}));
}

TEST(ViewsCorpusTest, PidReuseShowsInTheDiffOfFramesZeroAndOne) {
  const std::string reuse = CorpusFile("pid-reuse-unshare");
  CommandResult r = Proctape({"diff", reuse, "--frames", "0", "1"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("\nreused       215: 215@1310656 ended, 215@1310660 took its pid\n"),
            std::string::npos)
      << r.out;
  ExpectGolden("diff/pid-reuse-unshare-0-1.txt", r);
  ExpectGolden("diff/pid-reuse-unshare-1-2.txt", Proctape({"diff", reuse, "--frames", "1", "2"}));
  r = Proctape({"diff", reuse, "--frames", "0", "1", "--json"});
  ExpectGolden("diff/pid-reuse-unshare-0-1.json", r);
  auto report = ParseJson<v1::DiffReport>(r.out);
  EXPECT_EQ(report.reused(), 1u);
  ASSERT_GT(report.changes_size(), 0);
  EXPECT_EQ(report.changes(0).kind(), v1::DiffReport::Change::REUSED);
}

// diff says what changed from A to B: when A's frame was captured after
// B's, one line on standard error says the order looks reversed; the output
// is the diff as asked. Two frames of one file, and two files (one of the
// two orders is reversed).
TEST(ViewsCorpusTest, DiffWarnsWhenTheOrderLooksReversed) {
  const std::string reuse = CorpusFile("pid-reuse-unshare");
  CommandResult forward = Proctape({"diff", reuse, "--frames", "0", "1"});
  EXPECT_EQ(forward.err, "") << Describe(forward);
  CommandResult backward = Proctape({"diff", reuse, "--frames", "1", "0"});
  EXPECT_EQ(backward.exit_code, 0) << Describe(backward);
  EXPECT_TRUE(OneLine(backward.err)) << Describe(backward);
  EXPECT_TRUE(StartsWith(backward.err, "proctape: warning: the order looks reversed: " + reuse +
                                           " frame 1 was captured "))
      << Describe(backward);
  EXPECT_NE(backward.out.find("reused"), std::string::npos) << Describe(backward);
  const std::string x = CorpusFile("plain-unshare"), y = CorpusFile("plain-bwrap");
  int reversed = 0;
  for (const auto& [a, b] : {std::pair{x, y}, std::pair{y, x}}) {
    CommandResult r = Proctape({"diff", a, b, "--force"});
    EXPECT_EQ(r.exit_code, 0) << Describe(r);
    reversed += r.err.find("the order looks reversed: " + a) != std::string::npos;
  }
  EXPECT_EQ(reversed, 1);
}

TEST(ViewsCorpusTest, DiffOfTwoFiles) {
  ExpectGolden("diff/plain-unshare-vs-plain-bwrap.txt",
               Proctape({"diff", CorpusFile("plain-unshare"), CorpusFile("plain-bwrap")}));
}

TEST(ViewsCorpusTest, ShowJsonParsesAsAShowReport) {
  CommandResult r = Proctape({"show", CorpusFile("pid-reuse-unshare"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  ASSERT_TRUE(OneLine(r.out)) << r.out;
  ExpectGolden("show/pid-reuse-unshare.json", r);
  auto report = ParseJson<v1::ShowReport>(r.out);
  EXPECT_TRUE(report.intact());
  EXPECT_EQ(report.frames_size(), 3);
  ASSERT_EQ(report.resolutions_size(), 2);
  EXPECT_EQ(report.resolutions(0).verdict().pid(), 215);
  EXPECT_EQ(report.resolutions(1).liveness_verdict().reason(), v1::Verdict::PID_REUSED);
  // The token is the kept entry: its value is not shown.
  EXPECT_EQ(r.out.find("128515759c1987ff604c2ff47ac5d0d8"), std::string::npos);
}

// ---- Damaged files ---------------------------------------------------------

TEST(ViewsDamageTest, ATruncatedFileIsShownUpToTheDamage) {
  TempDir dir("views");
  const std::string bytes = FileBytes(kSource + "/" + CorpusFile("pid-reuse-unshare"));
  ASSERT_GT(bytes.size(), 4144u);
  WriteFile(dir.File("cut.ptape"), bytes.substr(0, 4144));  // inside chunk 3 (the third frame)
  CommandResult r = ProctapeIn(dir.path(), {"show", "cut.ptape"});
  EXPECT_EQ(r.exit_code, 13) << Describe(r);
  EXPECT_TRUE(OneLine(r.err)) << r.err;
  ExpectGolden("show/truncated.txt", r);
  r = ProctapeIn(dir.path(), {"tree", "cut.ptape", "--frame", "1"});
  EXPECT_EQ(r.exit_code, 13) << Describe(r);
  ExpectGolden("tree/truncated-frame1.txt", r);
  r = ProctapeIn(dir.path(), {"tree", "cut.ptape", "--frame", "2"});
  EXPECT_EQ(r.exit_code, 13) << Describe(r);
  EXPECT_EQ(r.out, "");
  r = ProctapeIn(dir.path(), {"diff", "cut.ptape"});
  EXPECT_EQ(r.exit_code, 13) << Describe(r);
  ExpectGolden("diff/truncated.txt", r);
}

TEST(ViewsDamageTest, AFlippedBitIsShownUpToTheDamagedChunk) {
  TempDir dir("views");
  std::string bytes = FileBytes(kSource + "/" + CorpusFile("pid-reuse-unshare"));
  ASSERT_GT(bytes.size(), 6000u);
  bytes[6000] = static_cast<char>(bytes[6000] ^ 0x10);  // inside chunk 4 (observations)
  WriteFile(dir.File("flipped.ptape"), bytes);
  CommandResult r = ProctapeIn(dir.path(), {"show", "flipped.ptape"});
  EXPECT_GE(r.exit_code, 13) << Describe(r);
  EXPECT_LE(r.exit_code, 16) << Describe(r);
  ExpectGolden("show/flipped.txt", r);
}

// ---- Hand-made hostile files -----------------------------------------------

// Writes `snapshot` with the real writer.
void WriteSnapshot(const std::string& path, const Snapshot& snapshot) {
  std::string error;
  ASSERT_TRUE(live::WriteSnapshotFile(path, snapshot, &error)) << error;
}

// A host whose names attack the display: a comm with a newline, a forged
// stat tail and a terminal escape; argv with quotes, backslashes, a newline
// that forges a tree line, OSC and CSI sequences; a kernel thread; a record
// whose stat does not parse.
Snapshot HostileHost() {
  using test::Proc;
  std::vector<Proc> before = {
      Proc(1).Comm("init").Ppid(0).Start(1).Argv({"/sbin/init"}).Uid(0),
      Proc(2).Comm("kthreadd").Ppid(0).Start(1).Argv({}).Uid(0).ExeIno(0).Flags(test::kKthreadFlags),
      Proc(3).Comm("kworker/0:0").Ppid(2).Start(1).Argv({}).Uid(0).ExeIno(0).Flags(test::kKthreadFlags),
      Proc(40).Comm("app-server").Start(400).Argv({"app-server"}),
      Proc(41).Comm("x) Z 1 1 1\nx\x1b[2J\x1b]0;owned\x07").Ppid(40).Start(410).Argv({"/bin/sleep\n`-1 \"init\" S", "a\"b\\c", "\x9b" "31m", ""}).Nspid({41, 1}),
      Proc(42).Comm("(sd-pam)").Ppid(40).Start(420).Argv({"(sd-pam)"}),
  };
  std::vector<Proc> after = before;
  after[5].start = 425;  // pid 42 reused
  after[4].argv = {"/bin/sleep", "120"};
  Snapshot s = test::MakeSnapshot({test::MakeFrame(0, before, 1'000'000'000),
                                   test::MakeFrame(1, after, 3'000'000'000)});
  s.frames[0].mutable_processes(3)->mutable_stat()->set_data("40 (app-server) S 1 40");
  s.header.mutable_host()->set_hostname("ci\n\x1b[31mhost");
  s.resolutions.push_back(test::Resolved(40, 400, 41, 410, 2'000'000'000));
  return s;
}

TEST(ViewsHostileTest, HostileNamesAreEscapedInEveryView) {
  TempDir dir("views");
  ASSERT_NO_FATAL_FAILURE(WriteSnapshot(dir.File("hostile.ptape"), HostileHost()));
  struct Run {
    std::string golden;
    std::vector<std::string> args;
  };
  for (const Run& run : std::vector<Run>{
           {"show/hostile.txt", {"show", "hostile.ptape"}},
           {"tree/hostile.txt", {"tree", "hostile.ptape", "--marker", "1"}},
           {"tree/hostile-frame1-kernel.txt", {"tree", "hostile.ptape", "--frame", "1", "--kernel"}},
           {"diff/hostile.txt", {"diff", "hostile.ptape"}},
       }) {
    CommandResult r = ProctapeIn(dir.path(), run.args);
    EXPECT_EQ(r.exit_code, 0) << Describe(r);
    ExpectPlainAscii(r.out);
    ExpectGolden(run.golden, r);
  }
  CommandResult r = ProctapeIn(dir.path(), {"tree", "hostile.ptape", "--json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  ASSERT_TRUE(OneLine(r.out)) << r.out;
  ExpectPlainAscii(r.out);
}

TEST(ViewsHostileTest, FramesOfDifferentBootsAreRefusedUnlessForced) {
  TempDir dir("views");
  Snapshot a = HostileHost();
  Snapshot b = HostileHost();
  b.header.mutable_host()->set_boot_id("another-boot\n");
  ASSERT_NO_FATAL_FAILURE(WriteSnapshot(dir.File("a.ptape"), a));
  ASSERT_NO_FATAL_FAILURE(WriteSnapshot(dir.File("b.ptape"), b));
  CommandResult r = ProctapeIn(dir.path(), {"diff", "a.ptape", "b.ptape"});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(OneLine(r.err)) << r.err;
  ExpectGolden("diff/different-boots-refused.txt", r);
  r = ProctapeIn(dir.path(), {"diff", "a.ptape", "b.ptape", "--force"});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  ExpectGolden("diff/different-boots-forced.txt", r);
  r = ProctapeIn(dir.path(), {"diff", "a.ptape", "b.ptape", "--force", "--json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  auto report = ParseJson<v1::DiffReport>(r.out);
  EXPECT_TRUE(report.different_boots());
  EXPECT_EQ(report.warnings_size(), 1);
}

// ---- Errors and --help -----------------------------------------------------

TEST(ViewsCliTest, ErrorsAreOneLineWithTheirExitStatus) {
  TempDir dir("views");
  WriteFile(dir.File("text.ptape"), "not a snapshot\n");
  CommandResult r = ProctapeIn(dir.path(), {"show", "text.ptape"});
  EXPECT_EQ(r.exit_code, 11) << Describe(r);
  EXPECT_TRUE(OneLine(r.err) && StartsWith(r.err, "proctape: text.ptape: ")) << r.err;
  EXPECT_EQ(r.out, "");

  ASSERT_NO_FATAL_FAILURE(WriteSnapshot(
      dir.File("one.ptape"), test::MakeSnapshot({test::MakeFrame(0, {test::Proc(1).Ppid(0)})})));
  r = ProctapeIn(dir.path(), {"diff", "one.ptape"});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_TRUE(OneLine(r.err) && StartsWith(r.err, "proctape: diff: one.ptape holds one frame: give a "
                                                  "second file to compare it with"))
      << r.err;

  const std::string plain = CorpusFile("plain-unshare");
  const std::string reuse = CorpusFile("pid-reuse-unshare");
  struct Case {
    std::vector<std::string> args;
    int exit_code;
    std::string prefix;
  };
  for (const Case& c : std::vector<Case>{
           {{"show", "missing.ptape"}, 10, "proctape: missing.ptape: "},
           {{"tree", "missing.ptape"}, 10, "proctape: missing.ptape: "},
           {{"diff", "missing.ptape", plain}, 10, "proctape: missing.ptape: "},
           {{"tree", reuse, "--frame", "3"}, 2, "proctape: tree: --frame 3: " + reuse + " has 3 frames"},
           {{"tree", reuse, "--root", "4242"}, 5, "proctape: --root 4242: no process has that pid"},
           {{"tree", reuse, "--marker", "0"}, 2, "proctape: tree: --marker: '0' is outside 1..2^31-1"},
           {{"diff", plain, reuse, "--frames", "0", "1"}, 2,
            "proctape: diff: --frames I J picks two frames of one file"},
           {{"diff", reuse, "--frames", "0", "1", "--frame-a", "0"}, 2, "proctape: diff: give --frames I J"},
           {{"diff", reuse, "--frames", "0", "9"}, 2, "proctape: diff: --frames 9: " + reuse + " has 3 frames"},
           {{"diff", reuse, plain, plain}, 2, "proctape: "},
       }) {
    r = Proctape(c.args);
    std::string what;
    for (const std::string& a : c.args) what += a + " ";
    EXPECT_EQ(r.exit_code, c.exit_code) << what << "\n" << Describe(r);
    EXPECT_TRUE(OneLine(r.err)) << what << "\n" << r.err;
    EXPECT_TRUE(StartsWith(r.err, c.prefix)) << what << "\n" << r.err;
    EXPECT_EQ(r.out, "") << what;
  }
}

TEST(ViewsCliTest, HelpTeachesEachCommand) {
  for (const std::string command : {"show", "tree", "diff"}) {
    CommandResult r = Proctape({command, "--help"});
    EXPECT_EQ(r.exit_code, 0) << Describe(r);
    EXPECT_NE(r.out.find("Examples:\n  proctape " + command + " "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("--json"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("docs/views.md"), std::string::npos) << r.out;
    // The statuses it gives, and where the whole table is.
    EXPECT_NE(r.out.find("\nExit status: 0"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("'proctape help exit-codes'"), std::string::npos) << r.out;
  }
  CommandResult r = Proctape({"--help"});
  for (const char* command : {"show", "tree", "diff"}) {
    EXPECT_NE(r.out.find(std::string("\n  ") + command + " "), std::string::npos) << r.out;
  }
}

// ---- A fresh capture of this host ------------------------------------------

TEST(ViewsLiveTest, FreshCapturesOfThisHost) {
  TempDir dir("views");
  const pid_t self = ::getpid();
  std::optional<live::ProcStat> me = live::ReadStat(self);
  ASSERT_TRUE(me.has_value());
  CommandResult r = ProctapeIn(dir.path(), {"capture", "-o", "a.ptape"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);

  std::string error;
  std::unique_ptr<live::Child> child = live::Child::Start({"/bin/sleep", "120"}, &error);
  ASSERT_NE(child, nullptr) << error;
  ASSERT_TRUE(child->WaitForCmdline(std::string("/bin/sleep\0" "120\0", 15), 5000));
  std::optional<live::ProcStat> sleep = live::ReadStat(child->pid());
  ASSERT_TRUE(sleep.has_value());
  r = ProctapeIn(dir.path(), {"capture", "-o", "b.ptape"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  const pid_t sleep_pid = child->pid();
  child.reset();  // SIGKILL by pid and reaped: gone
  r = ProctapeIn(dir.path(), {"capture", "-o", "c.ptape"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);

  r = ProctapeIn(dir.path(), {"show", "a.ptape"});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("\nframes: 1 ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\ndamage: none ("), std::string::npos) << r.out;
  ExpectPlainAscii(r.out);

  // This test process, in the tree, with its own start tick.
  r = ProctapeIn(dir.path(), {"tree", "a.ptape"});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  ExpectPlainAscii(r.out);
  const std::string me_line = std::to_string(self) + " \"";
  std::size_t at = r.out.find("-" + me_line);
  if (at == std::string::npos) at = r.out.find("\n" + me_line);
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string line = r.out.substr(at, r.out.find('\n', at + 1) - at);
  EXPECT_NE(line.find(" ppid=" + std::to_string(me->ppid) + " "), std::string::npos) << line;
  EXPECT_NE(line.find(" start=" + std::to_string(me->start_ticks) + " ("), std::string::npos)
      << line;

  // The sleep, beneath this process, in b only.
  r = ProctapeIn(dir.path(), {"tree", "b.ptape", "--root", std::to_string(self)});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("-" + std::to_string(sleep_pid) + " \"sleep\" "), std::string::npos)
      << r.out;

  r = ProctapeIn(dir.path(), {"diff", "a.ptape", "b.ptape", "--json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  auto appeared = ParseJson<v1::DiffReport>(r.out);
  bool found = false;
  for (const auto& c : appeared.changes()) {
    if (c.pid() != sleep_pid) continue;
    found = true;
    EXPECT_EQ(c.kind(), v1::DiffReport::Change::APPEARED);
    EXPECT_EQ(c.after().start_ticks(), sleep->start_ticks);
    EXPECT_EQ(c.after().ppid(), self);
  }
  EXPECT_TRUE(found) << r.out;

  r = ProctapeIn(dir.path(), {"diff", "b.ptape", "c.ptape"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("\nexited       " + std::to_string(sleep_pid) + " \"sleep\" "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(" start=" + std::to_string(sleep->start_ticks) + " "), std::string::npos);
}

// A `capture --root` of this test's subtree beside a whole-host capture: the
// host's other processes are outside the subtree's scope, never "exited";
// the sleep that ended beneath this process is exited.
TEST(ViewsLiveTest, DiffOfAWholeHostAndARootCaptureTellsScopeFromExit) {
  TempDir dir("views-scope");
  const pid_t self = ::getpid();
  std::string error;
  std::unique_ptr<live::Child> child = live::Child::Start({"/bin/sleep", "120"}, &error);
  ASSERT_NE(child, nullptr) << error;
  ASSERT_TRUE(child->WaitForCmdline(std::string("/bin/sleep\0" "120\0", 15), 5000));
  const pid_t sleep_pid = child->pid();
  CommandResult r = ProctapeIn(dir.path(), {"capture", "-o", "host.ptape"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  child.reset();  // SIGKILL by pid and reaped: gone
  r = ProctapeIn(dir.path(), {"capture", "--root", std::to_string(self), "-o", "mine.ptape"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);

  r = ProctapeIn(dir.path(), {"diff", "host.ptape", "mine.ptape"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("\nscope: A holds the whole host; B holds pid " + std::to_string(self) +
                       " and its descendants\n"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nexited       " + std::to_string(sleep_pid) + " \"sleep\" "),
            std::string::npos) << r.out;
  // Init (pid 1) is not beneath this process: outside B's scope, counted
  // (--all lists it).
  EXPECT_NE(r.out.find("\noutside B    "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" processes of A: not in B: it holds only pid " + std::to_string(self)),
            std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\nexited       1 "), std::string::npos) << r.out;
  CommandResult all = ProctapeIn(dir.path(), {"diff", "host.ptape", "mine.ptape", "--all"});
  EXPECT_NE(all.out.find("\noutside B    1 "), std::string::npos) << all.out;
  EXPECT_NE(r.err.find("B holds pid " + std::to_string(self) + " and its descendants"),
            std::string::npos) << r.err;

  r = ProctapeIn(dir.path(), {"diff", "host.ptape", "mine.ptape", "--json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  auto report = ParseJson<v1::DiffReport>(r.out);
  EXPECT_GT(report.out_of_scope(), 0u);
  // Exited: the sleep, and the first capture's own process; both were this
  // test's children. Nothing else of the host is said to have exited.
  bool sleep_exited = false;
  for (const auto& c : report.changes()) {
    if (c.kind() != v1::DiffReport::Change::EXITED) continue;
    EXPECT_EQ(c.before().ppid(), self) << c.pid();
    if (c.pid() == sleep_pid) sleep_exited = true;
  }
  EXPECT_TRUE(sleep_exited) << r.out;
}

}  // namespace
}  // namespace proctape
