// SPDX-License-Identifier: Apache-2.0
// `proctape corpus add|check|list` with the built binary, on the four real
// recordings of tests/data/replay copied into a temporary corpus: what each
// command prints, the files it writes (MANIFEST, <hash>.ptape, JUnit XML,
// JSON), and the exit status of every refusal and every kind of drift
// (cli/exit_codes.h: 2 usage, 10-16 file damage, 20 verdict changed, 21
// diverged, 22 drift, 23 manifest). No process is started but proctape.
// Refusals, manifest errors, --jobs and --entry are in
// corpus_cli_refusals_test.cc.
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "corpus/sha256.h"
#include "format/reader.h"
#include "proctape.pb.h"
#include "tests/live/corpus_cli_fixture.h"
#include "tests/live/files.h"
#include "tests/unit/replay_fixture.h"

namespace proctape::live {
namespace {

// The value of attribute `name` in the tag starting at `at`.
std::string Attribute(const std::string& xml, std::size_t at, const std::string& name) {
  std::size_t end = xml.find('>', at);
  std::size_t start = xml.find(" " + name + "=\"", at);
  if (start == std::string::npos || start > end) return "";
  start += name.size() + 3;
  return xml.substr(start, xml.find('"', start) - start);
}

// The testcases of a JUnit file: name -> "" (passed), "failure: MESSAGE" or
// "error: MESSAGE".
std::map<std::string, std::string> JUnitCases(const std::string& xml) {
  std::map<std::string, std::string> out;
  for (std::size_t at = xml.find("<testcase "); at != std::string::npos;
       at = xml.find("<testcase ", at + 1)) {
    EXPECT_EQ(Attribute(xml, at, "classname"), "proctape-corpus");
    std::string& result = out[Attribute(xml, at, "name")];
    std::size_t close = xml.find('>', at);
    if (xml[close - 1] == '/') continue;  // <testcase .../>: passed
    std::size_t inner = xml.find('<', close);
    for (const char* kind : {"failure", "error"}) {
      if (xml.compare(inner, std::strlen(kind) + 1, std::string("<") + kind) == 0) {
        result = std::string(kind) + ": " + Attribute(xml, inner, "message");
      }
    }
  }
  return out;
}

// 2026-12-01T03:12:44Z
bool IsUtcTime(const std::string& s) {
  const std::string form = "dddd-dd-ddTdd:dd:ddZ";
  if (s.size() != form.size()) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (form[i] == 'd' ? !std::isdigit(static_cast<unsigned char>(s[i])) : s[i] != form[i]) {
      return false;
    }
  }
  return true;
}
TEST_F(CorpusCliTest, AddListAndCheckTheRecordings) {
  AddAll();
  for (const char* name : kNames) {
    EXPECT_EQ(FileBytes(dir_ + "/" + Hash16(Data(name)) + ".ptape"), FileBytes(Data(name)));
    EXPECT_TRUE(Exists(Data(name))) << "copied, not moved";
  }
  EXPECT_TRUE(StartsWith(FileBytes(dir_ + "/MANIFEST"), "# proctape corpus manifest, format 1\n"));

  CommandResult list = Proctape({"corpus", "list", dir_});
  ASSERT_EQ(list.exit_code, 0) << Describe(list);
  EXPECT_TRUE(StartsWith(list.out, "alive        ALIVE                         kernel "))
      << list.out;
  EXPECT_NE(list.out.find("\nresolved     RESOLVED pid=6 start=1675507  kernel "),
            std::string::npos)
      << list.out;
  EXPECT_NE(list.out.find("  shows the no-match-5s recording\n"), std::string::npos) << list.out;
  EXPECT_EQ(std::count(list.out.begin(), list.out.end(), '\n'), 4);

  CommandResult json = Proctape({"corpus", "list", dir_, "--json"});
  ASSERT_EQ(json.exit_code, 0) << Describe(json);
  v1::CorpusList entries;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(json.out, &entries).ok()) << json.out;
  ASSERT_EQ(entries.entries_size(), 4);
  for (int i = 0; i < 4; ++i) {
    const v1::CorpusEntry& e = entries.entries(i);
    EXPECT_EQ(e.name(), kNames[i]);
    EXPECT_EQ(e.sha256(), Sha256Hex(FileBytes(Data(kNames[i]))));
    EXPECT_EQ(e.file(), Hash16(Data(kNames[i])) + ".ptape");
    EXPECT_FALSE(e.kernel().empty());
    EXPECT_TRUE(IsUtcTime(e.captured())) << e.captured();
  }
  EXPECT_EQ(entries.entries(0).expect(0), "ALIVE");
  EXPECT_EQ(entries.entries(2).expect(0), "NO_MATCH");
  EXPECT_TRUE(StartsWith(entries.entries(3).scenario(), "resolve --root "));

  const std::string junit = tmp_.File("corpus.xml");
  CommandResult check = Proctape({"corpus", "check", dir_, "--junit", junit});
  EXPECT_EQ(check.exit_code, 0) << Describe(check);
  EXPECT_EQ(Timeless(check.out),
            "corpus " + dir_ + ": 4 entries, 4 reproduced, 0 drifted, 0 unreadable (T s)\n");
  EXPECT_TRUE(check.err.empty()) << "no progress when standard error is no terminal\n"
                                 << Describe(check);
  std::string xml = FileBytes(junit);
  EXPECT_NE(xml.find("<testsuite name=\"proctape-corpus\" tests=\"4\" failures=\"0\" errors=\"0\""),
            std::string::npos)
      << xml;
  auto cases = JUnitCases(xml);
  ASSERT_EQ(cases.size(), 4u) << xml;
  for (const char* name : kNames) EXPECT_EQ(cases[name], "") << name;

  CommandResult report_json = Proctape({"corpus", "check", dir_, "--json"});
  EXPECT_EQ(report_json.exit_code, 0) << Describe(report_json);
  v1::CorpusReport report;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(report_json.out, &report).ok())
      << report_json.out;
  EXPECT_EQ(report.entries(), 4u);
  EXPECT_EQ(report.reproduced(), 4u);
  ASSERT_EQ(report.results_size(), 4);
  EXPECT_EQ(report.results(3).name(), "resolved");
  EXPECT_EQ(report.results(3).got(0), "RESOLVED pid=6 start=1675507");
  EXPECT_EQ(report.results(3).replays(0).outcome(), v1::ReplayResult::REPRODUCED);
}

// `corpus list` is a table: each column starts at one offset on every line,
// whatever the lengths of the names and verdicts; a name of 64 bytes (the
// longest an entry has) is printed whole.
TEST_F(CorpusCliTest, ListAlignsItsColumnsWhateverTheNamesLengths) {
  AddAll();
  const std::string longest(64, 'n');
  Snapshot s;
  ASSERT_TRUE(ReadSnapshot(Data("dead"), &s).ok());
  s.header.set_tool_version("edited");
  std::string error;
  ASSERT_TRUE(test::WriteSnapshotFile(s, tmp_.File("long.ptape"), &error)) << error;
  CommandResult add = Proctape({"corpus", "add", tmp_.File("long.ptape"), "--corpus", dir_,
                                "--name", longest, "--note", "a long name"});
  ASSERT_EQ(add.exit_code, 0) << Describe(add);
  CommandResult list = Proctape({"corpus", "list", dir_});
  ASSERT_EQ(list.exit_code, 0) << Describe(list);
  std::vector<std::string> lines;
  for (std::size_t at = 0, end; at < list.out.size(); at = end + 1) {
    end = list.out.find('\n', at);
    lines.push_back(list.out.substr(at, end - at));
  }
  ASSERT_EQ(lines.size(), 5u) << list.out;
  EXPECT_TRUE(StartsWith(lines[2], longest + "  DEAD ")) << list.out;  // sorted by name
  for (const char* column : {"  kernel ", "  captured ", "  shows "}) {
    const std::size_t at = lines[0].find(column);
    ASSERT_NE(at, std::string::npos) << column << list.out;
    for (const std::string& line : lines) EXPECT_EQ(line.find(column), at) << column << list.out;
  }
  // The verdicts' column starts after the longest name, on every line.
  for (const std::string& line : lines) {
    EXPECT_NE(line.find_first_not_of(' ', line.find(' ')), std::string::npos);
    EXPECT_EQ(line.find_first_not_of(' ', line.find(' ')), longest.size() + 2) << list.out;
  }
}

TEST_F(CorpusCliTest, SameContentOnceAndANameOnce) {
  AddAll();
  const std::string manifest = FileBytes(dir_ + "/MANIFEST");
  CommandResult again = Proctape({"corpus", "add", Data("dead"), "--corpus", dir_});
  EXPECT_EQ(again.exit_code, 0) << Describe(again);
  EXPECT_EQ(again.out, Data("dead") + " is already in the corpus as dead (" + Hash16(Data("dead")) +
                           ".ptape, expect DEAD): not added again\n");
  TempDir other("corpus-other");
  const std::string copy = other.File("alive.ptape");  // another file, another name
  Snapshot s;
  ASSERT_TRUE(ReadSnapshot(Data("dead"), &s).ok());
  s.header.set_tool_version("edited");  // other content, same basename as an entry
  std::string error;
  ASSERT_TRUE(test::WriteSnapshotFile(s, copy, &error)) << error;
  CommandResult clash = Proctape({"corpus", "add", copy, "--corpus", dir_});
  EXPECT_EQ(clash.exit_code, 2) << Describe(clash);
  EXPECT_TRUE(OneLine(clash.err)) << Describe(clash);
  EXPECT_TRUE(StartsWith(clash.err, "proctape: corpus add: " + copy +
                                        ": the name alive is taken by other content (" +
                                        Hash16(Data("alive")) + ".ptape): pass --name"))
      << Describe(clash);
  EXPECT_EQ(FileBytes(dir_ + "/MANIFEST"), manifest);
  CommandResult named = Proctape({"corpus", "add", copy, "--corpus", dir_, "--name", "dead-2"});
  EXPECT_EQ(named.exit_code, 0) << Describe(named);
  EXPECT_TRUE(StartsWith(named.out, "added dead-2 as ")) << Describe(named);
}

// Content already in the corpus: --name and --expect are checked all the
// same, never ignored. An invalid --expect is refused as for a new file; a
// name or an expectation other than the entry's is refused naming the entry
// (an add never changes one); the entry's own are the duplicate found.
TEST_F(CorpusCliTest, ADuplicateChecksItsNameAndExpectations) {
  AddAll();
  const std::string manifest = FileBytes(dir_ + "/MANIFEST");
  const std::string held = Data("dead") + " is already in the corpus as dead (" +
                           Hash16(Data("dead")) + ".ptape, expect DEAD): ";
  CommandResult invalid =
      Proctape({"corpus", "add", Data("dead"), "--corpus", dir_, "--expect", "BOGUS"});
  EXPECT_EQ(invalid.exit_code, 2) << Describe(invalid);
  EXPECT_TRUE(OneLine(invalid.err)) << Describe(invalid);
  EXPECT_NE(invalid.err.find("--expect BOGUS: not an expected outcome"), std::string::npos)
      << Describe(invalid);
  CommandResult renamed =
      Proctape({"corpus", "add", Data("dead"), "--corpus", dir_, "--name", "x"});
  EXPECT_EQ(renamed.exit_code, 2) << Describe(renamed);
  EXPECT_EQ(renamed.out, "") << Describe(renamed);
  EXPECT_TRUE(StartsWith(renamed.err, "proctape: corpus add: " + held + "--name x differs"))
      << Describe(renamed);
  CommandResult expect =
      Proctape({"corpus", "add", Data("dead"), "--corpus", dir_, "--expect", "ALIVE"});
  EXPECT_EQ(expect.exit_code, 2) << Describe(expect);
  EXPECT_TRUE(StartsWith(expect.err, "proctape: corpus add: " + held + "--expect ALIVE differs"))
      << Describe(expect);
  EXPECT_EQ(FileBytes(dir_ + "/MANIFEST"), manifest);
  CommandResult same = Proctape(
      {"corpus", "add", Data("dead"), "--corpus", dir_, "--name", "dead", "--expect", "DEAD"});
  EXPECT_EQ(same.exit_code, 0) << Describe(same);
  EXPECT_EQ(same.out, held + "not added again\n") << Describe(same);
}

// `corpus add A B C --json`: every FILE has its entry in the document, in
// order: added, duplicate, or refused with why and its status.
TEST_F(CorpusCliTest, JsonOfSeveralFilesHasAnEntryForEveryFile) {
  const std::string whole = FileBytes(Data("resolved"));
  WriteFile(tmp_.File("cut.ptape"), whole.substr(0, whole.size() - 5));
  ASSERT_EQ(Proctape({"corpus", "add", Data("dead"), "--corpus", dir_}).exit_code, 0);
  CommandResult r = Proctape({"corpus", "add", Data("alive"), Data("dead"), tmp_.File("cut.ptape"),
                              "--corpus", dir_, "--json"});
  EXPECT_EQ(r.exit_code, 13) << Describe(r);
  v1::CorpusAddResults doc;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(r.out, &doc).ok()) << Describe(r);
  ASSERT_EQ(doc.files_size(), 3) << Describe(r);
  EXPECT_EQ(doc.files(0).outcome(), "added");
  EXPECT_EQ(doc.files(0).file(), Data("alive"));
  EXPECT_EQ(doc.files(1).outcome(), "duplicate");
  EXPECT_EQ(doc.files(1).entry().name(), "dead");
  EXPECT_EQ(doc.files(2).outcome(), "refused");
  EXPECT_EQ(doc.files(2).file(), tmp_.File("cut.ptape"));
  EXPECT_EQ(doc.files(2).exit_status(), 13);
  EXPECT_TRUE(StartsWith(doc.files(2).error(), tmp_.File("cut.ptape") + ": ")) << Describe(r);
}

TEST_F(CorpusCliTest, AChangedFileIsUnreadable) {
  AddAll();
  const std::string file = dir_ + "/" + Hash16(Data("resolved")) + ".ptape";
  std::string bytes = FileBytes(file);
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x01);
  WriteFile(file, bytes);
  const std::string junit = tmp_.File("j.xml");
  CommandResult r = Proctape({"corpus", "check", dir_, "--junit", junit});
  EXPECT_EQ(r.exit_code, 22) << Describe(r);
  EXPECT_EQ(Timeless(r.out), "UNREADABLE resolved: " + Hash16(Data("resolved")) +
                                 ".ptape changed: its sha256 is " + Sha256Hex(bytes).substr(0, 16) +
                                 "..., the manifest's " + Hash16(Data("resolved")) + "...\n" +
                                 "corpus " + dir_ +
                                 ": 4 entries, 3 reproduced, 0 drifted, 1 unreadable (T s)\n");
  auto cases = JUnitCases(FileBytes(junit));
  EXPECT_TRUE(
      StartsWith(cases["resolved"], "error: " + Hash16(Data("resolved")) + ".ptape changed"))
      << cases["resolved"];
  EXPECT_EQ(cases["alive"], "");
  // Under --json the failure says what was found: an unreadable entry, no drift.
  CommandResult json = Proctape({"corpus", "check", dir_, "--json"});
  EXPECT_EQ(json.exit_code, 22) << Describe(json);
  EXPECT_NE(json.err.find("\"error\":\"exit 22: 0 entries drifted, 1 unreadable: "),
            std::string::npos)
      << Describe(json);
}

TEST_F(CorpusCliTest, AWrongExpectLineDrifts) {
  AddAll();
  EditManifest("expect   DEAD\n", "expect   ALIVE\n");
  const std::string junit = tmp_.File("j.xml");
  CommandResult r = Proctape({"corpus", "check", dir_, "--junit", junit});
  EXPECT_EQ(r.exit_code, 22) << Describe(r);
  EXPECT_EQ(Timeless(r.out), "DRIFT dead: expected ALIVE; got DEAD\ncorpus " + dir_ +
                                 ": 4 entries, 3 reproduced, 1 drifted, 0 unreadable (T s)\n");
  EXPECT_EQ(JUnitCases(FileBytes(junit))["dead"], "failure: expected ALIVE; got DEAD");
  CommandResult json = Proctape({"corpus", "check", dir_, "--json"});
  EXPECT_EQ(json.exit_code, 22) << Describe(json);
  v1::CorpusReport report;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(json.out, &report).ok()) << json.out;
  EXPECT_EQ(report.drifted(), 1u);
  EXPECT_EQ(report.results(1).state(), v1::CorpusEntryResult::DRIFTED);
  EXPECT_EQ(report.results(1).expected(0), "ALIVE");
  EXPECT_EQ(report.results(1).got(0), "DEAD");
  EXPECT_NE(json.err.find("\"error\":\"exit 22: 1 entry drifted, 0 unreadable: "),
            std::string::npos)
      << Describe(json);
}

// The "bug not yet fixed" case: the verdict a fix must give, pinned now.
TEST_F(CorpusCliTest, ExpectAVerdictTheReplayDoesNotGiveYet) {
  CommandResult r = Proctape({"corpus", "add", Data("no-match-5s"), "--corpus", dir_, "--expect",
                              "MULTIPLE_MATCHES", "--name", "pinned"});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out, "added pinned as " + dir_ + "/" + Hash16(Data("no-match-5s")) +
                       ".ptape: expect MULTIPLE_MATCHES\n");
  EXPECT_EQ(r.err,
            "proctape: warning: resolution 0 is expected to give MULTIPLE_MATCHES but "
            "replays to NO_MATCH: the entry will drift until the resolver gives "
            "MULTIPLE_MATCHES\n");
  CommandResult check = Proctape({"corpus", "check", dir_});
  EXPECT_EQ(check.exit_code, 22) << Describe(check);
  EXPECT_TRUE(StartsWith(check.out, "DRIFT pinned: expected MULTIPLE_MATCHES; got NO_MATCH\n"))
      << Describe(check);
  CommandResult bare =
      Proctape({"corpus", "add", Data("dead"), "--corpus", dir_, "--expect", "RESOLVED"});
  EXPECT_EQ(bare.exit_code, 2) << Describe(bare);
  EXPECT_TRUE(OneLine(bare.err)) << Describe(bare);
}

}  // namespace
}  // namespace proctape::live
