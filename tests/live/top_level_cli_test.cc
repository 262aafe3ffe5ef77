// SPDX-License-Identifier: Apache-2.0
// The top level of the command line (docs/cli.md §1): an unknown command is
// named, with the nearest command suggested; `help`, `help COMMAND` and
// `--version` do what they say; the version is the one files record.
#include <gtest/gtest.h>

#include <string>

#include "tests/live/build_paths.h"
#include "tests/live/cli_contract.h"
#include "tests/live/files.h"
#include "tests/live/output_writers.h"

namespace proctape::live {
namespace {

std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

TEST(TopLevel, AnUnknownCommandIsNamedWithTheNearestCommandAndExitsTwo) {
  const CommandResult r = Proctape({"shwo", "x.ptape"});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_TRUE(OneLine(r.err)) << Describe(r);
  EXPECT_NE(r.err.find("'shwo' is not a proctape command"), std::string::npos) << Describe(r);
  EXPECT_NE(r.err.find("did you mean 'show'?"), std::string::npos) << Describe(r);
  EXPECT_TRUE(r.out.empty()) << Describe(r);
}

TEST(TopLevel, NoCommandPrintsTheCommandsAndIsAUsageError) {
  const CommandResult r = Proctape({});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  const CommandResult help = Proctape({"help"});
  EXPECT_EQ(help.exit_code, 0) << Describe(help);
  EXPECT_EQ(r.out + r.err, help.out) << "a bare 'proctape' shows what 'proctape help' shows";
  for (const CommandWords& command : EveryCommand()) {
    EXPECT_NE(help.out.find("  " + command.front() + " "), std::string::npos)
        << "'proctape help' does not list " << command.front();
  }
}

TEST(TopLevel, HelpOfACommandIsThatCommandsHelp) {
  const CommandResult r = Proctape({"help", "tree"});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("Usage: proctape tree"), std::string::npos) << Describe(r);
  const CommandResult unknown = Proctape({"help", "trees"});
  EXPECT_EQ(unknown.exit_code, 2) << Describe(unknown);
  EXPECT_TRUE(OneLine(unknown.err)) << Describe(unknown);
}

// "the version is the one files record": the header of a file this binary
// writes says "written by: proctape VERSION (format N)", and --version
// begins with the same "proctape VERSION" and names format N.
TEST(TopLevel, VersionIsTheOneTheFilesItWritesRecord) {
  const CommandResult version = Proctape({"--version"});
  ASSERT_EQ(version.exit_code, 0) << Describe(version);
  const std::string first = FirstLine(version.out);
  ASSERT_TRUE(StartsWith(first, "proctape ")) << Describe(version);
  const std::string number = first.substr(9, first.find_first_of(" (", 9) - 9);
  ASSERT_FALSE(number.empty()) << Describe(version);

  TempDir dir("version");
  const std::string file = dir.File("self.ptape");
  const CommandResult fp = Proctape({"fingerprint", "--root", SelfPid(), "-o", file});
  ASSERT_EQ(fp.exit_code, 0) << Describe(fp);
  const CommandResult shown = Proctape({"show", file});
  ASSERT_EQ(shown.exit_code, 0) << Describe(shown);
  const std::string marker = "written by: proctape " + number + " (format ";
  const std::size_t at = shown.out.find(marker);
  ASSERT_NE(at, std::string::npos) << "--version says " << number << "\n" << shown.out;
  const std::string format =
      shown.out.substr(at + marker.size(), shown.out.find(')', at) - at - marker.size());
  const bool named = version.out.find("format " + format) != std::string::npos ||
                     version.out.find("writes version " + format) != std::string::npos;
  EXPECT_TRUE(named) << "--version does not name the format (" << format << ") its files record\n"
                     << version.out;
}

}  // namespace
}  // namespace proctape::live
