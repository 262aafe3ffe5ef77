// SPDX-License-Identifier: Apache-2.0
// The command line's contract for its inputs (docs/cli/commands.md), tested
// from the built binary: several files, standard input, corpus add's note
// and corpus rm.
#include <gtest/gtest.h>

#include <pty.h>
#include <unistd.h>

#include <sstream>
#include <string>
#include <vector>

#include "corpus/corpus.h"
#include "lab/lab.h"
#include "tests/live/cli_contract.h"
#include "tests/live/commands_fixture.h"
#include "tests/live/files.h"
#include "tests/live/sandbox.h"
#include "tests/live/build_paths.h"

namespace proctape::live {
namespace {

// ---- Several files, and standard input -------------------------------------------

// The binary with `input` as its standard input (through /bin/sh's redirection).
CommandResult ProctapeReading(const std::string& input, const std::string& args) {
  return live::RunCommand({"/bin/sh", "-c", std::string("exec \"$0\" ") + args + " < \"$1\"",
                           ::proctape::live::TestedBinary(), input},
                          60'000);
}

std::string Truncated(const TempDir& dir) {
  const std::string bytes = live::FileBytes(kPidReuse);
  live::WriteFile(dir.File("cut.ptape"), bytes.substr(0, bytes.size() / 2));
  return dir.File("cut.ptape");
}

// verify A B C: a line for each, in order; the exit status is the largest of
// theirs (13 truncated beats 10 missing), 0 only when every file is intact.
TEST(SeveralFiles, VerifyReportsEachFileAndExitsWithTheLargestStatus) {
  TempDir dir("several");
  CommandResult all = Proctape({"verify", kPidReuse, kHostileComm});
  EXPECT_EQ(all.exit_code, 0) << Describe(all);
  EXPECT_EQ(all.out.find(kPidReuse + ": intact"), 0u) << Describe(all);
  EXPECT_NE(all.out.find("\n" + kHostileComm + ": intact"), std::string::npos) << Describe(all);

  CommandResult r = Proctape({"verify", kPidReuse, dir.File("missing"), Truncated(dir)});
  EXPECT_EQ(r.exit_code, 13) << Describe(r);
  EXPECT_EQ(r.out.find(kPidReuse + ": intact"), 0u) << Describe(r);
  EXPECT_NE(r.err.find("proctape: " + dir.File("missing") + ": "), std::string::npos);
  EXPECT_NE(r.err.find("proctape: " + dir.File("cut.ptape") + ": "), std::string::npos);

  // --json: one document, {"files": [...]} of the reports in order
  // (VerifyReports).
  CommandResult json = Proctape({"verify", "--json", kPidReuse, dir.File("missing")});
  EXPECT_EQ(json.exit_code, 10) << Describe(json);
  EXPECT_EQ(json.out.rfind("{\"files\":[{\"file\":\"" + kPidReuse + "\"", 0), 0u) << Describe(json);
  EXPECT_NE(json.out.find("},{\"file\":\"" + dir.File("missing") + "\""), std::string::npos);
  EXPECT_EQ(json.out.substr(json.out.size() - 4), "}]}\n") << Describe(json);
}

TEST(SeveralFiles, ShowShowsEachFileSeparatedByABlankLine) {
  TempDir dir("several");
  CommandResult r = Proctape({"show", kPidReuse, dir.File("missing"), kHostileComm});
  EXPECT_EQ(r.exit_code, 10) << Describe(r);
  EXPECT_EQ(r.out.rfind("file: " + kPidReuse + "\n", 0), 0u) << Describe(r);
  EXPECT_NE(r.out.find("\n\nfile: " + kHostileComm + "\n"), std::string::npos) << Describe(r);
  EXPECT_TRUE(live::OneLine(r.err)) << Describe(r);
  CommandResult json = Proctape({"show", "--json", kPidReuse, kHostileComm});
  EXPECT_EQ(json.exit_code, 0) << Describe(json);
  EXPECT_EQ(json.out.rfind("{\"files\":[{", 0), 0u) << Describe(json);
}

// corpus add A B C adds each; a refusal does not stop the next; the exit
// status is the largest of theirs.
TEST(SeveralFiles, CorpusAddAddsEachFileAndARefusalDoesNotStopTheNext) {
  TempDir dir("several");
  const std::string corpus = dir.File("corpus");
  CommandResult r =
      Proctape({"corpus", "add", kPidReuse, Truncated(dir), kHostileComm, "--corpus", corpus});
  EXPECT_EQ(r.exit_code, 13) << Describe(r);
  EXPECT_NE(r.out.find("added pid-reuse-unshare "), std::string::npos) << Describe(r);
  EXPECT_NE(r.out.find("added hostile-comm-unshare "), std::string::npos) << Describe(r);
  EXPECT_TRUE(live::OneLine(r.err)) << Describe(r);
  CommandResult list = Proctape({"corpus", "list", corpus});
  EXPECT_EQ(list.exit_code, 0) << Describe(list);
  EXPECT_NE(list.out.find("hostile-comm-unshare"), std::string::npos) << Describe(list);
  EXPECT_NE(list.out.find("pid-reuse-unshare"), std::string::npos) << Describe(list);
}

// --name and --expect speak of one file: with several they are refused.
TEST(SeveralFiles, CorpusAddNameOrExpectWithSeveralFilesIsAUsageError) {
  TempDir dir("several");
  for (const char* option : {"--name", "--expect"}) {
    CommandResult r = Proctape({"corpus", "add", kPidReuse, kHostileComm, option, "RESOLVED",
                                "--corpus", dir.File("corpus")});
    EXPECT_EQ(r.exit_code, 2) << option << ": " << Describe(r);
    EXPECT_TRUE(live::OneLine(r.err)) << Describe(r);
    EXPECT_NE(r.err.find(option), std::string::npos) << Describe(r);
    EXPECT_FALSE(live::Exists(dir.File("corpus"))) << option;
  }
}

// '-' reads standard input wherever a file is read.
TEST(StandardInput, EveryCommandThatReadsAFileTakesDash) {
  TempDir dir("stdin");
  struct Case {
    std::string args;
    std::string out;  // what standard output begins with
  };
  for (const Case& c : std::vector<Case>{
           {"verify -", "-: intact"},
           {"show -", "file: -\n"},
           {"tree -", "-: frame 0"},
           {"diff -", "-: frame 0 -> frame 2"},
           {"explain -", "-: 2 recorded checks"},
           {"export - --format dot", "// proctape export --format dot"},
           {"replay -", "resolution 0: REPRODUCED"},
           {"corpus add - --corpus " + dir.File("corpus"), "added pid-reuse-unshare "}}) {
    CommandResult r = ProctapeReading(kPidReuse, c.args);
    EXPECT_EQ(r.exit_code, 0) << c.args << ": " << Describe(r);
    EXPECT_EQ(r.out.rfind(c.out, 0), 0u) << c.args << ": " << Describe(r);
  }
}

// '-' on a terminal is refused at once, exit 2, by every command that reads
// it: a .ptape is binary, and a read would wait, silent, for what no one
// types. '-' that is not standard input (--exe, the corpus) is not judged.
TEST(StandardInput, ATerminalIsRefusedNotWaitedOn) {
  TempDir dir("stdin-tty");
  int master = -1, slave = -1;
  ASSERT_EQ(::openpty(&master, &slave, nullptr, nullptr, nullptr), 0);
  for (const std::string& args :
       {std::string("verify -"), std::string("show -"), std::string("tree -"),
        std::string("diff -"), std::string("explain -"), std::string("export - --format dot"),
        std::string("replay -"), std::string("replay ") + kPidReuse + " --fingerprint -",
        std::string("resolve --root 2 --token t --fingerprint -"),
        "corpus add - --corpus " + dir.File("corpus"),
        std::string("ownership --baseline - --current ") + kPidReuse +
            " --uid 0 --cgroup / --self 2"}) {
    std::vector<std::string> argv{::proctape::live::TestedBinary()};
    std::istringstream words(args);
    for (std::string w; words >> w;) argv.push_back(w);
    const CommandResult r = RunCommand(argv, 20'000, slave);
    EXPECT_FALSE(r.timed_out) << args;
    EXPECT_EQ(r.exit_code, 2) << args << ": " << Describe(r);
    EXPECT_TRUE(live::OneLine(r.err)) << args << ": " << Describe(r);
    EXPECT_NE(r.err.find("'-' is standard input, which is a terminal"), std::string::npos)
        << args << ": " << Describe(r);
  }
  ::close(master);
  ::close(slave);
}

// Standard input can be read once: two inputs naming '-' are a usage error,
// not a second read that finds it empty.
TEST(StandardInput, CanBeReadOnlyOnce) {
  TempDir dir("stdin");
  for (const std::string& args :
       {std::string("verify - -"), std::string("show - -"), std::string("diff - -"),
        "corpus add - - --corpus " + dir.File("corpus"), std::string("replay - --fingerprint -"),
        std::string("ownership --baseline - --current - --uid 0 "
                    "--cgroup / --self 1")}) {
    CommandResult r = ProctapeReading(kPidReuse, args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << Describe(r);
    EXPECT_TRUE(live::OneLine(r.err)) << args << ": " << Describe(r);
    EXPECT_NE(r.err.find("standard input"), std::string::npos) << args << ": " << Describe(r);
  }
}

// ---- corpus add's note, corpus rm -------------------------------------------------

// A lab recording added without --note says what its scenario shows: the
// lab's own description, the note the shipped corpus holds for it.
TEST(CorpusNotes, ALabRecordingAddedWithoutANoteSaysWhatItsScenarioShows) {
  TempDir dir("notes");
  CommandResult r = Proctape({"corpus", "add", kPidReuse, "--corpus", dir.File("c")});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Failure failure;
  std::optional<Manifest> loaded = LoadManifest(dir.File("c"), false, &failure);
  ASSERT_TRUE(loaded) << failure.message;
  Manifest added = *loaded;
  loaded = LoadManifest(kSource + "/corpus", false, &failure);
  ASSERT_TRUE(loaded) << failure.message;
  const Manifest shipped = *loaded;
  ASSERT_EQ(added.entries.size(), 1u);
  ASSERT_NE(lab::FindScenario("pid-reuse"), nullptr);
  EXPECT_EQ(added.entries[0].shows, lab::FindScenario("pid-reuse")->shows);
  for (const ManifestEntry& e : shipped.entries) {
    if (e.name == "pid-reuse-unshare") {
      EXPECT_EQ(added.entries[0].shows, e.shows);
    }
  }
  // A note given is the note.
  r = Proctape({"corpus", "add", kHostileComm, "--corpus", dir.File("c"), "--note", "mine"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  loaded = LoadManifest(dir.File("c"), false, &failure);
  ASSERT_TRUE(loaded) << failure.message;
  added = *loaded;
  ASSERT_EQ(added.entries.size(), 2u);
  EXPECT_EQ(added.entries[0].shows, "mine");  // hostile-comm-unshare sorts first
}

// corpus rm NAME: the entry leaves the MANIFEST, its file the directory; the
// corpus still checks. An unknown name removes nothing (exit 2).
TEST(CorpusRm, RemovesTheEntryAndItsFile) {
  TempDir dir("rm");
  const std::string corpus = dir.File("c");
  ASSERT_EQ(Proctape({"corpus", "add", kPidReuse, kHostileComm, "--corpus", corpus}).exit_code, 0);
  Failure failure;
  std::optional<Manifest> loaded = LoadManifest(corpus, false, &failure);
  ASSERT_TRUE(loaded) << failure.message;
  const Manifest before = *loaded;
  ASSERT_EQ(before.entries.size(), 2u);

  CommandResult unknown =
      Proctape({"corpus", "rm", "pid-reuse-unshare", "nope", "--corpus", corpus});
  EXPECT_EQ(unknown.exit_code, 2) << Describe(unknown);
  EXPECT_TRUE(live::OneLine(unknown.err)) << Describe(unknown);
  EXPECT_TRUE(live::Exists(corpus + "/" + before.entries[1].file));

  CommandResult r = Proctape({"corpus", "rm", "pid-reuse-unshare", "--corpus", corpus});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out.rfind("removed pid-reuse-unshare ", 0), 0u) << Describe(r);
  loaded = LoadManifest(corpus, false, &failure);
  ASSERT_TRUE(loaded) << failure.message;
  const Manifest after = *loaded;
  ASSERT_EQ(after.entries.size(), 1u);
  EXPECT_EQ(after.entries[0].name, "hostile-comm-unshare");
  EXPECT_FALSE(live::Exists(corpus + "/" + before.entries[1].file));
  EXPECT_EQ(Proctape({"corpus", "check", corpus}).exit_code, 0);

  CommandResult none = Proctape({"corpus", "rm", "x", "--corpus", dir.File("nothing")});
  EXPECT_EQ(none.exit_code, 23) << Describe(none);
}

}  // namespace
}  // namespace proctape::live
