// SPDX-License-Identifier: Apache-2.0
// Usage errors from the binary (docs/cli/messages.md, "Usage errors"): every
// command says what is wrong with its command line in one line of its own
// words, "proctape: CMD: WHAT (see 'proctape CMD --help')", exit 2, naming the
// option or argument at fault; never the parser's phrasing. An unknown option
// is named first, whatever else the line lacks.
#include <gtest/gtest.h>

#include <unistd.h>

#include <string>
#include <vector>

#include "tests/live/build_paths.h"
#include "tests/live/cli_contract.h"
#include "tests/live/cli_contract_table.h"
#include "tests/live/files.h"
#include "tests/live/output_writers.h"

namespace proctape::live {
namespace {

// What CLI11 says in its own words; none of it may reach a user.
constexpr const char* kParserPhrases[] = {
    "was not expected", "were not expected", "required but received", " required ",
    "is required",      "A subcommand",      "Expected exactly",      "Expected at least",
    " excludes ",       " requires ",        "Could not convert",     "not an allowed value",
    "true/false",       " not in {",         "Too many positional"};

std::string TestName(const ::testing::TestParamInfo<Row>& p) {
  std::string name = NameOf(p.param.command);
  for (char& c : name) c = c == ' ' || c == '-' ? '_' : c;
  return name;
}

class UsageErrors : public ::testing::TestWithParam<Row> {
 protected:
  CommandWords Command() const { return GetParam().command; }
  std::string Name() const { return NameOf(Command()); }
  Args Line(const Args& rest) const {
    Args args = Command();
    args.insert(args.end(), rest.begin(), rest.end());
    return args;
  }
  // `rest` after the command is a usage error whose message is `what`,
  // exactly, in the one form.
  void ExpectUsageError(const Args& rest, const std::string& what) const {
    const CommandResult r = Proctape(Line(rest));
    EXPECT_EQ(r.exit_code, 2) << Describe(r);
    EXPECT_EQ(r.err,
              "proctape: " + Name() + ": " + what + " (see 'proctape " + Name() + " --help')\n")
        << Describe(r);
    EXPECT_EQ(r.out, "") << "nothing runs on a usage error";
  }
  // Any usage error `rest` gives is in the one form, without parser noise.
  void ExpectWellFormedIfUsageError(const Args& rest) const {
    const CommandResult r = Proctape(Line(rest));
    if (r.exit_code != 2) return;
    const std::string what = "'proctape " + Name() + "' with its arguments";
    EXPECT_TRUE(OneLine(r.err)) << what << "\n" << Describe(r);
    EXPECT_TRUE(StartsWith(r.err, "proctape: " + Name() + ": ")) << what << "\n" << Describe(r);
    const std::string tail = "(see 'proctape " + Name() + " --help')\n";
    EXPECT_TRUE(r.err.size() >= tail.size() &&
                r.err.compare(r.err.size() - tail.size(), tail.size(), tail) == 0)
        << what << "\n"
        << Describe(r);
    for (const char* phrase : kParserPhrases) {
      EXPECT_EQ(r.err.find(phrase), std::string::npos)
          << what << ": the parser's words '" << phrase << "'\n"
          << Describe(r);
    }
  }
  std::vector<HelpEntry> Entries() const {
    const Help help = HelpOf(Command());
    EXPECT_EQ(help.exit_code, 0);
    return HelpEntries(help.text);
  }
  bool IsHelp() const { return Command() == CommandWords{"help"}; }
};

// `CMD --no-such-option` names it, though the line also lacks every required
// option and argument: the misspelling is the problem, not what follows.
TEST_P(UsageErrors, UnknownOptionIsNamedBeforeWhatIsMissing) {
  if (IsHelp()) GTEST_SKIP() << "help takes a topic (HelpTopics tests)";
  ExpectUsageError({"--no-such-option"}, "unknown option '--no-such-option'");
  ExpectUsageError({"-Q"}, "unknown option '-Q'");
}

// An option misspelt by a letter or two is named with the one meant.
TEST_P(UsageErrors, MisspeltOptionSuggestsTheOneMeant) {
  if (IsHelp()) GTEST_SKIP() << "help takes a topic";
  for (const HelpEntry& entry : Entries()) {
    if (entry.positional) continue;
    const std::string name = entry.Name();
    const std::string typo = name + "x";
    const CommandResult r = Proctape(Line({typo}));
    EXPECT_EQ(r.exit_code, 2) << Describe(r);
    EXPECT_NE(r.err.find("unknown option '" + typo + "' (did you mean '--"), std::string::npos)
        << Describe(r);
  }
}

// An option given without its value says which value it lacks: "missing PID
// after --root (host pid of ...)".
TEST_P(UsageErrors, OptionWithoutItsValueSaysWhichValueIsMissing) {
  for (const HelpEntry& entry : Entries()) {
    if (entry.positional || entry.value.empty()) continue;
    const CommandResult r = Proctape(Line({entry.Name()}));
    EXPECT_EQ(r.exit_code, 2) << Describe(r);
    EXPECT_NE(r.err.find(": missing " + entry.value + " after " + entry.Name()), std::string::npos)
        << Describe(r);
    ExpectWellFormedIfUsageError({entry.Name()});
  }
}

// An option that takes one value, given twice, says so (never "At Most 1
// required but received 2").
TEST_P(UsageErrors, SingleValueOptionGivenTwiceSaysSo) {
  for (const HelpEntry& entry : Entries()) {
    if (entry.positional || !IsIntegerValue(entry.value)) continue;
    if (entry.Name() == "--frames") continue;  // diff --frames I J: two values
    // A value in the option's range: one the check of its value does not
    // refuse (the line never runs: the option is given twice).
    CommandResult r;
    for (const char* v : {"1", "2", "100", "1000000"}) {
      r = Proctape(Line({entry.Name(), v, entry.Name(), v}));
      if (r.err.find(entry.Name() + ": '") == std::string::npos) break;
    }
    EXPECT_EQ(r.exit_code, 2) << Describe(r);
    EXPECT_NE(r.err.find(": " + entry.Name() + " given 2 times (it takes one value)"),
              std::string::npos)
        << Describe(r);
  }
}

// A number refused names its range as a person reads it: no bound of more
// than ten digits (2^64-1, not 18446744073709551615).
TEST_P(UsageErrors, NumberRefusedNamesItsRangeReadably) {
  for (const HelpEntry& entry : Entries()) {
    if (entry.positional || !IsIntegerValue(entry.value)) continue;
    const CommandResult r = Proctape(Line({entry.Name(), "99999999999999999999"}));
    const std::size_t at = r.err.find("is outside ");
    ASSERT_NE(at, std::string::npos) << Describe(r);
    const std::string range = r.err.substr(at + 11, r.err.find(' ', at + 11) - at - 11);
    const std::size_t dots = range.find("..");
    ASSERT_NE(dots, std::string::npos) << Describe(r);
    EXPECT_LE(dots, 10u) << entry.Name() << ": " << range;
    EXPECT_LE(range.size() - dots - 2, 10u) << entry.Name() << ": " << range;
  }
}

INSTANTIATE_TEST_SUITE_P(EveryCommand, UsageErrors, ::testing::ValuesIn(ContractTable()), TestName);

// A command without positionals names the first argument it was given.
TEST(UsageErrorsNamed, ArgumentNoCommandTakesIsNamed) {
  for (const char* command : {"fingerprint", "resolve", "liveness", "capture", "ownership"}) {
    const CommandResult r = Proctape({command, "stray", "--no"});
    // An unknown option is named before an unexpected argument.
    EXPECT_EQ(r.err, std::string("proctape: ") + command + ": unknown option '--no' (see " +
                         "'proctape " + command + " --help')\n")
        << Describe(r);
    const CommandResult s = Proctape({command, "stray"});
    EXPECT_EQ(s.exit_code, 2) << Describe(s);
    EXPECT_NE(s.err.find(": unexpected argument 'stray' ("), std::string::npos) << Describe(s);
  }
  // Past what a positional takes: the first word too many.
  const CommandResult tree = Proctape({"tree", "a.ptape", "b.ptape"});
  EXPECT_NE(tree.err.find("tree: unexpected argument 'b.ptape' ("), std::string::npos)
      << Describe(tree);
  const CommandResult diff = Proctape({"diff", "a", "b", "c", "d"});
  EXPECT_NE(diff.err.find("diff: unexpected argument 'c' ("), std::string::npos) << Describe(diff);
}

// One command a run: a later word that names another command is an
// argument of the first (a FILE called `show`), never a second command
// whose options the rest would then be.
TEST(UsageErrorsNamed, AWordNamingAnotherCommandIsAFile) {
  const CommandResult sql = Proctape({"sql", "show", "-c", "SELECT 1"});
  EXPECT_EQ(sql.exit_code, 10) << Describe(sql);
  EXPECT_EQ(sql.err, "proctape: show: cannot open: No such file or directory\n") << Describe(sql);
  const CommandResult explore = Proctape({"explore", "no-such.ptape", "show", "--depth", "1"});
  EXPECT_EQ(explore.exit_code, 10) << Describe(explore);
  EXPECT_NE(explore.err.find("no-such.ptape: cannot open"), std::string::npos) << Describe(explore);
  const CommandResult check = Proctape({"corpus", "check", "no-such-dir", "verify"});
  EXPECT_EQ(check.exit_code, 2) << Describe(check);
  EXPECT_NE(check.err.find("unexpected argument 'verify'"), std::string::npos) << Describe(check);
}

// A required option or argument missing is named with what it is.
TEST(UsageErrorsNamed, MissingRequiredIsNamedWithWhatItIs) {
  const std::vector<std::pair<Args, std::string>> cases = {
      {{"resolve", "--root", "2"}, "resolve: missing --token TOKEN (the per-invocation token"},
      {{"fingerprint", "-o", "x"}, "fingerprint: missing --root PID (host pid of the app-server"},
      {{"liveness", "--pid", "2"}, "liveness: missing --start TICKS (start tick"},
      {{"show"}, "show: missing FILE (a .ptape file"},
      {{"corpus", "add"}, "corpus add: missing FILE (a recording"},
      {{"fingerprint", "--root"}, "fingerprint: missing PID after --root (host pid of"},
  };
  for (const auto& [args, what] : cases) {
    const CommandResult r = Proctape(args);
    EXPECT_EQ(r.exit_code, 2) << Describe(r);
    EXPECT_TRUE(StartsWith(r.err, "proctape: " + what)) << what << "\n" << Describe(r);
  }
}

// An option given once per value (sql -c, corpus add --expect, replay and
// resolve --argv, corpus check --entry, ownership --output) takes the one
// value after it: the words after that stay FILEs (as sqlite3 -c Q a b
// would be read), never more values of the option.
TEST(UsageErrorsNamed, AnOptionRepeatedForMoreTakesOneValueEachTime) {
  const std::string a = SourceCorpus() + "/051df0283b135a91.ptape";
  const std::string b = SourceCorpus() + "/90f88ffa55b074b2.ptape";
  const CommandResult sql = Proctape({"sql", "-c", "SELECT COUNT(*) AS n FROM files", a, b});
  EXPECT_EQ(sql.exit_code, 0) << Describe(sql);
  EXPECT_EQ(sql.out, "n\n2\n");
  const CommandResult add = Proctape({"corpus", "add", "--expect", "RESOLVED", a, b});
  EXPECT_EQ(add.exit_code, 2) << Describe(add);
  EXPECT_NE(add.err.find("give one FILE with it (2 given)"), std::string::npos) << Describe(add);
  const CommandResult replay = Proctape({"replay", "--argv", "/bin/sleep", "--argv", "120", a});
  EXPECT_EQ(replay.err.find("missing FILE"), std::string::npos) << Describe(replay);
  EXPECT_NE(replay.exit_code, 2) << "FILE was taken as an --argv: " << Describe(replay);
}

// An option of two values (diff --frames I J) names both in its help, and a
// value missing names the one missing after those given.
TEST(UsageErrorsNamed, TwoValueOptionNamesBothValues) {
  const CommandResult help = Proctape({"diff", "--help"});
  EXPECT_NE(help.out.find("\n  --frames I J "), std::string::npos) << Describe(help);
  const CommandResult one = Proctape({"diff", "x.ptape", "--frames", "1"});
  EXPECT_EQ(one.exit_code, 2) << Describe(one);
  EXPECT_TRUE(StartsWith(one.err, "proctape: diff: missing J after --frames 1 (two frames I J "))
      << Describe(one);
  const CommandResult none = Proctape({"diff", "x.ptape", "--frames"});
  EXPECT_EQ(none.exit_code, 2) << Describe(none);
  EXPECT_TRUE(StartsWith(none.err, "proctape: diff: missing I J after --frames (two frames I J "))
      << Describe(none);
}

// capture --max-bytes below what one process can take is refused as any
// number outside its range, the range saying the least it takes.
TEST(UsageErrorsNamed, MaxBytesSaysTheLeastItTakes) {
  const CommandResult r = Proctape({"capture", "--max-bytes", "5"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "proctape: capture: --max-bytes: '5' is outside 155648..2^64-1 (see 'proctape "
            "capture --help')\n");
}

// A command of commands (corpus) names the word it did not know, and lists
// the commands it has.
TEST(UsageErrorsNamed, UnknownSubcommandIsNamedWithTheList) {
  CommandResult r = Proctape({"corpus", "nosuch"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(
      r.err,
      "proctape: corpus: unknown corpus command 'nosuch' (one of add, check, list, report, rm) "
      "(see 'proctape corpus --help')\n");
  r = Proctape({"corpus", "chek", "--json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown corpus command 'chek' (did you mean 'check'?)"), std::string::npos)
      << Describe(r);
  r = Proctape({"corpus"});
  EXPECT_EQ(r.err,
            "proctape: corpus: missing a corpus command (one of add, check, list, report, rm) "
            "(see 'proctape corpus --help')\n");
}

// Options that exclude each other, and a value outside a set of choices.
TEST(UsageErrorsNamed, ConflictsAndChoicesAreSaidInWords) {
  CommandResult r =
      Proctape({"resolve", "--fingerprint", "f", "--root-start", "5", "--token", "t"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("resolve: --fingerprint and --root-start cannot be given together ("),
            std::string::npos)
      << Describe(r);
  r = Proctape({"export", "f", "--format", "nope"});
  EXPECT_NE(r.err.find("export: --format: 'nope' is not one of json, dot, proc-dir, sqlite, csv ("),
            std::string::npos)
      << Describe(r);
  r = Proctape({"lab", "--sandbox", "nope"});
  EXPECT_NE(r.err.find("lab: --sandbox: 'nope' is not one of unshare, bwrap ("), std::string::npos)
      << Describe(r);
}

// A required set of choices missing is named by its choices alone: not with
// its first choice in parentheses, which reads as a default (export has no
// default --format).
TEST(UsageErrorsNamed, AMissingChoiceShowsNoDefault) {
  const CommandResult r = Proctape({"export", SourceCorpus() + "/f46add6575430d19.ptape"});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_EQ(r.err,
            "proctape: export: missing --format json|dot|proc-dir|sqlite|csv (see 'proctape export "
            "--help')\n");
  const Help help = HelpOf({"export"});
  EXPECT_NE(help.text.find("--format json|dot|proc-dir|sqlite|csv (required)"), std::string::npos)
      << help.text;
}

// A misspelt name is suggested whatever its case: every name is lower case.
TEST(UsageErrorsNamed, ASuggestionIgnoresCase) {
  CommandResult r = Proctape({"SHOW"});
  EXPECT_EQ(r.err,
            "proctape: 'SHOW' is not a proctape command (did you mean 'show'?) (see "
            "'proctape --help')\n");
  r = Proctape({"corpus", "LIST"});
  EXPECT_NE(r.err.find("(did you mean 'list'?)"), std::string::npos) << Describe(r);
  r = Proctape({"resolve", "--TOKEN", "t", "--root", "2"});
  EXPECT_NE(r.err.find("unknown option '--TOKEN' (did you mean '--token'?)"), std::string::npos)
      << Describe(r);
}

}  // namespace
}  // namespace proctape::live
