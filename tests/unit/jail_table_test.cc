// SPDX-License-Identifier: Apache-2.0
// The jail table is the one statement of what each command reads and
// writes (docs/security.md, "The jail of each command"): the words
// --print-jail prints name every input and output a command's CommandIo may
// give, and EnterCommand refuses a CommandIo that names anything else.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "cli/command_io.h"
#include "cli/jail.h"
#include "tests/unit/failure_text.h"

namespace proctape::test {
namespace {

// The word of an input's name that its description must hold: "FILE" of
// "FILE", "MANIFEST" of "the MANIFEST", "corpus" of "the corpus".
std::string KeyWord(std::string_view name) {
  if (name.substr(0, 4) == "the ") name.remove_prefix(4);
  return std::string(name.substr(0, name.find(' ')));
}

TEST(JailTable, TheWordsNameEveryDeclaredInputAndOutput) {
  for (const JailedCommand& c : JailedCommands()) {
    SCOPED_TRACE(c.name);
    const std::string reads = c.reads, writes = c.writes;
    for (std::string_view input : c.inputs) {
      if (input.empty()) continue;
      EXPECT_NE(reads.find(KeyWord(input)), std::string::npos) << input;
    }
    if (!c.output.empty()) {
      const std::string shown = c.output == "--output" ? "-o " : std::string(c.output) + " ";
      EXPECT_EQ(writes.substr(0, shown.size()), shown);
    }
    if (c.creates_in) {
      EXPECT_NE(writes.find("DIR"), std::string::npos);
    }
    // A command in Landlock can write only what it declares.
    if (c.landlock && !writes.empty()) {
      EXPECT_TRUE(!c.output.empty() || c.creates_in);
    }
    if (!c.jailed) {
      EXPECT_TRUE(c.inputs[0].empty() && c.output.empty());
    }
  }
}

TEST(JailTable, EveryCommandIsFoundByItsName) {
  for (const JailedCommand& c : JailedCommands()) EXPECT_EQ(FindJailed(c.name), &c);
  EXPECT_EQ(FindJailed("corpus"), nullptr);
}

TEST(JailTable, ACommandIoThatNamesWhatItsEntryDoesNotIsRefused) {
  EXPECT_EQ(Why(UndeclaredIo({"replay", {{"FILE", "a.ptape"}, {"--fingerprint", "fp"}}})), "");
  EXPECT_EQ(Why(UndeclaredIo({"verify", {{"--fingerprint", "fp"}}})),
            "verify: its jail (cli/jail_commands.cc) declares no input --fingerprint");
  EXPECT_EQ(Why(UndeclaredIo({"verify", {{"FILE", "a"}}, OutputRequest{}})),
            "verify: its jail (cli/jail_commands.cc) declares no output --output");
  CommandIo junit{"corpus check", {{"the corpus", "c", false, true}}, OutputRequest{}};
  EXPECT_NE(Why(UndeclaredIo(junit)), "");  // its output is --junit, not --output
  junit.output_option = "--junit";
  EXPECT_EQ(Why(UndeclaredIo(junit)), "");
  CommandIo out{"tree", {{"FILE", "a"}}};
  out.creates_in = {"d"};
  EXPECT_EQ(Why(UndeclaredIo(out)),
            "tree: its jail (cli/jail_commands.cc) declares no directory it makes files in");
  const MaybeFailure lab = UndeclaredIo({"lab", {}});
  ASSERT_TRUE(lab);
  EXPECT_EQ(lab->kind, FailureKind::kInternal);
  EXPECT_EQ(lab->message, "lab: its jail (cli/jail_commands.cc) is not stated");
}

}  // namespace
}  // namespace proctape::test
