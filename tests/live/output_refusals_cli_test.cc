// SPDX-License-Identifier: Apache-2.0
// One status and one wording per cause of an output's refusal, in every
// command and under every option that names an output (docs/cli/outputs.md,
// "Refusals" and "A directory written into"). The causes, their lines and
// their statuses are read from those tables of the document itself: each
// cause a row names is staged here for every writer it applies to
// (output_writers.h: capture, fingerprint, export in every format,
// minimize, sql --db, resolve, liveness and lab --record, corpus check
// --junit) and run from the binary; a row this test cannot stage, or a
// cause staged here that the document does not list, fails it. Every
// process a test starts is its own child, ended by its pid.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tests/live/files.h"
#include "tests/live/output_writers.h"
#include "tests/live/outputs_cli_fixture.h"

namespace proctape::live {
namespace {

using namespace outputs;  // outputs_cli_fixture.h

// ---- The tables of docs/cli/outputs.md ------------------------------------------

struct DocRow {
  std::string cause;
  std::string said;  // with its placeholders: OPTION, PATH, DIR, KIND, MARKER, INPUT
  int status = -1;
};

// The rows of the first table after the heading `heading`, up to the next
// heading: "| cause | `what is said` | status |".
std::vector<DocRow> DocTable(const std::string& heading) {
  std::ifstream in(std::string(PROCTAPE_SOURCE_DIR) + "/docs/cli/outputs.md");
  std::vector<DocRow> rows;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("### ", 0) == 0) {
      if (inside) break;
      inside = line == "### " + heading;
      continue;
    }
    if (!inside || line.rfind("| ", 0) != 0 || line.rfind("| cause", 0) == 0) continue;
    std::vector<std::string> cells;
    for (std::size_t at = 2, bar; (bar = line.find(" | ", at)) != std::string::npos; at = bar + 3) {
      cells.push_back(line.substr(at, bar - at));
    }
    cells.push_back(line.substr(line.rfind(" | ") + 3, line.size() - line.rfind(" | ") - 5));
    if (cells.size() != 3 || cells[1].size() < 2) continue;
    rows.push_back({cells[0], cells[1].substr(1, cells[1].size() - 2), std::stoi(cells[2])});
  }
  return rows;
}

std::string Substituted(std::string text, const std::map<std::string, std::string>& words) {
  // Longest first: OPTION before a word it holds.
  for (const char* word : {"OPTION", "MARKER", "INPUT", "KIND", "PATH", "DIR"}) {
    if (!words.count(word)) continue;
    for (std::size_t at; (at = text.find(word)) != std::string::npos;) {
      text.replace(at, std::string(word).size(), words.at(word));
    }
  }
  return text;
}

// ---- Each cause, staged --------------------------------------------------------

// What a cause makes in the test's directory `dir` for writer `w`: the
// output's path and the words of its line; `applies` false when the cause
// is none of w's (a directory output cannot exist as a file output does).
struct Staged {
  bool applies = true;
  std::string path;
  bool force = false;
  bool nobody = false;  // run as nobody, in a directory of root's
  std::map<std::string, std::string> words;
};

struct Where {
  std::string dir;        // the test's directory, empty
  std::string recording;  // dir/in/in.ptape: what the writers that read one read
};

using Stage = std::function<Staged(const Writer&, const Where&)>;

Staged At(std::string path, bool force = false, std::map<std::string, std::string> words = {},
          bool nobody = false) {
  Staged s;
  s.path = std::move(path);
  s.force = force;
  s.words = std::move(words);
  s.nobody = nobody;
  return s;
}

bool ReadsRecording(const Writer& w, const Where& at) {
  const std::vector<std::string> args = w.args("x");
  return std::find(args.begin(), args.end(), at.recording) != args.end();
}

std::map<std::string, Stage> Stages() {
  auto file = [](const Writer& w) { return !w.directory; };
  auto only = [](bool applies) {
    Staged s;
    s.applies = applies;
    return s;
  };
  return {
      {"its directory does not exist",
       [](const Writer&, const Where& at) {
         return At(at.dir + "/nope/out", false, {{"DIR", at.dir + "/nope"}});
       }},
      {"its directory is a file",
       [](const Writer&, const Where& at) {
         WriteFile(at.dir + "/a-file", "mine");
         return At(at.dir + "/a-file/out", false, {{"DIR", at.dir + "/a-file"}});
       }},
      {"its directory cannot be written in",
       [](const Writer&, const Where& at) {
         return At(at.dir + "/out", false, {{"DIR", at.dir}}, true);
       }},
      {"a file output names a directory, whatever the directory holds",
       [file, only](const Writer& w, const Where& at) {
         // The directory that holds the recording the writer reads.
         if (!file(w)) return only(false);
         return At(at.dir + "/in/", true);  // the same words with a trailing slash
       }},
      {"a path that can only name a directory (`d/`, `.`, `x/..`) and none is there, or a directory output named `.` or `..`",
       [file](const Writer& w, const Where& at) {
         return At(file(w) ? at.dir + "/nope/" : at.dir + "/nope/..", true);
       }},
      {"a directory output names a file",
       [file, only](const Writer& w, const Where& at) {
         if (file(w)) return only(false);
         WriteFile(at.dir + "/out", "mine");
         return At(at.dir + "/out", true);
       }},
      {"a symbolic link, dangling or not",
       [](const Writer&, const Where& at) {
         EXPECT_EQ(::symlink((at.dir + "/nowhere").c_str(), (at.dir + "/out").c_str()), 0);
         return At(at.dir + "/out", true);
       }},
      {"a device, a pipe or a socket",
       [file, only](const Writer& w, const Where& at) {
         if (!file(w)) return only(false);
         EXPECT_EQ(::mkfifo((at.dir + "/out").c_str(), 0644), 0);
         return At(at.dir + "/out", true);
       }},
      {"a file output exists, without `--force`",
       [file, only](const Writer& w, const Where& at) {
         if (!file(w)) return only(false);
         WriteFile(at.dir + "/out", "mine");
         return At(at.dir + "/out");
       }},
      {"a directory output is an earlier export, without `--force`",
       [file, only](const Writer& w, const Where& at) {
         if (file(w)) return only(false);
         std::filesystem::create_directory(at.dir + "/out");
         WriteFile(at.dir + "/out/" + w.marker, "mine");
         return At(at.dir + "/out");
       }},
      {"a directory output is a directory that is no earlier export",
       [file, only](const Writer& w, const Where& at) {
         if (file(w)) return only(false);
         std::filesystem::create_directory(at.dir + "/out");
         WriteFile(at.dir + "/out/notes", "mine");
         return At(at.dir + "/out", true, {{"MARKER", w.marker}});
       }},
      {"one of the command's inputs",
       [only](const Writer& w, const Where& at) {
         if (!ReadsRecording(w, at)) return only(false);  // output_safety_cli_test.cc's
         return At(at.recording, true, {{"INPUT", "FILE '" + at.recording + "'"}});
       }},
      {"a directory output that holds one of the command's inputs",
       [file, only](const Writer& w, const Where& at) {
         if (file(w) || !ReadsRecording(w, at)) return only(false);
         return At(at.dir + "/in", true, {{"INPUT", "FILE '" + at.recording + "'"}});
       }},
      {"`-` where the command writes no standard output",
       [only](const Writer& w, const Where&) {
         if (w.dash) return only(false);
         return At("-");
       }},
      {"an empty path", [](const Writer&, const Where&) { return At(""); }},
  };
}

class OutputRefusals : public ::testing::TestWithParam<Writer> {};

TEST(OutputRefusalTable, EveryCauseTheDocumentListsIsStagedAndNoOther) {
  const std::vector<DocRow> rows = DocTable("Refusals: one status per cause");
  ASSERT_GE(rows.size(), 10u) << "docs/cli/outputs.md, \"Refusals\": its table is not read right";
  const std::map<std::string, Stage> stages = Stages();
  std::vector<std::string> listed;
  for (const DocRow& row : rows) {
    listed.push_back(row.cause);
    EXPECT_EQ(stages.count(row.cause), 1u)
        << "the document lists a cause this test cannot stage: " << row.cause;
  }
  for (const auto& [cause, stage] : stages) {
    EXPECT_NE(std::find(listed.begin(), listed.end(), cause), listed.end())
        << "a cause staged here is not in the document's table: " << cause;
  }
}

// Each cause that applies to the writer: its status, its line (one, with
// the words of the document), nothing run and nothing written.
TEST_P(OutputRefusals, EveryCauseIsSaidInItsWordsWithItsStatus) {
  const bool as_root = ::geteuid() == 0 && !FindOnPath("setpriv").empty();
  const std::map<std::string, Stage> stages = Stages();
  for (const DocRow& row : DocTable("Refusals: one status per cause")) {
    if (!stages.count(row.cause)) continue;  // OutputRefusalTable says so
    TempDir dir("refusals");
    TempDir tmp("refusals-tmp");
    Where at{dir.path(), dir.File("in/in.ptape")};
    std::filesystem::create_directory(dir.File("in"));
    std::filesystem::copy_file(CorpusRecording(), at.recording);
    const Writer* w = nullptr;
    const std::vector<Writer> writers = Writers(at.recording);
    for (const Writer& each : writers) w = each.name == GetParam().name ? &each : w;
    ASSERT_NE(w, nullptr);
    Staged s = stages.at(row.cause)(*w, at);
    if (!s.applies || (s.nobody && !as_root)) continue;
    s.words["OPTION"] = w->option;
    s.words["PATH"] = s.path;
    s.words["KIND"] = w->directory ? "directory" : "file";
    std::vector<std::string> args = w->args(s.path);
    if (s.force) args.push_back("--force");
    Invocation how;
    how.cwd = dir.path();
    how.tmpdir = tmp.path();
    how.nobody = s.nobody;
    if (s.nobody) {  // root's, 0755: nobody may enter it, not write in it
      ASSERT_EQ(::chmod(dir.path().c_str(), 0755), 0);
      ASSERT_EQ(::chmod(tmp.path().c_str(), 0777), 0);
    }
    const std::vector<std::string> before = Entries(dir.path());
    const CommandResult r = RunProctape(how, args);
    const std::string said = Substituted(row.said, s.words);
    EXPECT_EQ(r.exit_code, row.status) << row.cause << ": " << Shown(args) << "\n" << Describe(r);
    EXPECT_TRUE(OneLine(r.err)) << row.cause << ": one line\n" << Describe(r);
    EXPECT_TRUE(Has(r.err, said)) << row.cause << ": says '" << said << "'\n" << Describe(r);
    EXPECT_EQ(r.out, "") << row.cause << ": nothing ran\n" << Describe(r);
    EXPECT_EQ(Entries(dir.path()), before) << row.cause << ": nothing written beside";
    EXPECT_EQ(Entries(tmp.path()), std::vector<std::string>{}) << row.cause << ": the lab ran";
  }
}

INSTANTIATE_TEST_SUITE_P(EveryWriter, OutputRefusals, ::testing::ValuesIn(Writers()),
                         [](const ::testing::TestParamInfo<Writer>& p) { return p.param.name; });

// ---- A directory written into ---------------------------------------------------

class IntoOutputs : public ::testing::TestWithParam<IntoWriter> {
 protected:
  void SetUp() override { ASSERT_FALSE(dir_.path().empty()); }
  TempDir dir_{"into"};
};

// DIR itself, before any work: each cause of the document's table.
TEST_P(IntoOutputs, TheDirectoryIsCheckedBeforeAnyWork) {
  const IntoWriter& w = GetParam();
  const std::vector<DocRow> rows = DocTable("A directory written into");
  ASSERT_EQ(rows.size(), 3u) << "docs/cli/outputs.md, \"A directory written into\"";
  WriteFile(dir_.File("a-file"), "mine");
  const bool as_root = ::geteuid() == 0 && !FindOnPath("setpriv").empty();
  const std::map<std::string, std::string> staged = {
      {"`DIR` does not exist", dir_.File("nope")},
      {"`DIR` is a file", dir_.File("a-file")},
      {"`DIR` cannot be written in", dir_.path()},
  };
  for (const DocRow& row : rows) {
    ASSERT_EQ(staged.count(row.cause), 1u) << "a cause this test cannot stage: " << row.cause;
    Invocation how;
    how.nobody = row.cause == "`DIR` cannot be written in";
    if (how.nobody && !as_root) continue;
    if (how.nobody) {
      ASSERT_EQ(::chmod(dir_.path().c_str(), 0755), 0);
    }
    const std::string path = staged.at(row.cause);
    const CommandResult r = RunProctape(how, w.args(path));
    EXPECT_EQ(r.exit_code, row.status) << row.cause << "\n" << Describe(r);
    EXPECT_TRUE(OneLine(r.err)) << Describe(r);
    EXPECT_TRUE(Has(r.err, Substituted(row.said, {{"PATH", path}}))) << row.cause << "\n"
                                                                     << Describe(r);
    EXPECT_EQ(r.out, "") << row.cause << ": nothing ran";
    EXPECT_EQ(Entries(dir_.path()), std::vector<std::string>{"a-file"});
  }
}

// A file an earlier run wrote is not replaced without --force: refused,
// exit 10, in the words of every output; with --force it is.
TEST_P(IntoOutputs, AFileOfAnEarlierRunIsReplacedOnlyWithForce) {
  const IntoWriter& w = GetParam();
  const std::string written = dir_.File(w.written);
  CommandResult r = RunProctape({}, w.args(dir_.path()));
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  ASSERT_TRUE(Exists(written)) << Describe(r);
  WriteFile(written, "mine");
  r = RunProctape({}, w.args(dir_.path()));
  EXPECT_EQ(r.exit_code, 10) << Describe(r);
  EXPECT_TRUE(OneLine(r.err)) << Describe(r);
  EXPECT_TRUE(
      Has(r.err, w.option + " '" + written + "': exists: refused (use --force to replace it)"))
      << Describe(r);
  EXPECT_EQ(FileBytes(written), "mine");
  EXPECT_EQ(Entries(dir_.path()), std::vector<std::string>{w.written}) << "nothing left beside";
  std::vector<std::string> forced = w.args(dir_.path());
  forced.push_back("--force");
  r = RunProctape({}, forced);
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(FileBytes(written), "mine");
  EXPECT_EQ(Proctape({"verify", written}).exit_code, 0);
}

// --force goes with a directory to write into.
TEST_P(IntoOutputs, ForceWithoutTheDirectoryIsAUsageError) {
  std::vector<std::string> args = GetParam().without;
  args.push_back("--force");
  const CommandResult r = RunProctape({}, args);
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_TRUE(Has(
      r.err, "--force replaces an existing output file, and no " + GetParam().option + " is given"))
      << Describe(r);
}

INSTANTIATE_TEST_SUITE_P(EveryWriter, IntoOutputs, ::testing::ValuesIn(IntoWriters()),
                         [](const ::testing::TestParamInfo<IntoWriter>& p) {
                           return p.param.name;
                         });

// Every file a run writes is opened before any is written: one refused
// leaves none written (explore's rarest outcomes here: MULTIPLE_MATCHES,
// then ROOT_RESTARTED; the second exists).
TEST(IntoOutputsExplore, ARefusalLeavesNoneOfTheRunsFilesWritten) {
  TempDir dir("into");
  const std::string stem = dir.File("b552a8b49f217079-check0-");
  WriteFile(stem + "ROOT_RESTARTED.ptape", "mine");
  const CommandResult r = Proctape(
      {"explore", CorpusRecording(), "--depth", "1", "--examples", "2", "--out", dir.path()});
  EXPECT_EQ(r.exit_code, 10) << Describe(r);
  EXPECT_TRUE(Has(r.err, "exists: refused (use --force to replace it)")) << Describe(r);
  EXPECT_EQ(Entries(dir.path()),
            std::vector<std::string>{"b552a8b49f217079-check0-ROOT_RESTARTED.ptape"})
      << "MULTIPLE_MATCHES, opened first, is not written";
  EXPECT_EQ(r.out, "");
}

// A DIR that is no directory has one wording whatever shape the path has
// ("f", "f/", "f/sub" where f is a file), and '-' names no directory: it is
// refused as every output's '-' where standard output cannot be written
// (docs/cli/outputs.md, "A directory written into").
TEST(IntoOutputsExplore, ADirectoryThatIsNoneHasOneWording) {
  TempDir dir("into-none");
  WriteFile(dir.File("f"), "mine");
  for (const std::string& out : {dir.File("f"), dir.File("f") + "/", dir.File("f") + "/sub"}) {
    const CommandResult r =
        Proctape({"explore", CorpusRecording(), "--depth", "1", "--examples", "1", "--out", out});
    EXPECT_EQ(r.exit_code, 10) << out << "\n" << Describe(r);
    EXPECT_EQ(r.err, "proctape: --out '" + out + "': is not a directory: refused\n") << Describe(r);
  }
  const CommandResult dash =
      Proctape({"explore", CorpusRecording(), "--depth", "1", "--examples", "1", "--out", "-"});
  EXPECT_EQ(dash.exit_code, 2) << Describe(dash);
  EXPECT_TRUE(Has(dash.err, "--out '-' (standard output) cannot be written here: name a directory"))
      << Describe(dash);
  EXPECT_EQ(Entries(dir.path()), std::vector<std::string>{"f"});
}

// Standard input's files are named "stdin-..." (a name from '-' would
// begin with '-' and read as an option), and DIR/ takes no second slash.
TEST(IntoOutputsExplore, FilesOfStandardInputAreNamedStdin) {
  TempDir dir("into-stdin");
  const std::string out = dir.path() + "/";
  const CommandResult r =
      ProctapeRedirected("<'" + CorpusRecording() + "'",
                         {"explore", "-", "--depth", "1", "--examples", "1", "--out", out});
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 20) << Describe(r);  // 20: a violation found
  const std::vector<std::string> written = Entries(dir.path());
  ASSERT_FALSE(written.empty()) << Describe(r);
  for (const std::string& name : written) {
    EXPECT_EQ(name.rfind("stdin-check0-", 0), 0u) << name;
  }
  EXPECT_FALSE(Has(r.out, "//")) << Describe(r);
}

}  // namespace
}  // namespace proctape::live
