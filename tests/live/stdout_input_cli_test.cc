// SPDX-License-Identifier: Apache-2.0
// Standard output is never an input (docs/cli/outputs.md, "An output is
// never an input"): every command that reads a file or a directory, run with
// its standard output on one of its inputs (`1<> FILE`, `>> FILE`, a file
// inside an input directory, -o -), refuses before any work: exit 2, one
// line "standard output is the same file as FILE '...', an input of this
// command: refused", the input byte for byte as it was. A regular file that
// is no input is written as before. Every command of the contract table
// (cli_contract_table.cc) and each of its inputs is run; a live --proc is no
// file to overwrite (fs/inputs.h, InputPath). Every process a test starts
// is its own child, ended by its pid.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/live/build_paths.h"
#include "tests/live/cli_contract.h"
#include "tests/live/cli_contract_table.h"
#include "tests/live/files.h"
#include "tests/live/output_writers.h"
#include "tests/live/sandbox.h"

namespace proctape::live {
namespace {

namespace fs = std::filesystem;
using Argv = std::vector<std::string>;

// 'TEXT' for the shell.
std::string Quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// A file inside the --proc-root frame `frame` (an export --format proc-dir):
// one process's stat.
std::string FileInFrame(const std::string& frame) {
  for (const auto& e : fs::directory_iterator(frame)) {
    const std::string name = e.path().filename().string();
    if (!name.empty() && std::all_of(name.begin(), name.end(), ::isdigit)) {
      return e.path().string() + "/stat";
    }
  }
  return "";
}

// One input of one command: the command line, the input made, and the file
// standard output is put on (the input itself, or a file inside it).
struct InputCase {
  std::string name;
  const Row* row = nullptr;
  const Input* input = nullptr;
};

void PrintTo(const InputCase& c, std::ostream* os) { *os << c.name; }

std::vector<InputCase> InputCases() {
  std::vector<InputCase> cases;
  for (const Row& row : ContractTable()) {
    for (const Input& input : row.inputs) {
      if (input.option == "--proc") continue;  // a live procfs: no file to write
      std::string name = NameOf(row.command) + "_" + input.option;
      for (char& c : name) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      while (std::any_of(cases.begin(), cases.end(),
                         [&](const InputCase& k) { return k.name == name; })) {
        name += "_2";
      }
      cases.push_back({name, &row, &input});
    }
  }
  return cases;
}

class StandardOutputIsAnInput : public ::testing::TestWithParam<InputCase> {};

TEST_P(StandardOutputIsAnInput, IsRefusedBeforeAnyWorkAndTheInputStaysWhole) {
  const InputCase& c = GetParam();
  TempDir dir("stdout-input");
  ASSERT_FALSE(dir.path().empty());
  const Fixture f = FixtureIn(dir.path());
  // The input, and the file standard output is put on.
  std::string path, target, what;
  if (!c.input->directory) {
    path = dir.File("in");
    fs::copy_file(c.input->option == "--exe" ? "/bin/sleep" : CorpusRecording(), path);
    target = path;
    what = "standard output is the same file as ";
  } else if (c.input->option == "--proc-root") {
    path = dir.File("frame");
    const CommandResult exported =
        RunCommand({::proctape::live::TestedBinary(), "export", CorpusRecording(), "--format",
                    "proc-dir", "-o", path},
                   120'000);
    ASSERT_EQ(exported.exit_code, 0) << Describe(exported);
    target = FileInFrame(path);
    ASSERT_FALSE(target.empty()) << "no process in " << path;
    what = "standard output is inside ";
  } else {
    path = dir.File("cj");
    fs::copy(SourceCorpus(), path, fs::copy_options::recursive);
    target = path + "/MANIFEST";
    what = "standard output is inside ";
  }
  const std::string before = FileBytes(target);
  const Argv args = c.input->args(f, path);
  // 1<>: opened for writing, not emptied: whatever is written lands on it.
  const std::string redirect = "1<>" + Quoted(target);
  const CommandResult r = ProctapeRedirected(redirect, args);
  EXPECT_EQ(r.exit_code, 2) << Shown(args, redirect) << "\n" << Describe(r);
  EXPECT_TRUE(Has(r.err, what + c.input->option) || Has(r.err, what + "the corpus '"))
      << Shown(args, redirect) << ": names the input\n"
      << Describe(r);
  EXPECT_TRUE(Has(r.err, "an input of this command: refused")) << Describe(r);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line\n" << Describe(r);
  EXPECT_EQ(FileBytes(target), before) << target << " is as it was";
}

INSTANTIATE_TEST_SUITE_P(EveryReader, StandardOutputIsAnInput, ::testing::ValuesIn(InputCases()),
                         [](const auto& p) { return p.param.name; });

// The lines the trial ran: appended to (>>), standard output by -o -, and
// the input that is standard input.
TEST(StandardOutputIsAnInputByAnyRedirection, AppendExportAndStandardInputAreRefused) {
  TempDir dir("stdout-input-lines");
  ASSERT_FALSE(dir.path().empty());
  const std::string in = dir.File("x.ptape");
  fs::copy_file(CorpusRecording(), in);
  const std::string frame = dir.File("fr");
  const CommandResult exported =
      RunCommand({::proctape::live::TestedBinary(), "export", CorpusRecording(), "--format",
                  "proc-dir", "-o", frame},
                 120'000);
  ASSERT_EQ(exported.exit_code, 0) << Describe(exported);
  const std::string in_frame = FileInFrame(frame);
  ASSERT_FALSE(in_frame.empty());
  struct Line {
    Argv args;
    std::string redirect;
    std::string guarded;
    std::string says;
  };
  const std::vector<Line> lines = {
      {{"export", in, "--format", "json"},
       ">>" + Quoted(in),
       in,
       "standard output is the same file as FILE '" + in + "', an input of this command: refused"},
      {{"export", in, "--format", "dot", "-o", "-"},
       "1<>" + Quoted(in),
       in,
       "standard output is the same file as FILE '"},
      {{"capture", "--proc-root", frame, "-o", "-"},
       ">" + Quoted(in_frame),
       "",
       "standard output is inside --proc-root '" + frame + "'"},
      {{"show", "-"},
       "<" + Quoted(in) + " 1<>" + Quoted(in),
       in,
       "standard output is the same file as standard input"},
  };
  for (const Line& l : lines) {
    const std::string before = l.guarded.empty() ? "" : FileBytes(l.guarded);
    const CommandResult r = ProctapeRedirected(l.redirect, l.args);
    EXPECT_EQ(r.exit_code, 2) << Shown(l.args, l.redirect) << "\n" << Describe(r);
    EXPECT_TRUE(Has(r.err, l.says)) << Shown(l.args, l.redirect) << "\n" << Describe(r);
    if (!l.guarded.empty()) {
      EXPECT_EQ(FileBytes(l.guarded), before) << l.guarded;
    }
  }
}

// What a new user's trial found written over (docs/cli/outputs.md, "An
// output is never an input"): standard output into the corpus `corpus add`
// reads, the MANIFEST that sql and export --format sqlite|csv read beside
// a corpus entry (as --db, -o or standard output), and standard input named
// twice by another name (`diff - /dev/stdin`): each a usage error before any
// work, the file as it was.
TEST(StandardOutputIsAnInputByAnyRedirection, TheCorpusAndTheManifestBesideAreInputsToo) {
  TempDir dir("stdout-input-corpus");
  ASSERT_FALSE(dir.path().empty());
  const std::string corpus = dir.File("cj");
  fs::copy(SourceCorpus(), corpus, fs::copy_options::recursive);
  const std::string manifest = corpus + "/MANIFEST";
  std::string entry;
  for (const auto& e : fs::directory_iterator(corpus)) {
    if (e.path().extension() == ".ptape") entry = e.path().string();
  }
  ASSERT_FALSE(entry.empty());
  struct Line {
    Argv args;
    std::string redirect;
    std::string says;
  };
  const std::vector<Line> lines = {
      {{"corpus", "add", CorpusRecording(), "--corpus", corpus},
       ">>" + Quoted(manifest),
       "standard output is inside the corpus '" + corpus + "'"},
      {{"sql", entry, "-c", "SELECT 1", "--db", manifest, "--force"},
       "",
       "the same file as the MANIFEST '" + manifest + "'"},
      {{"export", entry, "--format", "sqlite", "-o", manifest, "--force"},
       "",
       "the same file as the MANIFEST '" + manifest + "'"},
      {{"sql", entry, "-c", "SELECT 1"},
       ">>" + Quoted(manifest),
       "standard output is the same file as the MANIFEST '"},
  };
  for (const Line& l : lines) {
    const std::string before = FileBytes(manifest);
    const CommandResult r = ProctapeRedirected(l.redirect, l.args);
    EXPECT_EQ(r.exit_code, 2) << Shown(l.args, l.redirect) << "\n" << Describe(r);
    EXPECT_TRUE(Has(r.err, l.says)) << Shown(l.args, l.redirect) << "\n" << Describe(r);
    EXPECT_EQ(FileBytes(manifest), before) << Shown(l.args, l.redirect);
  }
  // A piped standard input read as '-' and again as /dev/stdin would be
  // found at its end the second time: refused, as '-' twice is.
  for (const std::string& line :
       {std::string("diff - /dev/stdin"), std::string("verify /dev/stdin /dev/stdin")}) {
    const CommandResult r = RunCommand({"/bin/sh", "-c", "cat \"$1\" | exec \"$0\" " + line,
                                        ::proctape::live::TestedBinary(), CorpusRecording()},
                                       120'000);
    EXPECT_EQ(r.exit_code, 2) << line << "\n" << Describe(r);
    EXPECT_TRUE(Has(r.err, "standard input ('-') can be read once")) << line << "\n" << Describe(r);
    EXPECT_TRUE(Has(r.err, "'/dev/stdin' (standard input)")) << line << "\n" << Describe(r);
  }
}

// A FILE given as a directory is refused by its read ("is a directory"),
// wherever standard output lies: the output is inside no input (before, with
// standard output a file in '.', a new user was told it was inside FILE '.').
TEST(StandardOutputIsAnInputByAnyRedirection, ADirectoryGivenAsFileIsRefusedAsSuchWherever) {
  TempDir dir("stdout-input-dir");
  ASSERT_FALSE(dir.path().empty());
  const std::string out = dir.File("out.txt");
  for (const Argv& args : {Argv{"verify", dir.path()}, Argv{"show", dir.path()},
                           Argv{"explore", dir.path()}, Argv{"replay", dir.path()}}) {
    const CommandResult r = ProctapeRedirected(">" + Quoted(out), args);
    EXPECT_EQ(r.exit_code, 10) << Shown(args, ">out.txt") << "\n" << Describe(r);
    EXPECT_TRUE(Has(r.err, "is a directory")) << Describe(r);
    EXPECT_FALSE(Has(r.err, "inside")) << Describe(r);
  }
}

// A regular file that is no input takes the output as before.
TEST(StandardOutputIsAnInputByAnyRedirection, AFileThatIsNoInputIsWritten) {
  TempDir dir("stdout-input-not");
  ASSERT_FALSE(dir.path().empty());
  const std::string in = dir.File("x.ptape");
  fs::copy_file(CorpusRecording(), in);
  const std::string out = dir.File("shown.txt");
  const CommandResult r = ProctapeRedirected(">" + Quoted(out), {"show", in});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_TRUE(Has(FileBytes(out), "damage: none")) << FileBytes(out);
}

}  // namespace
}  // namespace proctape::live
