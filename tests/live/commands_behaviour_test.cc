// SPDX-License-Identifier: Apache-2.0
// The commands' behaviour from the binary (`docs/cli/commands.md`): what a new
// user tripped on, each rule a test. Options that cannot mean anything are
// usage errors naming the option; counts and refusals name what they looked at.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tests/live/build_paths.h"
#include "tests/live/files.h"
#include "tests/live/json_document.h"

namespace proctape {
namespace {

using live::CommandResult;
using live::Describe;
using live::OneLine;
using live::Proctape;
using live::StartsWith;
using live::TempDir;

// ---- PID options and pid_max ---------------------------------------------------

// Every PID option read against the live host (resolve, fingerprint and
// capture --root, liveness --pid) refuses a pid at or above the host's
// pid_max the same way: a usage error naming the option and pid_max, before
// any output is written — not MISSING_ROOT, not "in no frame".
TEST(PidOptions, AtOrAbovePidMaxAreUsageErrorsNamingPidMax) {
  TempDir dir("pidmax");
  const std::int64_t pid_max = live::PidMax();
  ASSERT_GT(pid_max, 0);
  for (const std::string& pid : {std::to_string(pid_max), std::to_string(pid_max + 1)}) {
    for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
             {"resolve", "--root", pid, "--token", "T"},
             {"resolve", "--root", pid, "--root-start", "5", "--token", "T"},
             {"fingerprint", "--root", pid, "-o", dir.File("fp.ptape")},
             {"capture", "--root", pid, "-o", dir.File("c.ptape")},
             {"liveness", "--pid", pid, "--start", "5"}}) {
      CommandResult r = Proctape(args);
      EXPECT_EQ(r.exit_code, 2) << args[0] << " " << pid << ": " << Describe(r);
      EXPECT_TRUE(r.out.empty()) << Describe(r);
      EXPECT_TRUE(OneLine(r.err)) << Describe(r);
      EXPECT_TRUE(StartsWith(r.err, "proctape: " + args[0] + ": " + args[1] + " " + pid + " "))
          << Describe(r);
      EXPECT_NE(r.err.find("pid_max " + std::to_string(pid_max)), std::string::npos) << Describe(r);
      EXPECT_TRUE(live::Entries(dir.path()).empty()) << args[0] << ": nothing written";
    }
  }
}

// ---- Empty strings ---------------------------------------------------------------

// A string option that cannot mean anything empty — a path, an entry's or a
// scenario's name, a note, a verdict, a DEV:INO, a cgroup — refuses '' as a
// usage error naming the option, before any work: not a later "cannot
// open", not a silent default (`capture --proc-root ''` captured /proc,
// `corpus add --name ''` took the default name, `replay --exe-identity ''`
// replayed as recorded).
TEST(EmptyValues, AreUsageErrorsNamingTheOption) {
  TempDir dir("empty-values");
  const std::string file = std::string(PROCTAPE_SOURCE_DIR) + "/tests/data/replay/resolved.ptape";
  ASSERT_TRUE(live::Exists(file)) << file;
  const std::string corpus = dir.File("corpus");
  const std::string out = dir.File("out.ptape");
  struct Case {
    std::vector<std::string> args;
    std::string option;
  };
  const std::vector<Case> cases = {
      {{"verify", ""}, "FILE"},
      {{"show", ""}, "FILE"},
      {{"tree", ""}, "FILE"},
      {{"diff", "", file}, "FILE"},
      {{"explain", ""}, "FILE"},
      {{"export", "", "--format", "json", "-o", out}, "FILE"},
      {{"replay", ""}, "FILE"},
      {{"replay", file, "--exe-identity", ""}, "--exe-identity"},
      {{"replay", file, "--fingerprint", ""}, "--fingerprint"},
      {{"resolve", "--fingerprint", "", "--token", "T"}, "--fingerprint"},
      {{"resolve", "--root", "2", "--token", "T", "--exe", ""}, "--exe"},
      {{"resolve", "--root", "2", "--token", "T", "--proc", ""}, "--proc"},
      {{"liveness", "--pid", "2", "--start", "1", "--proc", ""}, "--proc"},
      {{"fingerprint", "--root", "2", "--proc", "", "-o", out}, "--proc"},
      {{"fingerprint", "--root", "2", "--exe", "", "-o", out}, "--exe"},
      {{"capture", "--proc", "", "-o", out}, "--proc"},
      {{"capture", "--proc-root", "", "-o", out}, "--proc-root"},
      {{"corpus", "add", file, "--corpus", corpus, "--name", ""}, "--name"},
      {{"corpus", "add", file, "--corpus", corpus, "--note", ""}, "--note"},
      {{"corpus", "add", file, "--corpus", corpus, "--expect", ""}, "--expect"},
      {{"corpus", "add", "", "--corpus", corpus}, "FILE"},
      {{"corpus", "check", "--corpus", corpus, "--entry", ""}, "--entry"},
      {{"corpus", "rm", "", "--corpus", corpus}, "NAME"},
      {{"lab", "", "--record", out}, "SCENARIO"},
      {{"ownership", "--baseline", "", "--current", file, "--uid", "0", "--cgroup", "/", "--self",
        "2"},
       "--baseline"},
      {{"ownership", "--baseline", file, "--current", "", "--uid", "0", "--cgroup", "/", "--self",
        "2"},
       "--current"},
      {{"ownership", "--baseline", file, "--current", file, "--uid", "0", "--cgroup", "", "--self",
        "2"},
       "--cgroup"},
      {{"ownership", "--baseline", file, "--current", file, "--uid", "0", "--cgroup", "/", "--self",
        "2", "--output", ""},
       "--output"},
  };
  for (const Case& c : cases) {
    const std::string what = c.args[0] + " " + c.option + " ''";
    CommandResult r = Proctape(c.args);
    EXPECT_EQ(r.exit_code, 2) << what << ": " << Describe(r);
    EXPECT_TRUE(r.out.empty()) << what << ": " << Describe(r);
    EXPECT_TRUE(OneLine(r.err)) << what << ": " << Describe(r);
    EXPECT_NE(r.err.find(": " + c.option + ": an empty "), std::string::npos)
        << what << ": " << Describe(r);
    EXPECT_TRUE(live::Entries(dir.path()).empty()) << what << ": nothing written";
  }
  // A directory option says what it names no more of: a directory.
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"corpus", "list", ""},
                                             {"corpus", "add", file, "--corpus", ""},
                                             {"capture", "--proc-root", ""}}) {
    CommandResult r = Proctape(args);
    EXPECT_EQ(r.exit_code, 2) << Describe(r);
    EXPECT_NE(r.err.find("an empty path names no directory"), std::string::npos) << Describe(r);
  }
}

// A --proc that is not there, or not a directory, is the user's path: a
// usage error naming it (exit 2), as one that is not a procfs — not
// proctape's own failure (exit 1) to open it.
TEST(EmptyValues, ProcThatIsNotADirectoryIsAUsageErrorNamingIt) {
  TempDir dir("no-proc");
  const std::string missing = dir.File("no-such-proc");
  const std::string file = dir.File("a-file");
  live::WriteFile(file, "x");
  for (const std::string& proc : {missing, file}) {
    for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
             {"resolve", "--root", "2", "--token", "T", "--proc", proc},
             {"liveness", "--pid", "2", "--start", "1", "--proc", proc},
             {"fingerprint", "--root", "2", "--proc", proc, "-o", dir.File("fp.ptape")},
             {"capture", "--proc", proc, "-o", dir.File("c.ptape")}}) {
      CommandResult r = Proctape(args);
      EXPECT_EQ(r.exit_code, 2) << args[0] << " " << proc << ": " << Describe(r);
      EXPECT_TRUE(OneLine(r.err)) << Describe(r);
      EXPECT_TRUE(StartsWith(r.err, "proctape: " + args[0] + ": --proc '" + proc + "': "))
          << Describe(r);
      EXPECT_FALSE(live::Exists(dir.File("fp.ptape")) || live::Exists(dir.File("c.ptape")))
          << args[0] << ": nothing written";
    }
  }
}

// ---- Frames ----------------------------------------------------------------------

// A capture of the host in three frames: this test's subtree (it and the
// capturing proctape) is in each of them.
class MultiFrame : public ::testing::Test {
 protected:
  void SetUp() override {
    file_ = dir_.File("three.ptape");
    CommandResult r = Proctape({"capture", "--frames", "3", "--interval", "0", "-o", file_});
    ASSERT_EQ(r.exit_code, 0) << Describe(r);
  }
  TempDir dir_{"frames"};
  std::string file_;
};

// A frame the file does not have is refused in one wording wherever a frame
// is picked: the option, its value, the file and the frames it has.
TEST_F(MultiFrame, AFrameTheFileDoesNotHaveIsNamedWithTheFramesItHas) {
  const std::string has = file_ + " has 3 frames (0..2)";
  for (const auto& [args, message] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"tree", file_, "--frame", "7"}, "--frame 7: " + has},
           {{"export", file_, "--format", "dot", "--frame", "7", "-o", dir_.File("x.dot")},
            "--frame 7: " + has},
           {{"diff", file_, "--frames", "1", "7"}, "--frames 7: " + has},
           {{"diff", file_, "--frame-a", "7", "--frame-b", "0"}, "--frame-a 7: " + has},
           {{"diff", file_, file_, "--frame-b", "9"}, "--frame-b 9: " + has}}) {
    CommandResult r = Proctape(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << Describe(r);
    EXPECT_EQ(r.err, "proctape: " + args[0] + ": " + message + " (see 'proctape " + args[0] +
                         " --help')\n")
        << Describe(r);
  }
  EXPECT_FALSE(live::Exists(dir_.File("x.dot")));
}

// A frame compared with itself shows no change by construction: refused.
TEST_F(MultiFrame, DiffOfAFrameWithItselfIsAUsageError) {
  for (std::vector<std::string> args :
       std::vector<std::vector<std::string>>{{"diff", file_, "--frames", "1", "1"},
                                             {"diff", file_, "--frame-a", "2", "--frame-b", "2"}}) {
    CommandResult r = Proctape(args);
    EXPECT_EQ(r.exit_code, 2) << Describe(r);
    EXPECT_TRUE(r.out.empty()) << Describe(r);
    EXPECT_TRUE(OneLine(r.err)) << Describe(r);
    EXPECT_NE(r.err.find("compared with itself"), std::string::npos) << Describe(r);
  }
}

// Two FILEs that are one file (the path twice, a link to it) compare a frame
// with itself as one FILE would: refused alike, given frames or default ones
// of a one-frame file. A copy is another file, compared.
TEST_F(MultiFrame, DiffOfAFrameWithItselfThroughTwoNamesOfOneFileIsAUsageError) {
  const std::string link = dir_.File("link.ptape");
  ASSERT_EQ(::symlink(file_.c_str(), link.c_str()), 0);
  const std::string one = dir_.File("one.ptape");
  CommandResult capture = Proctape({"capture", "-o", one});
  ASSERT_EQ(capture.exit_code, 0) << Describe(capture);
  for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
           {"diff", file_, file_, "--frame-a", "1", "--frame-b", "1"},
           {"diff", file_, link, "--frame-a", "2", "--frame-b", "2"},
           {"diff", link, file_, "--frame-a", "0", "--frame-b", "0", "--json"},
           {"diff", one, one}}) {
    CommandResult r = Proctape(args);
    EXPECT_EQ(r.exit_code, 2) << Describe(r);
    EXPECT_TRUE(r.out.empty()) << Describe(r);
    EXPECT_TRUE(OneLine(r.err)) << Describe(r);
    EXPECT_NE(r.err.find("compared with itself"), std::string::npos) << Describe(r);
  }
  // Standard input redirected from the file is that file too.
  CommandResult piped = live::ProctapeRedirected("<'" + one + "'", {"diff", "-", one});
  EXPECT_EQ(piped.exit_code, 2) << Describe(piped);
  EXPECT_NE(piped.err.find("compared with itself"), std::string::npos) << Describe(piped);
  const std::string copy = dir_.File("copy.ptape");
  ASSERT_TRUE(std::filesystem::copy_file(file_, copy));
  CommandResult compared = Proctape({"diff", file_, copy, "--frame-a", "1", "--frame-b", "1"});
  EXPECT_EQ(compared.exit_code, 0) << Describe(compared);
}

// tree --root PID that is in no process of the frame selected nothing: exit 5
// (not found), as a --pid that selects nothing — not a usage error.
TEST_F(MultiFrame, TreeOfARootAbsentFromTheFrameIsNotFoundLikePid) {
  const std::string absent = live::AbsentPid();
  CommandResult pid = Proctape({"tree", file_, "--pid", absent});
  EXPECT_EQ(pid.exit_code, 5) << Describe(pid);
  CommandResult root = Proctape({"tree", file_, "--root", absent});
  EXPECT_EQ(root.exit_code, 5) << Describe(root);
  EXPECT_TRUE(OneLine(root.err)) << Describe(root);
  EXPECT_NE(root.err.find("--root " + absent), std::string::npos) << Describe(root);
}

// show's "selected" over several frames counts processes (pid, start tick),
// each once, not once a frame; the text says how many each frame holds.
TEST_F(MultiFrame, ShowCountsTheProcessesSelectedNotOnceAFrame) {
  const std::string self = std::to_string(::getpid());
  CommandResult json = Proctape({"show", file_, "--pid", self, "--json"});
  ASSERT_EQ(json.exit_code, 0) << Describe(json);
  const live::JsonDocument d = live::ParseJsonDocument(json.out);
  ASSERT_TRUE(d.ok) << d.why;
  const auto& fields = d.value.struct_value().fields();
  std::set<std::pair<double, double>> identities;
  std::size_t records = 0;
  std::string each;
  for (const auto& frame : fields.at("frames").list_value().values()) {
    const auto& chosen = frame.struct_value().fields().at("selected").struct_value().fields();
    const auto& processes = chosen.at("processes").list_value().values();
    each += (each.empty() ? "" : ", ") + std::to_string(processes.size());
    for (const auto& p : processes) {
      const auto& pf = p.struct_value().fields();
      identities.insert({pf.at("pid").number_value(), pf.at("start_ticks").number_value()});
      ++records;
    }
  }
  ASSERT_FALSE(identities.empty());
  ASSERT_GT(records, identities.size()) << "each process is in every frame";
  EXPECT_EQ(fields.at("selected").number_value(), static_cast<double>(identities.size()));

  CommandResult text = Proctape({"show", file_, "--pid", self});
  ASSERT_EQ(text.exit_code, 0) << Describe(text);
  EXPECT_NE(text.out.find("selected: " + std::to_string(identities.size()) + " process"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find(" in 3 frames: " + each + " a frame\n"), std::string::npos) << text.out;
}

}  // namespace
}  // namespace proctape
