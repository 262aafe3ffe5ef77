// SPDX-License-Identifier: Apache-2.0
// The corpus commands' pipelines whole (corpus/pipelines.h), on the real
// recordings of tests/data/replay: add over several files (each one's line,
// JSON entry and failure kind), check's entries picked and what its report
// found, list's rows and rm's report, and the failures each gives a bad
// corpus or request.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "corpus/pipelines.h"
#include "tests/unit/replay_fixture.h"
#include "tests/unit/source_dir.h"

namespace proctape {
namespace {

using test::ReplayTempDir;

std::string Data(const std::string& name) {
  return (test::SourceDir() / "tests" / "data" / "replay" / (name + ".ptape")).string();
}

// Adds `files` to `dir`, every AddedFile in the order handed over.
std::vector<AddedFile> AddAll(const std::vector<std::string>& files, const std::string& dir,
                              MaybeFailure* usage = nullptr) {
  AddFilesRequest request;
  request.files = files;
  request.request.dir = dir;
  std::vector<AddedFile> added;
  MaybeFailure failed =
      AddFilesToCorpus(request, [&added](AddedFile& one) { added.push_back(one); });
  if (usage != nullptr) *usage = failed;
  return added;
}

TEST(CorpusPipelines, AddSaysEachFileInOrderAndRefusesOneWithoutStopping) {
  ReplayTempDir tmp;
  const std::string dir = tmp.File("c");
  const std::string missing = tmp.File("missing.ptape");
  std::vector<AddedFile> added = AddAll({Data("alive"), missing, Data("alive")}, dir);
  ASSERT_EQ(added.size(), 3u);

  EXPECT_FALSE(added[0].failure) << added[0].failure->message;
  EXPECT_EQ(added[0].result.outcome(), "added");
  EXPECT_TRUE(added[0].result.added());
  const std::string file = added[0].result.entry().file();
  EXPECT_EQ(added[0].line,
            "added alive as " + dir + "/" + file + ": expect " + added[0].result.entry().expect(0));

  ASSERT_TRUE(added[1].failure);
  EXPECT_EQ(added[1].failure->kind, FailureKind::kIo);
  EXPECT_TRUE(added[1].listed);
  EXPECT_EQ(added[1].result.outcome(), "refused");
  EXPECT_EQ(added[1].result.error(), added[1].failure->message);
  EXPECT_EQ(added[1].result.exit_status(), 0);  // the caller's to set
  EXPECT_TRUE(added[1].line.empty());

  EXPECT_FALSE(added[2].failure);
  EXPECT_EQ(added[2].result.outcome(), "duplicate");
  EXPECT_EQ(added[2].line, Data("alive") + " is already in the corpus as alive (" + file +
                               ", expect " + added[0].result.entry().expect(0) +
                               "): not added again");
}

TEST(CorpusPipelines, AddRefusesOneEntrysOptionsWithSeveralFiles) {
  ReplayTempDir tmp;
  AddFilesRequest request;
  request.files = {Data("alive"), Data("dead")};
  request.request.dir = tmp.File("c");
  request.request.name = "both";
  int calls = 0;
  MaybeFailure usage = AddFilesToCorpus(request, [&calls](AddedFile&) { ++calls; });
  ASSERT_TRUE(usage);
  EXPECT_EQ(usage->kind, FailureKind::kUsage);
  EXPECT_EQ(usage->message, "--name names one entry: give one FILE with it (2 given)");
  EXPECT_EQ(calls, 0);
  request.request.name.clear();
  request.request.expects = {"ALIVE"};
  usage = AddFilesToCorpus(request, [&calls](AddedFile&) { ++calls; });
  ASSERT_TRUE(usage);
  EXPECT_EQ(usage->kind, FailureKind::kUsage);
  EXPECT_EQ(calls, 0);
}

TEST(CorpusPipelines, AddOutcomesBecomeFailuresOfTheirKind) {
  AddOutcome out;
  EXPECT_FALSE(FailureOf(out));
  out.kind = AddOutcome::Kind::kFile;
  out.file_error = FormatErrorKind::kTruncated;
  out.message = "f: truncated";
  ASSERT_TRUE(FailureOf(out));
  EXPECT_EQ(FailureOf(out)->kind, FailureKind::kTruncated);
  EXPECT_EQ(FailureOf(out)->message, "f: truncated");
  out.kind = AddOutcome::Kind::kVerdictChanged;
  EXPECT_EQ(FailureOf(out)->kind, FailureKind::kVerdictChanged);
  out.kind = AddOutcome::Kind::kManifest;
  EXPECT_EQ(FailureOf(out)->kind, FailureKind::kManifest);
}

TEST(CorpusPipelines, CheckPicksEntriesAndSaysWhatItFound) {
  ReplayTempDir tmp;
  const std::string dir = tmp.File("c");
  ASSERT_EQ(AddAll({Data("alive"), Data("dead")}, dir).size(), 2u);

  CorpusCheckOutcome all = CheckCorpusDir({dir, {}, 2, nullptr, {}});
  ASSERT_FALSE(all.failure) << all.failure->message;
  ASSERT_EQ(all.report.results_size(), 2);
  EXPECT_EQ(all.report.reproduced(), 2u);
  EXPECT_FALSE(CheckFinding(all.report));
  EXPECT_EQ(CheckReportText(all.report), SummaryLine(all.report) + "\n");

  CorpusCheckOutcome one = CheckCorpusDir({dir, {"dead"}, 0, nullptr, {}});
  ASSERT_EQ(one.report.results_size(), 1);
  EXPECT_EQ(one.report.results(0).name(), "dead");

  CorpusCheckOutcome unknown = CheckCorpusDir({dir, {"dead", "nope"}, 1, nullptr, {}});
  ASSERT_TRUE(unknown.failure);
  EXPECT_EQ(unknown.failure->kind, FailureKind::kUsage);
  EXPECT_EQ(unknown.unknown_entry, "nope");
  EXPECT_EQ(unknown.failure->message, "no such entry in " + dir + "/MANIFEST");
  EXPECT_EQ(unknown.report.results_size(), 0);

  CorpusCheckOutcome none = CheckCorpusDir({tmp.File("none"), {}, 1, nullptr, {}});
  ASSERT_TRUE(none.failure);
  EXPECT_EQ(none.failure->kind, FailureKind::kManifest);
}

TEST(CorpusPipelines, CheckFindingIsAMissingFileBeforeADrift) {
  v1::CorpusReport report;
  report.set_drifted(1);
  report.add_results()->set_state(v1::CorpusEntryResult::DRIFTED);
  ASSERT_TRUE(CheckFinding(report));
  EXPECT_EQ(CheckFinding(report)->kind, FailureKind::kCorpusDrift);
  EXPECT_EQ(CheckFinding(report)->message, "1 entry drifted, 0 unreadable");
  v1::CorpusEntryResult* missing = report.add_results();
  missing->set_state(v1::CorpusEntryResult::UNREADABLE);
  missing->set_file_missing(true);
  report.set_unreadable(1);
  EXPECT_EQ(CheckFinding(report)->kind, FailureKind::kManifest);
  EXPECT_EQ(CheckFinding(report)->message, "the manifest names a missing file");
}

TEST(CorpusPipelines, ListAndRemoveReportTheEntries) {
  ReplayTempDir tmp;
  const std::string dir = tmp.File("c");
  ASSERT_EQ(AddAll({Data("alive"), Data("dead")}, dir).size(), 2u);

  CorpusListing listing = ListCorpus(dir);
  ASSERT_FALSE(listing.failure) << listing.failure->message;
  EXPECT_EQ(listing.list.dir(), dir);
  ASSERT_EQ(listing.list.entries_size(), 2);
  EXPECT_EQ(listing.list.entries(0).name(), "alive");
  EXPECT_EQ(listing.text.rfind("alive ", 0), 0u) << listing.text;
  EXPECT_NE(listing.text.find("\ndead "), std::string::npos) << listing.text;

  CorpusRemoval removal = RemoveCorpusEntries(dir, {"dead"});
  ASSERT_FALSE(removal.failure) << removal.failure->message;
  ASSERT_EQ(removal.removed.entries_size(), 1);
  EXPECT_EQ(removal.text, "removed dead (" + dir + "/" + removal.removed.entries(0).file() +
                              ") from the corpus\n");
  EXPECT_EQ(ListCorpus(dir).list.entries_size(), 1);

  CorpusRemoval unknown = RemoveCorpusEntries(dir, {"dead"});
  ASSERT_TRUE(unknown.failure);
  EXPECT_EQ(unknown.failure->kind, FailureKind::kUsage);
  EXPECT_EQ(unknown.removed.entries_size(), 0);
  EXPECT_TRUE(unknown.text.empty());

  CorpusListing none = ListCorpus(tmp.File("none"));
  ASSERT_TRUE(none.failure);
  EXPECT_EQ(none.failure->kind, FailureKind::kManifest);
  EXPECT_TRUE(none.text.empty());
  EXPECT_EQ(RemoveCorpusEntries(tmp.File("none"), {"x"}).failure->kind, FailureKind::kManifest);
}

}  // namespace
}  // namespace proctape
