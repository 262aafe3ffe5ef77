// SPDX-License-Identifier: Apache-2.0
// The command line's contract (docs/cli.md), proven from the binary, for
// every command it lists: the table (cli_contract_table.h) holds each one, every
// integer option refuses what is not a number in its range, and every help is
// short, fits 80 columns, and says how to call the command, with an example,
// and what it exits with. Inputs, outputs and JSON: cli_contract_io_test.cc.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "tests/live/build_paths.h"
#include "tests/live/cli_contract.h"
#include "tests/live/cli_contract_table.h"
#include "tests/live/files.h"

namespace proctape::live {
namespace {

// How long a command's help may be, and how wide any help's lines.
constexpr std::size_t kHelpLines = 60;
constexpr std::size_t kTopHelpLines = 40;
constexpr std::size_t kColumns = 80;

std::string TestName(const ::testing::TestParamInfo<Row>& p) {
  std::string name = NameOf(p.param.command);
  for (char& c : name) c = c == ' ' || c == '-' ? '_' : c;
  return name;
}

// ---- The table holds every command -------------------------------------------

// A command the binary lists and the table does not hold would escape every
// test below: the table must be the binary's list, no more, no less.
TEST(ContractTable, HoldsEveryCommandTheBinaryLists) {
  const std::vector<CommandWords> listed = EveryCommand();
  ASSERT_GE(listed.size(), 19u) << "'proctape --help' lists too few commands to be read right";
  for (const CommandWords& command : listed) {
    EXPECT_NE(FindRow(command), nullptr)
        << "'proctape " << NameOf(command) << "' has no row in the contract table "
        << "(tests/live/cli_contract_table.cc): every command is under the contract";
  }
  std::set<CommandWords> known(listed.begin(), listed.end());
  for (const Row& row : ContractTable()) {
    EXPECT_EQ(known.count(row.command), 1u) << "the contract table holds '" << NameOf(row.command)
                                            << "', which 'proctape --help' does not list";
  }
}

class CommandContract : public ::testing::TestWithParam<Row> {
 protected:
  CommandWords Command() const { return GetParam().command; }
  std::string Name() const { return "proctape " + NameOf(Command()); }
};

// ---- Numbers -----------------------------------------------------------------

// Every integer option (its value named N, PID, UID, TICKS, MS or BYTES)
// takes a plain decimal inside its range; anything else is a usage error,
// exit 2, one line naming the option and saying what is wrong with the value.
TEST_P(CommandContract, EveryIntegerOptionRefusesWhatIsNotANumberInItsRange) {
  const Help help = HelpOf(Command());
  ASSERT_EQ(help.exit_code, 0) << Name();
  for (const HelpEntry& option : HelpEntries(help.text)) {
    if (option.positional || !IsIntegerValue(option.value)) continue;
    for (const std::string value : {"-1", "abc", "99999999999999999999", "1.5", ""}) {
      Args args = Command();
      args.insert(args.end(), {option.Name(), value});
      const CommandResult r = Proctape(args);
      const std::string what = Name() + " " + option.Name() + " '" + value + "'";
      EXPECT_EQ(r.exit_code, 2) << what << ": a bad number is a usage error (exit 2)\n"
                                << Describe(r);
      EXPECT_TRUE(OneLine(r.err)) << what << ": a usage error is one line\n" << Describe(r);
      EXPECT_NE(r.err.find(option.Name() + ": "), std::string::npos)
          << what << ": the error names the option\n"
          << Describe(r);
      EXPECT_TRUE(r.err.find("is not a number") != std::string::npos ||
                  r.err.find("is outside ") != std::string::npos)
          << what << ": the error says the value is not a number, or outside the range\n"
          << Describe(r);
      EXPECT_EQ(r.out, "") << what << ": nothing runs on a usage error";
    }
  }
}

// ---- Help ------------------------------------------------------------------------

// `COMMAND --help` is short (at most 60 lines, none over 80 columns) and
// says how to call it ("Usage: proctape ..."), shows an example, and ends with
// the statuses it exits with, once.
TEST_P(CommandContract, HelpIsShortWithUsageAnExampleAndItsExitStatuses) {
  if (Command() == CommandWords{"help"}) {
    GTEST_SKIP() << "'help --help' is the list of commands (ContractHelp.TopHelpFitsOneScreen)";
  }
  const Help help = HelpOf(Command());
  EXPECT_EQ(help.exit_code, 0) << Name() << " --help exits 0";
  const std::vector<std::string> lines = LinesOf(help.text);
  EXPECT_LE(lines.size(), kHelpLines)
      << Name() << " --help is at most " << kHelpLines << " lines (details belong in docs/)";
  for (const std::string& line : lines) {
    EXPECT_LE(Columns(line), kColumns) << Name() << " --help fits 80 columns: " << line;
  }
  EXPECT_NE(help.text.find("\nUsage: " + Name() + " "), std::string::npos)
      << Name() << " --help says how to call it: 'Usage: " << Name() << " ...'\n"
      << help.text;
  EXPECT_NE(help.text.find("\nExample"), std::string::npos)
      << Name() << " --help shows an example\n"
      << help.text;
  std::size_t statuses = 0;
  for (const std::string& line : lines) statuses += line.rfind("Exit status:", 0) == 0 ? 1 : 0;
  EXPECT_EQ(statuses, 1u) << Name() << " --help says its exit statuses once, as its footer\n"
                          << help.text;
  std::size_t last = lines.size();
  while (last > 0 && lines[last - 1].empty()) --last;
  EXPECT_TRUE(last > 0 && lines[last - 1] == "Every status: 'proctape help exit-codes'.")
      << Name() << " --help ends with its exit statuses and where the others are\n"
      << help.text;
}

// `proctape help COMMAND` prints what `proctape COMMAND --help` prints.
TEST_P(CommandContract, HelpCommandPrintsWhatDashDashHelpPrints) {
  const Help help = HelpOf(Command());
  const CommandWords command = Command();
  Args topic = {"help"};
  topic.insert(topic.end(), command.begin(), command.end());
  const CommandResult r = Proctape(topic);
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out, help.text) << "'proctape help " << NameOf(Command()) << "' prints what '"
                              << Name() << " --help' prints";
}

// Host bytes are escaped text in every view's JSON; only export's json is
// lossless (base64): no other help may promise base64 (docs/cli/json.md).
TEST_P(CommandContract, HelpPromisesNoBase64OutsideExport) {
  if (Command() == CommandWords{"export"}) GTEST_SKIP() << "export --format json is base64";
  const Help help = HelpOf(Command());
  EXPECT_EQ(help.text.find("base64"), std::string::npos)
      << Name() << " --help says base64: a view's --json shows host bytes as escaped text\n"
      << help.text;
}

INSTANTIATE_TEST_SUITE_P(EveryCommand, CommandContract, ::testing::ValuesIn(ContractTable()),
                         TestName);

// `proctape --help` (and `proctape help`) fits one screen: at most 40 lines
// of at most 80 columns.
TEST(ContractHelp, TopHelpFitsOneScreen) {
  for (const Args& args : {Args{"--help"}, Args{"help"}, Args{"help", "--help"}}) {
    const CommandResult r = Proctape(args);
    EXPECT_EQ(r.exit_code, 0) << Describe(r);
    const std::vector<std::string> lines = LinesOf(r.out);
    EXPECT_LE(lines.size(), kTopHelpLines) << "proctape " << args[0] << " fits one screen";
    for (const std::string& line : lines) {
      EXPECT_LE(Columns(line), kColumns) << "proctape " << args[0] << " fits 80 columns: " << line;
    }
  }
}

}  // namespace
}  // namespace proctape::live
