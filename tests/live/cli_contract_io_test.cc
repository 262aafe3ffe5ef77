// SPDX-License-Identifier: Apache-2.0
// The command line's contract for what goes in and what comes out
// (docs/cli.md), proven from the binary for every command of the contract
// table (cli_contract_table.h):
//   - every path option is an input the table knows, an output of the one
//     output rule (outputs_cli_test.cc runs each rule on each writer), or
//     said to be neither;
//   - an input that is missing, or of the wrong kind (a directory for a
//     file, a file for a directory), is refused on one line with its
//     documented status; '-' with nothing on standard input is a truncated
//     file;
//   - with --json, a success is one JSON document on standard output and a
//     failure one JSON object a line on standard error, read by a real parser.
#include <gtest/gtest.h>

#include <cctype>

#include <sys/stat.h>

#include <memory>
#include <sstream>
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

using google::protobuf::Value;

std::string TestName(const ::testing::TestParamInfo<Row>& p) {
  std::string name = NameOf(p.param.command);
  for (char& c : name) c = c == ' ' || c == '-' ? '_' : c;
  return name;
}

bool NamesAnOutput(const HelpEntry& e) {
  return e.Has("-o") || e.Has("--output") || e.Has("--out") || e.Has("--record") ||
         e.Has("--junit") || e.Has("--db");
}

class IoContract : public ::testing::TestWithParam<Row> {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    fixture_ = FixtureIn(dir_.path());
  }
  std::string Name() const { return "proctape " + NameOf(GetParam().command); }

  TempDir dir_{"contract"};
  Fixture fixture_;
};

// ---- Every path option is accounted for ------------------------------------------

// A FILE, DIR or PATH option (or positional) of a command's help is an input
// the table checks, an output a writer of outputs_cli_test.cc checks, or is
// said to be neither, with why: a new one cannot escape the contract.
TEST_P(IoContract, EveryPathOptionIsAnInputOrAnOutputTheContractChecks) {
  const Row& row = GetParam();
  const Help help = HelpOf(row.command);
  for (const HelpEntry& e : HelpEntries(help.text)) {
    if (!IsPathValue(e.value)) continue;
    bool known = false;
    for (const auto& [name, why] : row.not_inputs) known |= e.Has(name);
    for (const auto& [name, why] : row.not_written) known |= e.Has(name);
    if (NamesAnOutput(e)) {
      for (const Writer& w : Writers()) known |= w.command == row.command && e.Has(w.option);
      for (const IntoWriter& w : IntoWriters())
        known |= w.command == row.command && e.Has(w.option);
      EXPECT_TRUE(known) << Name() << " " << e.Name() << " writes a file: it needs a writer in "
                         << "tests/live/output_writers.h, so that every rule of "
                         << "docs/cli/outputs.md is run against it";
      continue;
    }
    for (const Input& in : row.inputs) known |= e.Has(in.option);
    EXPECT_TRUE(known) << Name() << " " << e.Name() << " (" << e.value << ") is read: it needs "
                       << "an input in tests/live/cli_contract_table.cc, or a reason why not";
  }
}

// ---- Inputs ------------------------------------------------------------------------

// A path that does not exist: its documented status (10 for a file), one
// line naming the path, nothing on standard output.
TEST_P(IoContract, AMissingInputIsRefusedOnOneLineWithItsStatus) {
  for (const Input& in : GetParam().inputs) {
    const std::string missing = dir_.File("missing");
    const Args args = in.args(fixture_, missing);
    const CommandResult r = Proctape(args);
    EXPECT_EQ(r.exit_code, in.missing)
        << Shown(args) << ": a missing " << in.option << " exits " << in.missing << "\n"
        << Describe(r);
    EXPECT_TRUE(OneLine(r.err)) << Shown(args) << ": one line says so\n" << Describe(r);
    EXPECT_NE(r.err.find(missing), std::string::npos)
        << Shown(args) << ": the line names the path\n"
        << Describe(r);
    EXPECT_EQ(r.out, "") << Shown(args) << ": nothing is reported of what was not read";
    EXPECT_EQ(Entries(dir_.path()), std::vector<std::string>{}) << Shown(args) << " wrote";
  }
}

// A directory where a file is read, a file where a directory is: refused on
// one line with its documented status, never read as an empty input.
TEST_P(IoContract, AnInputOfTheWrongKindIsRefusedOnOneLineWithItsStatus) {
  for (const Input& in : GetParam().inputs) {
    TempDir wrong("contract-kind");
    const std::string path = wrong.File(in.directory ? "a-file" : "a-directory");
    if (in.directory) {
      WriteFile(path, "not a directory\n");
    } else {
      ASSERT_EQ(::mkdir(path.c_str(), 0755), 0);
    }
    const Args args = in.args(fixture_, path);
    const CommandResult r = Proctape(args);
    EXPECT_EQ(r.exit_code, in.wrong_kind)
        << Shown(args) << ": " << (in.directory ? "a file as " : "a directory as ") << in.option
        << " exits " << in.wrong_kind << "\n"
        << Describe(r);
    EXPECT_TRUE(OneLine(r.err)) << Shown(args) << ": one line says so\n" << Describe(r);
    EXPECT_EQ(r.out, "") << Shown(args) << ": nothing is reported of what was not read";
    EXPECT_EQ(Entries(dir_.path()), std::vector<std::string>{}) << Shown(args) << " wrote";
  }
}

// '-' reads standard input where a file is read; an empty one is an empty
// file: truncated (13), on one line.
TEST_P(IoContract, EmptyStandardInputIsATruncatedFile) {
  for (const Input& in : GetParam().inputs) {
    if (!in.dash_is_stdin) continue;
    const Args args = in.args(fixture_, "-");
    const CommandResult r = ProctapeRedirected("</dev/null", args);
    EXPECT_EQ(r.exit_code, 13) << Shown(args) << " </dev/null: an empty input is truncated\n"
                               << Describe(r);
    EXPECT_TRUE(OneLine(r.err)) << Shown(args) << ": one line says so\n" << Describe(r);
    EXPECT_EQ(r.out, "") << Shown(args);
  }
}

// '-' with standard input closed (`<&-`) is a read that fails, as any
// reader of '-' finds it: 10, one line, "read failed at byte 0: Bad file
// descriptor"; a command that copies standard input first (diff, export
// --format json, corpus add) says the same, and its copy is never taken for
// standard input.
TEST_P(IoContract, ClosedStandardInputIsAReadThatFails) {
  for (const Input& in : GetParam().inputs) {
    if (!in.dash_is_stdin) continue;
    const Args args = in.args(fixture_, "-");
    const CommandResult r = ProctapeRedirected("<&-", args);
    EXPECT_EQ(r.exit_code, 10) << Shown(args) << " <&-: a closed input cannot be read\n"
                               << Describe(r);
    EXPECT_TRUE(OneLine(r.err)) << Shown(args) << ": one line says so\n" << Describe(r);
    EXPECT_NE(r.err.find("read failed at byte 0: Bad file descriptor"), std::string::npos)
        << Shown(args) << "\n"
        << Describe(r);
    EXPECT_EQ(r.out, "") << Shown(args);
  }
}

// A FILE given as a pipe (a FIFO here; `<(...)` and /dev/stdin are pipes
// too) reads as the file does: a command that reads its input more than
// once (diff, export --format json, corpus add) copies a pipe once, as it
// copies '-' (fs/inputs.h, InputCopy); a second read of the pipe found it
// at its end ("truncated at byte 0", 13). Status and standard output as of
// the regular file of the same name, the two directories put alike. The
// writer of the FIFO is this test's shell's child, ended by its pid.
TEST_P(IoContract, AnInputGivenAsAPipeReadsAsItsFile) {
  const std::string source = std::string(PROCTAPE_SOURCE_DIR) + "/corpus/021e7cdf322033a4.ptape";
  for (const Input& in : GetParam().inputs) {
    if (in.directory || !in.dash_is_stdin) continue;
    TempDir plain_dir("contract-path"), pipe_dir("contract-pipe");
    const std::string name = "/in/021e7cdf322033a4.ptape";
    ASSERT_TRUE(fs::create_directory(plain_dir.path() + "/in"));
    ASSERT_TRUE(fs::create_directory(pipe_dir.path() + "/in"));
    fs::copy_file(source, plain_dir.path() + name);
    ASSERT_EQ(::mkfifo((pipe_dir.path() + name).c_str(), 0600), 0);
    Fixture plain = fixture_, piped = fixture_;
    plain.dir = plain_dir.path();
    piped.dir = pipe_dir.path();
    const Args by_path = in.args(plain, plain.dir + name);
    const CommandResult want = Proctape(by_path);
    const Args by_pipe = in.args(piped, piped.dir + name);
    std::string script = "cat \"$1\" > \"$2\" & writer=$!; \"$0\"";
    for (std::size_t k = 0; k < by_pipe.size(); ++k)
      script += " \"${" + std::to_string(k + 3) + "}\"";
    script += "; status=$?; kill $writer 2>/dev/null; wait $writer; exit $status";
    Args argv = {"/bin/bash",     "-c", script, ::proctape::live::TestedBinary(), source,
                 piped.dir + name};
    argv.insert(argv.end(), by_pipe.begin(), by_pipe.end());
    const CommandResult got = RunCommand(argv, 120'000);
    auto same = [](std::string text, const std::string& dir) {
      for (std::size_t at; (at = text.find(dir)) != std::string::npos;) text.erase(at, dir.size());
      return text;
    };
    EXPECT_EQ(got.exit_code, want.exit_code)
        << Shown(by_pipe) << " with " << in.option << " a pipe exits as with the file\n"
        << Describe(got) << "\nthe file:\n"
        << Describe(want);
    EXPECT_EQ(same(got.out, piped.dir), same(want.out, plain.dir)) << Shown(by_pipe);
  }
}

// ---- JSON ----------------------------------------------------------------------------

// Every line of `text` is one JSON object.
void ExpectJsonLines(const std::string& text, const std::string& what) {
  for (const std::string& line : LinesOf(text)) {
    const JsonDocument d = ParseJsonDocument(line);
    EXPECT_TRUE(d.ok && d.value.kind_case() == Value::kStructValue)
        << what << ": standard error under --json is one JSON object a line: " << line;
  }
}

// A command that takes --json, run where it succeeds: standard output is one
// JSON document (an object), standard error nothing but JSON lines.
// The last line of standard error is the failure: a message and `status`.
void ExpectFailureLast(const CommandResult& r, int status, const std::string& what) {
  const std::vector<std::string> lines = LinesOf(r.err);
  ASSERT_FALSE(lines.empty()) << what << ": a failure says so on standard error";
  const Value last = ParseJsonDocument(lines.back()).value;
  const auto& fields = last.struct_value().fields();
  EXPECT_TRUE(fields.count("error") && !fields.at("error").string_value().empty())
      << what << ": the last line is the failure, with its message: " << lines.back();
  EXPECT_TRUE(fields.count("exit_status") && fields.at("exit_status").number_value() == status)
      << what << ": the failure carries the exit status, " << status << ": " << lines.back();
}

TEST_P(IoContract, JsonOnSuccessIsOneDocument) {
  const Row& row = GetParam();
  const Help help = HelpOf(row.command);
  bool takes_json = false;
  for (const HelpEntry& e : HelpEntries(help.text)) takes_json |= e.Has("--json");
  ASSERT_EQ(takes_json, static_cast<bool>(row.json))
      << Name()
      << (takes_json ? " takes --json: its row needs a run that succeeds"
                     : " takes no --json, but its row has a JSON run");
  if (!takes_json) GTEST_SKIP() << Name() << " takes no --json";
  std::unique_ptr<Sandbox> sandbox;
  if (row.json_needs_sandbox) {
    if (std::string why = SandboxUnavailable(SandboxKind::kUnshare); !why.empty()) {
      GTEST_SKIP() << Name() << " succeeds on a sandbox: " << why;
    }
    std::string error;
    sandbox = Sandbox::Start(SandboxKind::kUnshare, RandomHex(16), &error);
    ASSERT_NE(sandbox, nullptr) << error;
    fixture_.root = std::to_string(sandbox->app_server());
    fixture_.token = sandbox->token();
  }
  const Args args = row.json(fixture_);
  const CommandResult r = Proctape(args);
  ASSERT_EQ(r.exit_code, 0) << Shown(args) << " succeeds\n" << Describe(r);
  const JsonDocument d = ParseJsonDocument(r.out);
  EXPECT_TRUE(d.ok) << Shown(args) << ": standard output is one JSON document: " << d.why << "\n"
                    << r.out;
  EXPECT_EQ(d.value.kind_case(), Value::kStructValue) << Shown(args) << ": an object\n" << r.out;
  ExpectJsonLines(r.err, Shown(args));
}

// A failure under --json: every line of standard error is a JSON object, the
// last one the failure, with its message and the exit status the command
// returned. For a usage error (an option no command has), and for each input
// that is missing. verify reports a file it cannot read as its finding: one
// document on standard output, with the error.
TEST_P(IoContract, JsonOnFailureIsJsonOnStandardError) {
  const Row& row = GetParam();
  if (!row.json) GTEST_SKIP() << Name() << " takes no --json";
  std::vector<std::pair<Args, int>> failures;
  Args usage = row.command;
  usage.insert(usage.end(), {"--json", "--no-such-option"});
  failures.push_back({usage, 2});
  for (const Input& in : row.inputs) {
    Args args = in.args(fixture_, dir_.File("missing"));
    args.push_back("--json");
    failures.push_back({args, in.missing});
  }
  for (const auto& [args, status] : failures) {
    const CommandResult r = Proctape(args);
    EXPECT_EQ(r.exit_code, status) << Shown(args) << "\n" << Describe(r);
    ExpectJsonLines(r.err, Shown(args));
    if (row.failure_is_report && status != 2) {
      const JsonDocument d = ParseJsonDocument(r.out);
      EXPECT_TRUE(d.ok) << Shown(args) << ": the report is one JSON document: " << d.why;
    } else {
      EXPECT_EQ(r.out, "") << Shown(args) << ": a failure prints no document on standard output";
    }
    ExpectFailureLast(r, status, Shown(args));
  }
}

// A failure that is the command's finding (a verdict, a damaged file, a
// refused plan: the report on standard output) is a failure all the same:
// its ErrorReport is the last line of standard error (docs/cli.md §3).
TEST_P(IoContract, AFindingThatFailsUnderJsonEndsInItsErrorObject) {
  const Row& row = GetParam();
  if (!row.json_finding) GTEST_SKIP() << Name() << " has no finding that fails in the table";
  const Args args = row.json_finding(fixture_);
  const CommandResult r = Proctape(args);
  ASSERT_NE(r.exit_code, 0) << Shown(args) << "\n" << Describe(r);
  ASSERT_NE(r.exit_code, 2) << Shown(args) << ": a finding, not a usage error\n" << Describe(r);
  const JsonDocument d = ParseJsonDocument(r.out);
  EXPECT_TRUE(d.ok) << Shown(args) << ": the report is one JSON document: " << d.why;
  ExpectJsonLines(r.err, Shown(args));
  ExpectFailureLast(r, r.exit_code, Shown(args));
}

INSTANTIATE_TEST_SUITE_P(EveryCommand, IoContract, ::testing::ValuesIn(ContractTable()), TestName);

// Before a command is known (an unknown command, an option before any), the
// failure under --json is JSON too, naming no command (docs/cli/json.md).
TEST(JsonContract, ATopLevelFailureUnderJsonIsJsonNamingNoCommand) {
  for (const Args& args :
       {Args{"--json"}, Args{"no-such-command", "--json"}, Args{"--no-such-option", "--json"}}) {
    const CommandResult r = Proctape(args);
    EXPECT_EQ(r.exit_code, 2) << Describe(r);
    EXPECT_EQ(r.out, "") << Describe(r);
    EXPECT_TRUE(OneLine(r.err)) << Describe(r);
    const JsonDocument d = ParseJsonDocument(r.err);
    ASSERT_TRUE(d.ok) << "proctape " << args[0] << " --json fails in JSON: " << r.err;
    const auto& fields = d.value.struct_value().fields();
    EXPECT_TRUE(fields.count("command") && fields.at("command").string_value().empty()) << r.err;
    EXPECT_TRUE(fields.count("exit_status") && fields.at("exit_status").number_value() == 2)
        << r.err;
  }
}

}  // namespace
}  // namespace proctape::live
