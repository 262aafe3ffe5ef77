// SPDX-License-Identifier: Apache-2.0
// Outputs that can neither destroy an input nor fail silently
// (docs/cli/outputs.md, "An output is never an input" and "Standard output"):
//   - every command that writes a file refuses, before any work and --force
//     or not, an output that is one of its inputs -- the same file by any
//     name (itself, ./NAME, a hard link, a symbolic link, standard input), or
//     a path inside an input directory (the corpus, --proc-root), or
//     a directory output holding an input: exit 2, one line naming both, the
//     input as it was;
//   - every command that prints, run with standard output on /dev/full (a
//     full disk), says so in one line and fails with 10, in text and --json;
//   - `--` ends the options: a FILE named --json does not make errors JSON.
// Every process a test starts is its own child, ended by its pid.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "tests/live/build_paths.h"
#include "tests/live/cli_contract.h"
#include "tests/live/cli_contract_table.h"
#include "tests/live/files.h"
#include "tests/live/json_document.h"
#include "tests/live/output_writers.h"
#include "tests/live/sandbox.h"

namespace proctape::live {
namespace {

namespace fs = std::filesystem;
using Argv = std::vector<std::string>;

// ---- An output is never an input --------------------------------------------

// What each case stages in its directory before the run (Made), and the
// command line whose output is one of its own inputs.
struct Made {
  std::string dir;
  std::string recording;  // DIR/in.ptape, a copy of a corpus recording
  std::string corpus;     // DIR/cj, a copy of the repository's corpus
  std::string frame;      // DIR/frame, an export of in.ptape (--format proc-dir)
  std::string sleep;      // DIR/sleep, a copy of /bin/sleep
  std::string fp;         // DIR/fp.ptape, a fingerprint of this process
};

struct SameCase {
  std::string name;
  std::function<Argv(const Made&)> args;
  std::function<std::string(const Made&)> guarded;  // the input that must stay as it was
  std::string redirect;                             // a shell redirection ("< DIR/in.ptape"), or ""
  std::string input;  // how the line names the input ("FILE '", "the corpus '")
};

void PrintTo(const SameCase& c, std::ostream* os) { *os << c.name; }

std::vector<SameCase> SameCases() {
  auto rec = [](const Made& m) { return m.recording; };
  return {
      {"export_json_itself",
       [](const Made& m) {
         return Argv{"export", m.recording, "--format", "json", "-o", m.recording, "--force"};
       },
       rec, "", "FILE '"},
      {"export_json_dot_slash",
       [](const Made& m) {
         return Argv{"export", m.recording,           "--format", "json",
                     "-o",     m.dir + "/./in.ptape", "--force"};
       },
       rec, "", "FILE '"},
      {"export_json_hard_link",
       [](const Made& m) {
         fs::create_hard_link(m.recording, m.dir + "/link.ptape");
         return Argv{"export", m.recording,           "--format", "dot",
                     "-o",     m.dir + "/link.ptape", "--force"};
       },
       rec, "", "FILE '"},
      {"export_json_symlink",
       [](const Made& m) {
         fs::create_symlink(m.recording, m.dir + "/sym.ptape");
         return Argv{"export", m.recording,          "--format", "json",
                     "-o",     m.dir + "/sym.ptape", "--force"};
       },
       rec, "", "FILE '"},
      {"export_json_from_standard_input",
       [](const Made& m) {
         return Argv{"export", "-", "--format", "json", "-o", m.recording, "--force"};
       },
       rec, "<in.ptape", "standard input"},
      {"export_proc_dir_holding_its_file",
       [](const Made& m) {
         fs::copy_file(m.recording, m.frame + "/in.ptape");
         return Argv{"export", m.frame + "/in.ptape", "--format", "proc-dir", "-o", m.frame,
                     "--force"};
       },
       [](const Made& m) { return m.frame + "/in.ptape"; }, "", "FILE '"},
      {"corpus_check_junit_manifest",
       [](const Made& m) {
         return Argv{"corpus",
                     "check",
                     m.corpus,
                     "--entry",
                     "plain-unshare",
                     "--junit",
                     m.corpus + "/MANIFEST",
                     "--force"};
       },
       [](const Made& m) { return m.corpus + "/MANIFEST"; }, "", "the corpus '"},
      {"corpus_check_junit_entry",
       [](const Made& m) {
         return Argv{"corpus",  "check",         "--corpus", m.corpus,
                     "--entry", "plain-unshare", "--junit",  m.corpus + "/b552a8b49f217079.ptape",
                     "--force"};
       },
       [](const Made& m) { return m.corpus + "/b552a8b49f217079.ptape"; }, "", "the corpus '"},
      {"capture_output_in_proc_root",
       [](const Made& m) {
         return Argv{"capture", "--proc-root", m.frame, "-o", m.frame + "/proctape-frame",
                     "--force"};
       },
       [](const Made& m) { return m.frame + "/proctape-frame"; }, "", "--proc-root '"},
      {"fingerprint_output_is_exe",
       [](const Made& m) {
         return Argv{"fingerprint", "--root", SelfPid(), "--exe",
                     m.sleep,       "-o",     m.sleep,   "--force"};
       },
       [](const Made& m) { return m.sleep; }, "", "--exe '"},
      {"resolve_record_is_fingerprint",
       [](const Made& m) {
         return Argv{"resolve", "--fingerprint", m.fp, "--token", "t0k3n", "--deadline-ms",
                     "0",       "--record",      m.fp, "--force"};
       },
       [](const Made& m) { return m.fp; }, "", "--fingerprint '"},
      {"resolve_record_is_exe",
       [](const Made& m) {
         return Argv{"resolve", "--root",        SelfPid(), "--exe",    m.sleep, "--token",
                     "t0k3n",   "--deadline-ms", "0",       "--record", m.sleep, "--force"};
       },
       [](const Made& m) { return m.sleep; }, "", "--exe '"},
  };
}

std::string Slurp(const std::string& path) { return FileBytes(path); }

class OutputIsAnInput : public ::testing::TestWithParam<SameCase> {};

// Refused before any work, --force or not: exit 2, one line naming the
// output's option and the input, the input byte for byte as it was.
TEST_P(OutputIsAnInput, IsRefusedWithForceAndTheInputStaysWhole) {
  TempDir dir("outsafe");
  ASSERT_FALSE(dir.path().empty());
  Made m;
  m.dir = dir.path();
  m.recording = dir.File("in.ptape");
  m.corpus = dir.File("cj");
  m.frame = dir.File("frame");
  m.sleep = dir.File("sleep");
  m.fp = dir.File("fp.ptape");
  fs::copy_file(CorpusRecording(), m.recording);
  fs::copy(SourceCorpus(), m.corpus, fs::copy_options::recursive);
  fs::copy_file("/bin/sleep", m.sleep);
  const CommandResult exported = RunCommand({::proctape::live::TestedBinary(), "export",
                                             m.recording, "--format", "proc-dir", "-o", m.frame},
                                            120'000);
  ASSERT_EQ(exported.exit_code, 0) << Describe(exported);
  const CommandResult fp = RunCommand(
      {::proctape::live::TestedBinary(), "fingerprint", "--root", SelfPid(), "-o", m.fp}, 120'000);
  ASSERT_EQ(fp.exit_code, 0) << Describe(fp);

  const SameCase& c = GetParam();
  const Argv args = c.args(m);
  const std::string guarded = c.guarded ? c.guarded(m) : "";
  const std::string before = guarded.empty() ? "" : Slurp(guarded);
  const CommandResult r = ProctapeRedirected(c.redirect.empty() ? "" : "<" + m.recording, args);
  EXPECT_EQ(r.exit_code, 2) << Shown(args) << ": an output that is an input is a usage error\n"
                            << Describe(r);
  EXPECT_TRUE(Has(r.err, "an input of this command: refused, --force or not")) << Describe(r);
  EXPECT_TRUE(Has(r.err, c.input)) << Shown(args) << ": names the input\n" << Describe(r);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line\n" << Describe(r);
  if (!guarded.empty()) {
    EXPECT_EQ(Slurp(guarded), before) << guarded << " is as it was";
  }
  // Nothing begun beside it: no temporary in the staged directory.
  for (const auto& e : fs::recursive_directory_iterator(m.dir)) {
    EXPECT_FALSE(Has(e.path().filename().string(), ".partial")) << e.path();
  }
}

INSTANTIATE_TEST_SUITE_P(EveryWriter, OutputIsAnInput, ::testing::ValuesIn(SameCases()),
                         [](const auto& p) { return p.param.name; });

// ---- A failed write to standard output is said ------------------------------------

// Every command of the contract table, its --json run that succeeds, with
// and without --json, plus the top level's answers: standard output on
// /dev/full is a failure (exit 10), said in one line.
struct PrintCase {
  std::string name;
  Argv args;                 // a fixed command line, or
  const Row* row = nullptr;  // the row whose --json run it is,
  bool json = true;          // with --json or without
};

void PrintTo(const PrintCase& c, std::ostream* os) { *os << c.name; }

std::vector<PrintCase> PrintCases() {
  std::vector<PrintCase> cases = {
      {"help", {"help"}},
      {"help_show", {"help", "show"}},
      {"show_help_flag", {"show", "--help"}},
      {"version", {"--version"}},
      {"lab_list", {"lab", "--list"}},
      {"corpus_list", {"corpus", "list", SourceCorpus()}},
  };
  for (const Row& row : ContractTable()) {
    if (!row.json || row.json_needs_sandbox) continue;
    std::string name = NameOf(row.command);
    for (char& c : name) c = c == ' ' || c == '-' ? '_' : c;
    cases.push_back({name + "_json", {}, &row, true});
    cases.push_back({name + "_text", {}, &row, false});
  }
  return cases;
}

class FullStandardOutput : public ::testing::TestWithParam<PrintCase> {};

TEST_P(FullStandardOutput, FailsWithTenAndSaysSoInOneLine) {
  const PrintCase& c = GetParam();
  // A row's command line is made in a fresh directory (it may stage files).
  TempDir dir("outsafe-print");
  const Fixture f = FixtureIn(dir.path());
  Argv args = c.args;
  if (c.row != nullptr) {
    for (const std::string& a : c.row->json(f)) {
      if (c.json || a != "--json") args.push_back(a);
    }
  }
  const CommandResult r = ProctapeRedirected(">/dev/full", args);
  EXPECT_EQ(r.exit_code, 10) << Shown(args) << " >/dev/full\n" << Describe(r);
  EXPECT_TRUE(Has(r.err, "standard output: cannot write: No space left on device"))
      << Shown(args) << " >/dev/full\n"
      << Describe(r);
  // Standard output's one wording, -o typed or not (docs/cli/outputs.md,
  // "Standard output").
  EXPECT_FALSE(Has(r.err, "'-': standard output")) << Describe(r);
  const bool json = std::find(args.begin(), args.end(), "--json") != args.end();
  if (json) {
    EXPECT_TRUE(Has(r.err, "\"exit_status\":10")) << "the failure in JSON\n" << Describe(r);
  }
}

INSTANTIATE_TEST_SUITE_P(EveryPrinter, FullStandardOutput, ::testing::ValuesIn(PrintCases()),
                         [](const auto& p) { return p.param.name; });

// ---- `--` ends the options ------------------------------------------------------

// A FILE named --json after `--` is a file: its error is text, as the
// success path's report would be.
TEST(OperandsAfterDoubleDash, AFileNamedJsonDoesNotMakeErrorsJson) {
  TempDir dir("outsafe-dash");
  const CommandResult r = RunCommand({"/usr/bin/env", "-C", dir.path(),
                                      ::proctape::live::TestedBinary(), "verify", "--", "--json"});
  EXPECT_EQ(r.exit_code, 10) << Describe(r);
  EXPECT_EQ(r.err.rfind("proctape: ", 0), 0u) << "a text error\n" << Describe(r);
  EXPECT_FALSE(Has(r.err, "{")) << Describe(r);
}

}  // namespace
}  // namespace proctape::live
