// SPDX-License-Identifier: Apache-2.0
// corpus add and check at the library level (corpus/corpus.h), continued:
// one expect line per recorded resolution, check's results whatever the
// number of threads, the note a lab recording takes, and the name of a file
// read through standard input.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "corpus/corpus.h"
#include "tests/unit/corpus_add_fixture.h"

namespace proctape {
namespace {

using namespace corpus_add_test;  // NOLINT: the fixture's helpers

// Two resolutions in one file (the alive and the dead check, one tape after
// the other): one expect line each, in file order.
TEST(CorpusAdd, OneExpectLinePerRecordedResolution) {
  ReplayTempDir tmp;
  Snapshot both = Read(Data("alive"));
  Snapshot dead = Read(Data("dead"));
  v1::Resolution second = dead.resolutions[0];
  second.set_first_observation(both.observations.size());
  for (const v1::Observation& o : dead.observations) both.observations.push_back(o);
  both.resolutions.push_back(second);
  const std::string file = Write(both, tmp.File("both.ptape"));
  AddOutcome out = Add(file, tmp.File("c"));
  ASSERT_EQ(out.kind, Kind::kAdded) << Why(out);
  EXPECT_EQ(out.entry.expects, (std::vector<std::string>{"ALIVE", "DEAD"}));
  EXPECT_EQ(Add(file, tmp.File("d"), {"ALIVE"}).kind, Kind::kUsage);
  AddOutcome swapped = Add(file, tmp.File("d"), {"DEAD", "ALIVE"});
  ASSERT_EQ(swapped.kind, Kind::kAdded) << Why(swapped);
  EXPECT_EQ(swapped.warnings.size(), 2u);

  v1::CorpusEntryResult r = CheckEntry(tmp.File("c"), out.entry);
  EXPECT_EQ(r.state(), v1::CorpusEntryResult::REPRODUCED) << r.detail();
  EXPECT_EQ(r.replays_size(), 2);
  v1::CorpusEntryResult d = CheckEntry(tmp.File("d"), swapped.entry);
  EXPECT_EQ(CheckLine(d), "DRIFT both: expected DEAD, ALIVE; got ALIVE, DEAD");
}

v1::CorpusReport Timeless(v1::CorpusReport r) {
  r.clear_seconds();
  for (auto& e : *r.mutable_results()) e.clear_seconds();
  return r;
}

TEST(CorpusCheck, ResultsAreInManifestOrderWhateverTheThreads) {
  ReplayTempDir tmp;
  const std::string dir = tmp.File("c");
  for (const char* name : {"resolved", "no-match-5s", "alive", "dead"}) {
    ASSERT_EQ(Add(Data(name), dir).kind, Kind::kAdded) << name;
  }
  Failure failure;
  std::optional<Manifest> loaded = LoadManifest(dir, false, &failure);
  ASSERT_TRUE(loaded) << failure.message;
  Manifest m = loaded.value_or(Manifest{});
  ASSERT_EQ(m.entries[2].name, "no-match-5s");  // sorted by name
  m.entries[2].expects = {"DEAD"};              // a drift
  std::vector<std::string> runs;
  for (unsigned jobs : {1u, 2u, 4u, 16u}) {
    CheckOptions options;
    options.jobs = jobs;
    std::vector<std::size_t> done;
    options.progress = [&done](std::size_t k, std::size_t n, const std::string&) {
      EXPECT_EQ(n, 4u);
      done.push_back(k);
    };
    v1::CorpusReport report = CheckCorpus(dir, m.entries, options);
    EXPECT_EQ(done, (std::vector<std::size_t>{1, 2, 3, 4})) << jobs;
    ASSERT_EQ(report.results_size(), 4);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(report.results(i).name(), m.entries[i].name);
    EXPECT_EQ(report.reproduced(), 3u);
    EXPECT_EQ(report.drifted(), 1u);
    EXPECT_EQ(CheckLine(report.results(2)), "DRIFT no-match-5s: expected DEAD; got NO_MATCH");
    runs.push_back(Timeless(report).SerializeAsString());
  }
  for (const std::string& run : runs) EXPECT_EQ(run, runs[0]);
}

// A lab recording added without a note takes what its scenario shows; a
// note given wins; a recording not made by the lab has no default note.
TEST(CorpusAdd, ALabRecordingWithoutANoteSaysWhatItsScenarioShows) {
  ReplayTempDir tmp;
  Snapshot s = Read(Data("resolved"));
  s.header.clear_command_line();
  for (const char* a : {"proctape", "lab", "--sandbox", "bwrap", "plain", "--record", "p.ptape"}) {
    s.header.add_command_line(a);
  }
  const std::string lab = Write(s, tmp.File("p.ptape"));
  EXPECT_EQ(LabRecordingOf(s.header).scenario, "plain");
  EXPECT_EQ(LabRecordingOf(s.header).sandbox, "bwrap");
  EXPECT_EQ(LabRecordingOf(Read(Data("resolved")).header).scenario, "");

  auto request = [&](const std::string& file, const std::string& dir) {
    AddRequest r;
    r.file = file;
    r.dir = tmp.File(dir);
    r.scenario_note = [](const std::string& scenario) { return "what " + scenario + " shows"; };
    return r;
  };
  AddOutcome out = AddToCorpus(request(lab, "a"));
  ASSERT_EQ(out.kind, Kind::kAdded) << Why(out);
  EXPECT_EQ(out.entry.shows, "what plain shows");

  AddRequest noted = request(lab, "b");
  noted.note = "my own words";
  out = AddToCorpus(noted);
  ASSERT_EQ(out.kind, Kind::kAdded) << Why(out);
  EXPECT_EQ(out.entry.shows, "my own words");

  out = AddToCorpus(request(Data("resolved"), "c"));
  ASSERT_EQ(out.kind, Kind::kAdded) << Why(out);
  EXPECT_EQ(out.entry.shows, "");
}

// A file read through another path (standard input's copy) is named as the
// user named it: in messages, and "stdin" as the default entry name.
TEST(CorpusAdd, AFileShownAsStandardInputIsNamedStdin) {
  ReplayTempDir tmp;
  AddRequest r;
  r.file = Data("resolved");
  r.shown = "-";
  r.dir = tmp.File("c");
  AddOutcome out = AddToCorpus(r);
  ASSERT_EQ(out.kind, Kind::kAdded) << Why(out);
  EXPECT_EQ(out.entry.name, "stdin");
  r.file = tmp.File("missing.ptape");
  out = AddToCorpus(r);
  EXPECT_EQ(out.kind, Kind::kIo) << Why(out);
  EXPECT_EQ(out.message.rfind("-: ", 0), 0u) << out.message;
}

}  // namespace
}  // namespace proctape
