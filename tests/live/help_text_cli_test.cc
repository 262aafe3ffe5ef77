// SPDX-License-Identifier: Apache-2.0
// What the binary tells a user who asks (docs/cli/messages.md, "Exit
// statuses" and "Lists"): `proctape help exit-codes` fits 80 columns and says
// what success is for each command and which commands give each status;
// every command's help names the usage error (2) it can give; `lab --list`
// fits 80 columns; the top level fails as JSON when --json is anywhere, and
// its help names --version and --print-jail.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/live/build_paths.h"
#include "tests/live/cli_contract.h"
#include "tests/live/cli_contract_table.h"
#include "tests/live/files.h"

namespace proctape::live {
namespace {

constexpr std::size_t kColumns = 80;

std::string Table() {
  const CommandResult r = Proctape({"help", "exit-codes"});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  return r.out;
}

// One row of the table: the line that starts with the status, and the
// lines that continue it, joined by spaces.
std::string Row(const std::string& table, int status) {
  const std::string pad = status < 10 ? "  " : status < 100 ? " " : "";
  const std::string label = pad + std::to_string(status) + "  ";
  std::string row;
  bool in = false;
  for (const std::string& line : LinesOf(table)) {
    if (StartsWith(line, label)) {
      in = true;
      row = line.substr(label.size());
    } else if (in && StartsWith(line, "     ")) {
      row.append(" ").append(line, 5, std::string::npos);
    } else if (in) {
      break;
    }
  }
  return row;
}

// A command's footer, joined: the statuses it gives.
std::string Footer(const CommandWords& command) {
  const Help help = HelpOf(command);
  const std::size_t at = help.text.find("Exit status:");
  std::string footer = at == std::string::npos ? "" : help.text.substr(at);
  for (char& c : footer) c = c == '\n' ? ' ' : c;
  return footer;
}

// `proctape --help` names what the top level takes besides a command, and
// each of them runs (cli/help.cc TopLevel).
TEST(TopLevelHelp, NamesVersionAndPrintJail) {
  const CommandResult help = Proctape({"--help"});
  ASSERT_EQ(help.exit_code, 0) << Describe(help);
  for (const std::string option : {"--version", "--print-jail"}) {
    EXPECT_NE(help.out.find("'proctape " + option + "'"), std::string::npos)
        << "'proctape --help' does not name " << option << "\n"
        << help.out;
    const CommandResult r = Proctape({option});
    EXPECT_EQ(r.exit_code, 0) << Describe(r);
    EXPECT_FALSE(r.out.empty()) << "'proctape " << option << "' prints nothing";
  }
}

TEST(HelpExitCodes, FitsEightyColumns) {
  for (const std::string& line : LinesOf(Table())) {
    EXPECT_LE(Columns(line), kColumns) << line;
  }
}

// Row 0 says what success is for each command, by its name.
TEST(HelpExitCodes, SuccessIsSaidForEveryCommand) {
  const std::string success = Row(Table(), 0);
  ASSERT_FALSE(success.empty());
  for (const CommandWords& command : EveryCommand()) {
    if (command[0] == "help") continue;
    EXPECT_NE(success.find(command.size() == 1 ? command[0] : command[1]), std::string::npos)
        << "row 0 does not say what success is for '" << NameOf(command) << "': " << success;
  }
}

// A status a command's help says it gives (9: a fingerprint of another boot)
// names that command in the table's row.
TEST(HelpExitCodes, AnotherBootNamesEveryCommandThatGivesIt) {
  const std::string row = Row(Table(), 9);
  for (const CommandWords& command : EveryCommand()) {
    if (Footer(command).find(" 9 ") == std::string::npos) continue;
    EXPECT_NE(row.find(NameOf(command) + " "), std::string::npos)
        << "'" << NameOf(command) << "' exits 9 and row 9 does not name it: " << row;
  }
}

TEST(HelpExitCodes, TakesNothingMore) {
  const CommandResult r = Proctape({"help", "exit-codes", "extra"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "proctape: help: unexpected argument 'extra' (exit-codes is the whole table) "
            "(see 'proctape help --help')\n");
  const CommandResult more = Proctape({"help", "corpus", "add", "extra"});
  EXPECT_EQ(more.exit_code, 2);
  EXPECT_NE(more.err.find("help: unexpected argument 'extra'"), std::string::npos)
      << Describe(more);
}

// Every command can be given a line it cannot run: its help says 2.
TEST(HelpExitCodes, EveryCommandsHelpNamesTheUsageError) {
  for (const CommandWords& command : EveryCommand()) {
    if (command[0] == "help") continue;
    EXPECT_NE(Footer(command).find("2 usage error"), std::string::npos)
        << "'" << NameOf(command) << " --help': " << Footer(command);
  }
}

// `lab --list`: each scenario's summary and expectation wrapped within 80
// columns, hanging under their own text.
TEST(LabList, FitsEightyColumns) {
  const CommandResult r = Proctape({"lab", "--list"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  for (const std::string& line : LinesOf(r.out)) EXPECT_LE(Columns(line), kColumns) << line;
  EXPECT_NE(r.out.find("\n                 app-server\n"), std::string::npos) << r.out;
}

// An error of the top level (an unknown command, an option before any
// command) is JSON when --json is anywhere on the line, as a command's is.
TEST(TopLevelErrors, AreJsonWhenJsonIsAnywhere) {
  for (const Args& args : std::vector<Args>{{"nosuch", "--json"},
                                            {"--json", "nosuch"},
                                            {"--bogus", "x", "--json"},
                                            {"help", "nosuch", "--json"}}) {
    const CommandResult r = Proctape(args);
    EXPECT_EQ(r.exit_code, 2) << Describe(r);
    EXPECT_EQ(r.out, "");
    EXPECT_TRUE(OneLine(r.err) && StartsWith(r.err, "{\"command\":")) << Describe(r);
    EXPECT_NE(r.err.find("\"exit_status\":2"), std::string::npos) << Describe(r);
  }
  const CommandResult r = Proctape({"nosuch", "--json"});
  EXPECT_NE(r.err.find("\"error\":\"'nosuch' is not a proctape command (see 'proctape "
                       "--help')\""),
            std::string::npos)
      << Describe(r);
}

}  // namespace
}  // namespace proctape::live
