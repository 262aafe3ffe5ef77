// SPDX-License-Identifier: Apache-2.0
// An error about a file or directory the user named says which option
// brought it (docs/cli/messages.md, "Errors about an input"), in one form
// for every input and output of every command:
//   proctape: OPTION 'PATH': WHAT       (--fingerprint, --baseline, -o, ...)
//   proctape: PATH: WHAT                (a positional FILE or DIR, as given)
// a usage error with its command before and its pointer to help after, and
// under --json the same words in the error object. Every path option is run
// here with a path that does not exist (an output: in a directory that does
// not exist), and every input read as a .ptape with a file that is none
// (wrong magic). The cases are the contract table's inputs
// (cli_contract_table.cc) and the writers of the output rule
// (output_writers.h), so a new path option is one row there, plus the rows
// below for options that name something else the user must be told of.
#include <gtest/gtest.h>

#include <algorithm>
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

// One path (or name) option of one command, and a command line giving it.
struct PathCase {
  std::string name;  // the test's name
  CommandWords command;
  std::string option;  // as the error names it; "FILE" or "DIR" for a positional
  std::function<Args(const Fixture&, const std::string& path)> args;
  bool output = false;           // the path is written: refused in a missing directory
  bool ptape = false;            // read as a .ptape file: also run with one of wrong magic
  std::string missing = "nope";  // the value that names nothing
};

void PrintTo(const PathCase& c, std::ostream* os) { *os << c.name; }

bool Positional(const std::string& option) { return option[0] != '-'; }

std::string CaseName(const CommandWords& command, const std::string& option, int k) {
  std::string name = NameOf(command) + "_" + option + (k > 0 ? std::to_string(k) : "");
  std::string out;
  for (char c : name) {
    if (c == '-' && (out.empty() || out.back() == '_')) continue;
    out += c == ' ' || c == '-' ? '_' : c;
  }
  return out;
}

std::vector<PathCase> Cases() {
  std::vector<PathCase> cases;
  for (const Row& row : ContractTable()) {
    int k = 0;
    for (const Input& in : row.inputs) {
      const std::string name = CaseName(row.command, in.option, 0);
      bool seen = false;
      for (const PathCase& c : cases) seen |= c.name == name;
      cases.push_back({seen ? CaseName(row.command, in.option, ++k) : name, row.command, in.option,
                       in.args, false, in.dash_is_stdin});
    }
  }
  for (const Writer& w : Writers()) {
    auto args = w.args;
    cases.push_back({w.name, w.command, w.option,
                     [args](const Fixture&, const std::string& p) { return args(p); }, true});
  }
  // Options naming something of a file other than its path.
  cases.push_back({"corpus_check_entry",
                   {"corpus", "check"},
                   "--entry",
                   [](const Fixture&, const std::string& name) {
                     return Args{"corpus", "check", SourceCorpus(), "--entry", name};
                   },
                   false,
                   false,
                   "no-such-entry"});
  return cases;
}

class PathErrors : public ::testing::TestWithParam<PathCase> {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    fixture_ = FixtureIn(dir_.path());
  }
  // The value that names nothing: a missing path, an output in a missing
  // directory, or a name no entry has.
  std::string Missing() const {
    const PathCase& c = GetParam();
    if (c.option == "--entry") return c.missing;
    return c.output ? dir_.File("nope/out") : dir_.File(c.missing);
  }
  // What the one line says first: "OPTION 'PATH': " or, for a positional,
  // "PATH: " (or "PATH/NAME: ", a file of a directory given).
  bool NamesIt(std::string message, const std::string& path) const {
    const PathCase& c = GetParam();
    const std::string command = NameOf(c.command) + ": ";  // a usage error's
    if (message.rfind(command, 0) == 0) message = message.substr(command.size());
    if (Positional(c.option)) {
      return message.rfind(path + ": ", 0) == 0 || message.rfind(path + "/", 0) == 0;
    }
    return message.rfind(c.option + " '" + path + "': ", 0) == 0;
  }
  // The command run with `path`: one line on standard error that names it,
  // in text and under --json.
  void ExpectNamed(const std::string& path) {
    const PathCase& c = GetParam();
    Args args = c.args(fixture_, path);
    const CommandResult text = Proctape(args);
    EXPECT_NE(text.exit_code, 0) << Describe(text);
    EXPECT_EQ(std::count(text.err.begin(), text.err.end(), '\n'), 1) << Describe(text);
    EXPECT_EQ(text.err.rfind("proctape: ", 0), 0u) << Describe(text);
    EXPECT_TRUE(NamesIt(text.err.substr(std::string("proctape: ").size()), path))
        << "expected " << (Positional(c.option) ? "" : c.option + " ") << path << " first\n"
        << Describe(text);

    args.push_back("--json");
    const CommandResult json = Proctape(args);
    EXPECT_EQ(json.exit_code, text.exit_code) << Describe(json);
    EXPECT_EQ(std::count(json.err.begin(), json.err.end(), '\n'), 1) << Describe(json);
    const JsonDocument doc = ParseJsonDocument(json.err);
    ASSERT_TRUE(doc.ok) << doc.why << "\n" << Describe(json);
    const auto& fields = doc.value.struct_value().fields();
    ASSERT_TRUE(fields.contains("error")) << Describe(json);
    EXPECT_TRUE(NamesIt(fields.at("error").string_value(), path)) << Describe(json);
  }

  TempDir dir_{"path-errors"};
  Fixture fixture_;
};

TEST_P(PathErrors, AMissingPathIsNamedWithItsOption) { ExpectNamed(Missing()); }

// The inputs read as a .ptape file.
class PtapeErrors : public PathErrors {};

std::vector<PathCase> PtapeCases() {
  std::vector<PathCase> out;
  for (const PathCase& c : Cases()) {
    if (c.ptape) out.push_back(c);
  }
  return out;
}

TEST_P(PtapeErrors, AFileOfWrongMagicIsNamedWithItsOption) {
  const std::string bad = dir_.File("bad.fp");
  WriteFile(bad, "this is no proctape snapshot, only text\n");
  ExpectNamed(bad);
}

INSTANTIATE_TEST_SUITE_P(EveryPathOption, PathErrors, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<PathCase>& p) { return p.param.name; });
INSTANTIATE_TEST_SUITE_P(EveryPtapeInput, PtapeErrors, ::testing::ValuesIn(PtapeCases()),
                         [](const ::testing::TestParamInfo<PathCase>& p) { return p.param.name; });

}  // namespace
}  // namespace proctape::live
