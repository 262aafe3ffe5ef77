// SPDX-License-Identifier: Apache-2.0
// `proctape corpus add|check` with the built binary, refusing: what is not
// an intact recording that replays (each of several files named), a broken
// MANIFEST (its line named), a missing file; and the output that does not
// depend on --jobs, --entry, --help. The exit statuses are cli/exit_codes.h's.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "format/reader.h"
#include "proctape.pb.h"
#include "tests/live/corpus_cli_fixture.h"
#include "tests/live/files.h"
#include "tests/unit/replay_fixture.h"

namespace proctape::live {
namespace {

TEST_F(CorpusCliTest, RefusesWhatIsNotAnIntactRecordingThatReplays) {
  const std::string whole = FileBytes(Data("resolved"));
  WriteFile(tmp_.File("cut.ptape"), whole.substr(0, whole.size() - 5));
  WriteFile(tmp_.File("text.ptape"), "hello, world\n");
  Snapshot changed, diverged, capture;
  ASSERT_TRUE(ReadSnapshot(Data("resolved"), &changed).ok());
  diverged = capture = changed;
  changed.resolutions[0].mutable_verdict()->set_start_ticks(1);
  test::RemoveObservation(&diverged, 0);
  capture.resolutions.clear();
  capture.observations.clear();
  std::string error;
  ASSERT_TRUE(test::WriteSnapshotFile(changed, tmp_.File("changed.ptape"), &error)) << error;
  ASSERT_TRUE(test::WriteSnapshotFile(diverged, tmp_.File("diverged.ptape"), &error)) << error;
  ASSERT_TRUE(test::WriteSnapshotFile(capture, tmp_.File("capture.ptape"), &error)) << error;
  struct Case {
    std::string file;
    int status;
    std::string says;
  };
  const Case cases[] = {
      {"cut.ptape", 13, "truncated"},
      {"text.ptape", 11, ""},
      {"absent.ptape", 10, "cannot open"},
      {"capture.ptape", 2, "holds no recorded resolution"},
      {"changed.ptape", 20,
       "resolution 0: VERDICT CHANGED: recorded RESOLVED pid=6 start=1, "
       "replayed RESOLVED pid=6 start=1675507"},
      {"diverged.ptape", 21, "resolution 0 DIVERGED at observation 0"},
  };
  for (const Case& c : cases) {
    CommandResult r = Proctape({"corpus", "add", tmp_.File(c.file), "--corpus", dir_});
    EXPECT_EQ(r.exit_code, c.status) << c.file << Describe(r);
    EXPECT_TRUE(OneLine(r.err)) << c.file << Describe(r);
    EXPECT_TRUE(StartsWith(
        r.err, "proctape: " + std::string(c.status == 2 ? "corpus add: " : "") + tmp_.File(c.file)))
        << Describe(r);
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.says << Describe(r);
    EXPECT_TRUE(r.out.empty()) << Describe(r);
  }
  EXPECT_FALSE(Exists(dir_)) << "a refused file creates nothing";
  CommandResult pinned = Proctape(
      {"corpus", "add", tmp_.File("changed.ptape"), "--corpus", dir_, "--expect", "RESOLVED"});
  EXPECT_EQ(pinned.exit_code, 0) << Describe(pinned);
}

// Several files in one add: each refusal is one line that names its file
// (damaged, diverged, verdict changed, a name another file of the same add
// took), and the good files are added all the same.
TEST_F(CorpusCliTest, EachRefusalOfSeveralFilesNamesItsFile) {
  const std::string whole = FileBytes(Data("resolved"));
  WriteFile(tmp_.File("cut.ptape"), whole.substr(0, whole.size() - 5));
  Snapshot changed, diverged, twin;
  ASSERT_TRUE(ReadSnapshot(Data("resolved"), &changed).ok());
  diverged = changed;
  changed.resolutions[0].mutable_verdict()->set_start_ticks(1);
  test::RemoveObservation(&diverged, 0);
  ASSERT_TRUE(ReadSnapshot(Data("dead"), &twin).ok());
  twin.header.set_tool_version("edited");  // other content, the default name "dead" again
  TempDir other("corpus-twin");
  const std::string twin_file = other.File("dead.ptape");
  std::string error;
  ASSERT_TRUE(test::WriteSnapshotFile(changed, tmp_.File("changed.ptape"), &error)) << error;
  ASSERT_TRUE(test::WriteSnapshotFile(diverged, tmp_.File("diverged.ptape"), &error)) << error;
  ASSERT_TRUE(test::WriteSnapshotFile(twin, twin_file, &error)) << error;
  CommandResult r =
      Proctape({"corpus", "add", Data("dead"), tmp_.File("cut.ptape"), tmp_.File("changed.ptape"),
                tmp_.File("diverged.ptape"), twin_file, Data("alive"), "--corpus", dir_});
  EXPECT_EQ(r.exit_code, 21) << Describe(r);
  EXPECT_TRUE(StartsWith(r.out, "added dead as ")) << Describe(r);
  EXPECT_NE(r.out.find("\nadded alive as "), std::string::npos) << Describe(r);
  std::vector<std::string> lines;
  for (std::size_t at = 0, end; at < r.err.size(); at = end + 1) {
    end = r.err.find('\n', at);
    lines.push_back(r.err.substr(at, end - at));
  }
  const std::string expected[] = {tmp_.File("cut.ptape"), tmp_.File("changed.ptape"),
                                  tmp_.File("diverged.ptape"), twin_file};
  ASSERT_EQ(lines.size(), std::size(expected)) << Describe(r);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    // A usage refusal carries the command's name first, as every usage error.
    std::string line = lines[i];
    if (StartsWith(line, "proctape: corpus add: ")) line.erase(10, 12);
    EXPECT_TRUE(StartsWith(line, "proctape: " + expected[i] + ": ")) << lines[i];
  }
  EXPECT_NE(lines[3].find("the name dead is taken by other content"), std::string::npos)
      << lines[3];
}

TEST_F(CorpusCliTest, ABrokenManifestNamesItsLine) {
  AddAll();
  EditManifest("expect   NO_MATCH\n", "expect   NO_MATCH\nexpected DEAD\n");
  const std::string text = FileBytes(dir_ + "/MANIFEST");
  const int line =
      static_cast<int>(std::count(text.begin(), text.begin() + text.find("expected D"), '\n')) + 1;
  const std::string says =
      "proctape: " + dir_ + "/MANIFEST:" + std::to_string(line) + ": unknown key 'expected'";
  for (std::vector<std::string> args : {std::vector<std::string>{"corpus", "check", dir_},
                                        {"corpus", "list", dir_},
                                        {"corpus", "add", Data("dead"), "--corpus", dir_}}) {
    CommandResult r = Proctape(args);
    EXPECT_EQ(r.exit_code, 23) << Describe(r);
    EXPECT_TRUE(OneLine(r.err)) << Describe(r);
    EXPECT_TRUE(StartsWith(r.err, says)) << says << "\n" << Describe(r);
    EXPECT_TRUE(r.out.empty()) << Describe(r);
  }
  CommandResult none = Proctape({"corpus", "check", tmp_.File("nowhere")});
  EXPECT_EQ(none.exit_code, 23) << Describe(none);
  EXPECT_TRUE(StartsWith(none.err, "proctape: " + tmp_.File("nowhere") + "/MANIFEST: cannot open"))
      << Describe(none);
}

TEST_F(CorpusCliTest, AMissingFileIsUnreadableAndAManifestError) {
  AddAll();
  std::filesystem::remove(dir_ + "/" + Hash16(Data("alive")) + ".ptape");
  CommandResult r = Proctape({"corpus", "check", dir_});
  EXPECT_EQ(r.exit_code, 23) << Describe(r);
  EXPECT_TRUE(StartsWith(r.out, "UNREADABLE alive: " + Hash16(Data("alive")) +
                                    ".ptape is missing from the corpus directory\n"))
      << Describe(r);
}

// A --corpus that is no corpus is said alike by check, list and rm: the
// option, the directory escaped once, and what is wrong with its MANIFEST.
TEST_F(CorpusCliTest, ANonCorpusIsSaidAlikeByCheckListAndRm) {
  for (const std::string& name : {std::string("nodir"), std::string("odd\ndir")}) {
    const std::string dir = tmp_.File(name);
    const std::string said = "proctape: --corpus '" + tmp_.path() + "/" +
                             (name == "nodir" ? "nodir" : "odd\\x0adir") +
                             "': MANIFEST: cannot open: No such file or directory";
    for (const std::vector<std::string>& args :
         std::vector<std::vector<std::string>>{{"corpus", "check", "--corpus", dir},
                                               {"corpus", "list", "--corpus", dir},
                                               {"corpus", "rm", "--corpus", dir, "foo"}}) {
      CommandResult r = Proctape(args);
      EXPECT_EQ(r.exit_code, 23) << Describe(r);
      EXPECT_TRUE(OneLine(r.err)) << Describe(r);
      EXPECT_TRUE(StartsWith(r.err, said)) << args[1] << ": " << Describe(r);
    }
  }
}

TEST_F(CorpusCliTest, OutputDoesNotDependOnJobs) {
  AddAll();
  EditManifest("expect   DEAD\n", "expect   ERROR PID_REUSED\n");
  EditManifest("expect   NO_MATCH\n", "expect   NO_MATCH\nexpect   ALIVE\n");
  std::vector<std::string> outs;
  for (const char* jobs : {"1", "4"}) {
    CommandResult r = Proctape({"corpus", "check", dir_, "--jobs", jobs});
    EXPECT_EQ(r.exit_code, 22) << Describe(r);
    outs.push_back(Timeless(r.out));
  }
  EXPECT_EQ(outs[0], outs[1]);
  EXPECT_EQ(outs[0],
            "DRIFT dead: expected ERROR PID_REUSED; got DEAD\n"
            "DRIFT no-match-5s: expected NO_MATCH, ALIVE; got NO_MATCH\n"
            "corpus " +
                dir_ + ": 4 entries, 2 reproduced, 2 drifted, 0 unreadable (T s)\n");
}

TEST_F(CorpusCliTest, EntryChecksOnlyTheNamedEntries) {
  AddAll();
  EditManifest("expect   DEAD\n", "expect   ALIVE\n");
  CommandResult one = Proctape({"corpus", "check", dir_, "--entry", "alive"});
  EXPECT_EQ(one.exit_code, 0) << Describe(one);
  EXPECT_EQ(Timeless(one.out),
            "corpus " + dir_ + ": 1 entry, 1 reproduced, 0 drifted, 0 unreadable (T s)\n");
  CommandResult two = Proctape({"corpus", "check", dir_, "--entry", "dead", "--entry", "alive"});
  EXPECT_EQ(two.exit_code, 22) << Describe(two);
  EXPECT_TRUE(StartsWith(two.out, "DRIFT dead: expected ALIVE; got DEAD\ncorpus ")) << two.out;
  CommandResult unknown = Proctape({"corpus", "check", dir_, "--entry", "nope"});
  EXPECT_EQ(unknown.exit_code, 2) << Describe(unknown);
  EXPECT_EQ(unknown.err, "proctape: corpus check: --entry 'nope': no such entry in " + dir_ +
                             "/MANIFEST (see 'proctape corpus check --help')\n");
}

TEST(CorpusCliHelp, TeachesWithExamples) {
  for (std::vector<std::string> args : {std::vector<std::string>{"corpus", "--help"},
                                        {"corpus", "add", "--help"},
                                        {"corpus", "check", "--help"},
                                        {"corpus", "list", "--help"}}) {
    CommandResult r = Proctape(args);
    EXPECT_EQ(r.exit_code, 0) << Describe(r);
    EXPECT_NE(r.out.find("Example"), std::string::npos) << Describe(r);
    EXPECT_NE(r.out.find("proctape corpus "), std::string::npos) << Describe(r);
  }
  CommandResult bare = Proctape({"corpus"});
  EXPECT_EQ(bare.exit_code, 2) << Describe(bare);
}

}  // namespace
}  // namespace proctape::live
