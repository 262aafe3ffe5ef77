// SPDX-License-Identifier: Apache-2.0
// corpus add and check at the library level (corpus/corpus.h), on the real
// recordings of tests/data/replay and on edited copies written by the real
// writer: what an entry records about its file, what add refuses and why
// (each refusal with the kind the CLI maps to an exit status), that it copies
// and never moves or replaces, keeps the manifest sorted with its comments,
// and that check's results do not depend on the number of threads.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "corpus/corpus.h"
#include "corpus/sha256.h"
#include "tests/unit/corpus_add_fixture.h"

namespace proctape {
namespace {

using namespace corpus_add_test;  // NOLINT: the fixture's helpers

TEST(CorpusFacts, CaptureTimeScenarioAndNames) {
  EXPECT_EQ(CapturedUtc(1'700'000'000'123'456'789), "2023-11-14T22:13:20Z");
  EXPECT_EQ(CapturedUtc(0), "");
  v1::Header h;
  for (const char* a : {"/usr/bin/proctape", "lab", "plain", "--sandbox", "bwrap", "--record",
                        "x y.ptape", "", "it's"}) {
    h.add_command_line(a);
  }
  EXPECT_EQ(ScenarioOf(h), "lab plain --sandbox bwrap --record 'x y.ptape' '' 'it'\\''s'");
  EXPECT_EQ(DefaultEntryName(h, "/tmp/whatever.ptape"), "plain-bwrap");
  v1::Header defaults;
  for (const char* a : {"proctape", "lab", "pid-reuse", "--record", "f.ptape"}) {
    defaults.add_command_line(a);
  }
  EXPECT_EQ(DefaultEntryName(defaults, "f.ptape"), "pid-reuse-unshare");
  v1::Header equals;
  for (const char* a : {"proctape", "lab", "plain", "--sandbox=bwrap"}) equals.add_command_line(a);
  EXPECT_EQ(DefaultEntryName(equals, "f.ptape"), "plain-bwrap");
  v1::Header first;
  for (const char* a :
       {"proctape", "lab", "--record", "r.ptape", "--sandbox", "bwrap", "--force", "exe-swap"}) {
    first.add_command_line(a);
  }
  EXPECT_EQ(DefaultEntryName(first, "r.ptape"), "exe-swap-bwrap");
  v1::Header list;
  for (const char* a : {"proctape", "lab", "--list"}) list.add_command_line(a);
  EXPECT_EQ(DefaultEntryName(list, "/x/listing.ptape"), "listing");
  v1::Header resolve;
  for (const char* a : {"proctape", "resolve", "--root", "3"}) resolve.add_command_line(a);
  EXPECT_EQ(ScenarioOf(resolve), "resolve --root 3");
  EXPECT_EQ(DefaultEntryName(resolve, "/data/ci run #4.ptape"), "ci-run--4");
  EXPECT_EQ(DefaultEntryName(resolve, "no-suffix"), "no-suffix");
  EXPECT_EQ(SanitizeName("..-_a\xc3\xa9"), "a--");
  EXPECT_EQ(SanitizeName("\n\n"), "entry");
  EXPECT_EQ(SanitizeName(std::string(80, 'x')), std::string(64, 'x'));
}

TEST(CorpusAdd, CopiesTheRecordingAndDescribesItInTheManifest) {
  ReplayTempDir tmp;
  const std::string dir = tmp.File("corpus");  // created by add
  AddRequest r;
  r.file = Data("resolved");
  r.dir = dir;
  r.note = "a sandboxed sleep resolves";
  AddOutcome out = AddToCorpus(r);
  ASSERT_EQ(out.kind, Kind::kAdded) << Why(out);
  EXPECT_TRUE(out.warnings.empty());
  const std::string sha = Sha256Hex(Bytes(Data("resolved")));
  EXPECT_EQ(out.entry.name, "resolved");
  EXPECT_EQ(out.entry.sha256, sha);
  EXPECT_EQ(out.entry.file, sha.substr(0, 16) + ".ptape");
  EXPECT_EQ(out.entry.expects, std::vector<std::string>{"RESOLVED pid=6 start=1675507"});
  Snapshot s = Read(Data("resolved"));
  EXPECT_EQ(out.entry.kernel, s.header.host().kernel_release());
  EXPECT_EQ(out.entry.captured, CapturedUtc(s.header.capture_start_realtime_ns()));
  EXPECT_EQ(out.entry.scenario.rfind("resolve --root ", 0), 0u) << out.entry.scenario;
  // The command line named the token (--token VALUE): a MANIFEST is committed
  // and printed, so the value is masked there, its length kept.
  const std::string token = s.resolutions.at(0).resolve().token();
  ASSERT_FALSE(token.empty());
  EXPECT_EQ(out.entry.scenario.find(token), std::string::npos) << out.entry.scenario;
  EXPECT_NE(out.entry.scenario.find("--token " + std::string(token.size(), '*')), std::string::npos)
      << out.entry.scenario;
  EXPECT_EQ(out.entry.shows, "a sandboxed sleep resolves");
  // Copied, byte for byte; the source is still there.
  EXPECT_EQ(Bytes(dir + "/" + out.entry.file), Bytes(Data("resolved")));
  EXPECT_TRUE(std::filesystem::exists(Data("resolved")));
  Failure failure;
  std::optional<Manifest> loaded = LoadManifest(dir, false, &failure);
  ASSERT_TRUE(loaded) << failure.message;
  Manifest m = loaded.value_or(Manifest{});
  ASSERT_EQ(m.entries.size(), 1u);
  EXPECT_EQ(m.entries[0].sha256, sha);
  EXPECT_EQ(m.entries[0].scenario, out.entry.scenario);
  // Nothing else is left in the directory (no temporary file).
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& f : std::filesystem::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 2u);
}

TEST(CorpusAdd, SameContentIsNotAddedTwiceAndANameIsNotTakenTwice) {
  ReplayTempDir tmp;
  const std::string dir = tmp.File("c");
  ASSERT_EQ(Add(Data("alive"), dir).kind, Kind::kAdded);
  const std::string before = Bytes(ManifestPath(dir));
  AddOutcome again = Add(Data("alive"), dir);
  EXPECT_EQ(again.kind, Kind::kAlreadyPresent) << Why(again);
  EXPECT_EQ(again.entry.name, "alive");
  // Another name for the same content is refused, naming the entry: an add
  // never changes one.
  AddOutcome renamed = Add(Data("alive"), dir, {}, "another-name");
  EXPECT_EQ(renamed.kind, Kind::kUsage) << Why(renamed);
  EXPECT_EQ(renamed.message,
            Data("alive") + " is already in the corpus as alive (" +
                CorpusFileName(Sha256Hex(Bytes(Data("alive")))) +
                ", expect ALIVE): --name another-name differs; an add never changes an entry "
                "('proctape corpus rm alive' first to add it again)");
  AddOutcome clash = Add(Data("dead"), dir, {}, "alive");
  EXPECT_EQ(clash.kind, Kind::kUsage);
  EXPECT_EQ(clash.message, Data("dead") + ": the name alive is taken by other content (" +
                               CorpusFileName(Sha256Hex(Bytes(Data("alive")))) +
                               "): pass --name with another name");
  EXPECT_EQ(Bytes(ManifestPath(dir)), before);
  EXPECT_EQ(Add(Data("dead"), dir, {}, "bad/name").kind, Kind::kUsage);
}

TEST(CorpusAdd, KeepsEntriesSortedByNameAndCommentsInPlace) {
  ReplayTempDir tmp;
  const std::string dir = tmp.File("c");
  std::filesystem::create_directories(dir);
  std::ofstream(ManifestPath(dir)) << "# proctape corpus manifest, format 1\n"
                                      "# kept at the top\n";
  ASSERT_EQ(Add(Data("resolved"), dir).kind, Kind::kAdded);
  ASSERT_EQ(Add(Data("alive"), dir).kind, Kind::kAdded);
  ASSERT_EQ(Add(Data("no-match-5s"), dir).kind, Kind::kAdded);
  Failure failure;
  std::optional<Manifest> loaded = LoadManifest(dir, false, &failure);
  ASSERT_TRUE(loaded) << failure.message;
  Manifest m = loaded.value_or(Manifest{});
  EXPECT_EQ(m.comments, std::vector<std::string>{"# kept at the top"});
  std::vector<std::string> names;
  for (const ManifestEntry& e : m.entries) names.push_back(e.name);
  EXPECT_EQ(names, (std::vector<std::string>{"alive", "no-match-5s", "resolved"}));
}

// A recorded verdict that the replay does not give (here: the stored pid
// edited) is refused, unless --expect says what is wanted.
TEST(CorpusAdd, AChangedVerdictNeedsExpect) {
  ReplayTempDir tmp;
  Snapshot s = Read(Data("resolved"));
  s.resolutions[0].mutable_verdict()->set_pid(8);
  const std::string file = Write(s, tmp.File("edited.ptape"));
  AddOutcome refused = Add(file, tmp.File("c"));
  EXPECT_EQ(refused.kind, Kind::kVerdictChanged) << Why(refused);
  EXPECT_NE(refused.message.find("resolution 0: VERDICT CHANGED: recorded RESOLVED pid=8 "
                                 "start=1675507, replayed RESOLVED pid=6 start=1675507"),
            std::string::npos)
      << refused.message;
  EXPECT_FALSE(std::filesystem::exists(tmp.File("c")));  // nothing created

  // The replayed identity, taken from the replay: no warning.
  AddOutcome fixed = Add(file, tmp.File("c"), {"RESOLVED"});
  ASSERT_EQ(fixed.kind, Kind::kAdded) << Why(fixed);
  EXPECT_EQ(fixed.entry.expects, std::vector<std::string>{"RESOLVED pid=6 start=1675507"});
  EXPECT_TRUE(fixed.warnings.empty());

  // A verdict the resolver does not give yet: added, with a warning.
  AddOutcome pinned = Add(Data("no-match-5s"), tmp.File("c"), {"MULTIPLE_MATCHES"});
  ASSERT_EQ(pinned.kind, Kind::kAdded) << Why(pinned);
  EXPECT_EQ(pinned.entry.expects, std::vector<std::string>{"MULTIPLE_MATCHES"});
  ASSERT_EQ(pinned.warnings.size(), 1u);
  EXPECT_EQ(pinned.warnings[0],
            "resolution 0 is expected to give MULTIPLE_MATCHES but replays to "
            "NO_MATCH: the entry will drift until the resolver gives "
            "MULTIPLE_MATCHES");
}

TEST(CorpusAdd, ADivergedTapeIsRefusedEvenWithExpect) {
  ReplayTempDir tmp;
  Snapshot s = Read(Data("resolved"));
  test::RemoveObservation(&s, 3);
  const std::string file = Write(s, tmp.File("cut.ptape"));
  for (std::vector<std::string> expects : {std::vector<std::string>{}, {"NO_MATCH"}}) {
    AddOutcome out = Add(file, tmp.File("c"), expects);
    EXPECT_EQ(out.kind, Kind::kDiverged) << Why(out);
    EXPECT_NE(out.message.find("resolution 0 DIVERGED at observation 3"), std::string::npos)
        << out.message;
  }
}

TEST(CorpusAdd, RefusesDamageNoResolutionAndAWrongNumberOfExpects) {
  ReplayTempDir tmp;
  const std::string whole = Bytes(Data("alive"));
  std::ofstream(tmp.File("cut.ptape"), std::ios::binary) << whole.substr(0, whole.size() - 9);
  AddOutcome cut = Add(tmp.File("cut.ptape"), tmp.File("c"));
  EXPECT_EQ(cut.kind, Kind::kFile);
  EXPECT_EQ(cut.file_error, FormatErrorKind::kTruncated) << cut.message;
  AddOutcome missing = Add(tmp.File("nothing.ptape"), tmp.File("c"));
  EXPECT_EQ(missing.kind, Kind::kIo) << Why(missing);

  Snapshot capture = Read(Data("alive"));
  capture.resolutions.clear();
  capture.observations.clear();
  AddOutcome none = Add(Write(capture, tmp.File("capture.ptape")), tmp.File("c"));
  EXPECT_EQ(none.kind, Kind::kUsage);
  EXPECT_NE(none.message.find("holds no recorded resolution"), std::string::npos) << none.message;

  AddOutcome two = Add(Data("alive"), tmp.File("c"), {"ALIVE", "DEAD"});
  EXPECT_EQ(two.kind, Kind::kUsage);
  EXPECT_NE(two.message.find("records 1 resolution: give --expect once per resolution"),
            std::string::npos)
      << two.message;
  EXPECT_FALSE(std::filesystem::exists(tmp.File("c")));
}

TEST(CorpusAdd, NeverReplacesAFileOfOtherContent) {
  ReplayTempDir tmp;
  const std::string dir = tmp.File("c");
  std::filesystem::create_directories(dir);
  const std::string target = dir + "/" + CorpusFileName(Sha256Hex(Bytes(Data("dead"))));
  std::ofstream(target) << "not the recording";
  AddOutcome out = Add(Data("dead"), dir);
  EXPECT_EQ(out.kind, Kind::kIo);
  EXPECT_NE(out.message.find("exists with other content: not replaced"), std::string::npos)
      << out.message;
  EXPECT_EQ(Bytes(target), "not the recording");
  EXPECT_FALSE(std::filesystem::exists(ManifestPath(dir)));
}

TEST(CorpusAdd, ABrokenManifestIsReportedWithItsLine) {
  ReplayTempDir tmp;
  const std::string dir = tmp.File("c");
  std::filesystem::create_directories(dir);
  std::ofstream(ManifestPath(dir))
      << "# proctape corpus manifest, format 1\n\nentry    a\nwho  x\n";
  AddOutcome out = Add(Data("dead"), dir);
  EXPECT_EQ(out.kind, Kind::kManifest);
  EXPECT_EQ(out.message, dir +
                             "/MANIFEST:4: unknown key 'who' (keys: entry file sha256 expect "
                             "shows kernel captured scenario)");
}

}  // namespace
}  // namespace proctape
