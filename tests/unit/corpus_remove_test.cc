// SPDX-License-Identifier: Apache-2.0
// corpus rm at the library level (corpus/corpus.h, RemoveFromCorpus): the
// named entries leave the MANIFEST and their files the directory; all the
// names or none; a missing or broken MANIFEST is the manifest's failure.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "corpus/corpus.h"
#include "tests/unit/replay_fixture.h"
#include "tests/unit/source_dir.h"

namespace proctape {
namespace {

using Kind = RemoveOutcome::Kind;
using test::ReplayTempDir;

std::string Data(const std::string& name) {
  return (test::SourceDir() / "tests" / "data" / "replay" / (name + ".ptape")).string();
}

// A corpus holding the entries alive, dead and resolved.
std::string ThreeEntries(const ReplayTempDir& tmp) {
  const std::string dir = tmp.File("corpus");
  for (const char* name : {"alive", "dead", "resolved"}) {
    AddRequest r;
    r.file = Data(name);
    r.dir = dir;
    AddOutcome out = AddToCorpus(r);
    EXPECT_EQ(out.kind, AddOutcome::Kind::kAdded) << out.message;
  }
  return dir;
}

std::vector<std::string> Names(const std::string& dir) {
  Failure failure;
  std::optional<Manifest> loaded = LoadManifest(dir, false, &failure);
  EXPECT_TRUE(loaded) << failure.message;
  Manifest m = loaded.value_or(Manifest{});
  std::vector<std::string> out;
  for (const ManifestEntry& e : m.entries) out.push_back(e.name);
  return out;
}

std::vector<std::string> Files(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& f : std::filesystem::directory_iterator(dir)) {
    out.push_back(f.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(CorpusRemove, TheNamedEntriesLeaveTheManifestAndTheirFilesTheDirectory) {
  ReplayTempDir tmp;
  const std::string dir = ThreeEntries(tmp);
  Failure failure;
  std::optional<Manifest> loaded = LoadManifest(dir, false, &failure);
  ASSERT_TRUE(loaded) << failure.message;
  Manifest before = loaded.value_or(Manifest{});
  RemoveOutcome out = RemoveFromCorpus(dir, {"resolved", "alive"});
  ASSERT_EQ(out.kind, Kind::kRemoved) << out.message;
  ASSERT_EQ(out.removed.size(), 2u);
  EXPECT_EQ(out.removed[0].name, "alive");  // manifest order
  EXPECT_EQ(out.removed[1].name, "resolved");
  EXPECT_TRUE(out.warnings.empty());
  EXPECT_EQ(Names(dir), std::vector<std::string>{"dead"});
  std::vector<std::string> left = {before.entries[1].file, "MANIFEST"};
  std::sort(left.begin(), left.end());
  EXPECT_EQ(Files(dir), left);
}

TEST(CorpusRemove, AnUnknownNameRemovesNothing) {
  ReplayTempDir tmp;
  const std::string dir = ThreeEntries(tmp);
  const std::vector<std::string> files = Files(dir);
  RemoveOutcome out = RemoveFromCorpus(dir, {"alive", "no-such"});
  EXPECT_EQ(out.kind, Kind::kUsage);
  EXPECT_NE(out.message.find("no-such"), std::string::npos) << out.message;
  EXPECT_TRUE(out.removed.empty());
  EXPECT_EQ(Names(dir), (std::vector<std::string>{"alive", "dead", "resolved"}));
  EXPECT_EQ(Files(dir), files);
}

TEST(CorpusRemove, AnEntryWhoseFileIsAlreadyMissingIsRemovedWithAWarning) {
  ReplayTempDir tmp;
  const std::string dir = ThreeEntries(tmp);
  Failure failure;
  std::optional<Manifest> loaded = LoadManifest(dir, false, &failure);
  ASSERT_TRUE(loaded) << failure.message;
  Manifest m = loaded.value_or(Manifest{});
  std::filesystem::remove(dir + "/" + m.entries[1].file);
  RemoveOutcome out = RemoveFromCorpus(dir, {"dead"});
  EXPECT_EQ(out.kind, Kind::kRemoved) << out.message;
  ASSERT_EQ(out.warnings.size(), 1u);
  EXPECT_NE(out.warnings[0].find("already missing"), std::string::npos) << out.warnings[0];
  EXPECT_EQ(Names(dir), (std::vector<std::string>{"alive", "resolved"}));
}

TEST(CorpusRemove, NoCorpusOrABrokenManifestIsTheManifestsFailure) {
  ReplayTempDir tmp;
  EXPECT_EQ(RemoveFromCorpus(tmp.File("nowhere"), {"a"}).kind, Kind::kManifest);
  std::filesystem::create_directory(tmp.File("empty"));
  EXPECT_EQ(RemoveFromCorpus(tmp.File("empty"), {"a"}).kind, Kind::kManifest);
  const std::string dir = ThreeEntries(tmp);
  { std::ofstream(dir + "/MANIFEST", std::ios::app) << "nonsense\n"; }
  RemoveOutcome out = RemoveFromCorpus(dir, {"alive"});
  EXPECT_EQ(out.kind, Kind::kManifest);
  EXPECT_NE(out.message.find("MANIFEST:"), std::string::npos) << out.message;
}

}  // namespace
}  // namespace proctape
