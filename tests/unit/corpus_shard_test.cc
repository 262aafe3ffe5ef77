// SPDX-License-Identifier: Apache-2.0
// corpus check --shard K/N and corpus report (docs/corpus.md, "Shards"), at
// the library level on the repository's own corpus (corpus/MANIFEST and its
// recordings) and on a copy of it with a drift and a missing file: the split
// by the SHA-256 of an entry's name (every entry in exactly one of N shards,
// for N = 1..7; adding an entry moves no other), and the merge of the N
// shards' reports, which is the unsharded report (JSON and JUnit XML), or a
// refusal that names what is wrong.
#include <gtest/gtest.h>

#include <google/protobuf/util/json_util.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "corpus/corpus.h"
#include "corpus/pipelines.h"
#include "corpus/shard.h"
#include "proto/convert.h"
#include "tests/unit/replay_fixture.h"
#include "tests/unit/source_dir.h"

namespace proctape {
namespace {

using test::ReplayTempDir;

std::string SourceCorpus() { return (test::SourceDir() / "corpus").string(); }

std::vector<std::string> NamesOf(const std::string& dir) {
  Failure failure;
  std::optional<Manifest> m = LoadManifest(dir, false, &failure);
  EXPECT_TRUE(m) << failure.message;
  std::vector<std::string> names;
  for (const ManifestEntry& e : m.value_or(Manifest{}).entries) names.push_back(e.name);
  return names;
}

// The report without its wall times.
v1::CorpusReport Timeless(v1::CorpusReport r) {
  r.clear_seconds();
  for (auto& e : *r.mutable_results()) e.clear_seconds();
  return r;
}
std::string TimelessXml(const std::string& xml) {
  return std::regex_replace(xml, std::regex("time=\"[0-9.]*\""), "time=\"T\"");
}

CorpusCheckOutcome Check(const std::string& dir, Shard shard, std::vector<std::string> only = {},
                         unsigned jobs = 2) {
  CorpusCheckRequest request{dir, std::move(only), jobs, nullptr, shard};
  CorpusCheckOutcome out = CheckCorpusDir(request);
  EXPECT_FALSE(out.failure) << out.failure->message;
  return out;
}

// Every shard's report of N, merged (in reverse order: the order given does
// not matter).
CorpusMerge MergeOfShards(const std::string& dir, unsigned n, std::vector<std::string> only = {}) {
  std::vector<v1::CorpusReport> reports;
  std::vector<std::string> names;
  for (unsigned k = n; k >= 1; --k) {
    reports.push_back(Check(dir, Shard{k, n}, only).report);
    names.push_back("shard-" + std::to_string(k) + ".json");
  }
  return MergeCorpusReports(reports, names);
}

TEST(CorpusShard, KOfNIsParsedAndOtherwiseRefusedSayingWhy) {
  Failure failure;
  std::optional<Shard> s = ParseShard("2/5", &failure);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->index, 2u);
  EXPECT_EQ(s->count, 5u);
  EXPECT_EQ(ShardText(*s), "2/5");
  EXPECT_TRUE(ParseShard("1/1", &failure));
  EXPECT_TRUE(ParseShard("1024/1024", &failure));
  const std::map<std::string, std::string> refused = {
      {"0/3", "'0/3' has K outside 1..3 (K is this shard, from 1 to N)"},
      {"4/3", "'4/3' has K outside 1..3 (K is this shard, from 1 to N)"},
      {"1/0", "'1/0' has N outside 1..1024 (N is the number of shards)"},
      {"1/1025", "'1/1025' has N outside 1..1024 (N is the number of shards)"},
      {"", "'' is not K/N, shard K of N (as 2/5; 1 <= K <= N <= 1024)"},
      {"3", "'3' is not K/N, shard K of N (as 2/5; 1 <= K <= N <= 1024)"},
      {"-1/3", "'-1/3' is not K/N, shard K of N (as 2/5; 1 <= K <= N <= 1024)"},
      {"1/3/5", "'1/3/5' is not K/N, shard K of N (as 2/5; 1 <= K <= N <= 1024)"},
      {" 1/3", "' 1/3' is not K/N, shard K of N (as 2/5; 1 <= K <= N <= 1024)"},
      {"1/9999999999", "'1/9999999999' is not K/N, shard K of N (as 2/5; 1 <= K <= N <= 1024)"},
  };
  for (const auto& [text, why] : refused) {
    Failure f;
    EXPECT_FALSE(ParseShard(text, &f)) << text;
    EXPECT_EQ(f.kind, FailureKind::kUsage) << text;
    EXPECT_EQ(f.message, why) << text;
  }
}

// Every entry in exactly one shard, for N = 1..7; the shard of an entry is
// that of its name alone: adding entries moves none of the others.
TEST(CorpusShard, EveryEntryIsInExactlyOneShardAndAddingOneMovesNoOther) {
  std::vector<std::string> names = NamesOf(SourceCorpus());
  ASSERT_GE(names.size(), 20u);
  for (unsigned n = 1; n <= 7; ++n) {
    std::map<std::string, unsigned> shard_of;
    for (unsigned k = 1; k <= n; ++k) {
      for (const std::string& name : names) {
        if (!InShard(name, Shard{k, n})) continue;
        EXPECT_TRUE(shard_of.emplace(name, k).second) << name << " in two shards of " << n;
      }
    }
    EXPECT_EQ(shard_of.size(), names.size()) << n;
    for (const auto& [name, k] : shard_of) EXPECT_EQ(ShardOfId(name, n), k);
    // More entries (a corpus grown to 200 names): each old one stays.
    std::vector<std::string> grown = names;
    for (int i = 0; i < 200; ++i) grown.insert(grown.begin() + i % 7, "new-" + std::to_string(i));
    for (const std::string& name : names) EXPECT_EQ(ShardOfId(name, n), shard_of[name]) << name;
    // The split is a split: at 200 names and more, no shard of N <= 7 is empty.
    std::vector<int> sizes(n + 1, 0);
    for (const std::string& name : grown) ++sizes[ShardOfId(name, n)];
    for (unsigned k = 1; k <= n; ++k) EXPECT_GT(sizes[k], 0) << k << "/" << n;
  }
  // The hash is SHA-256's: its first 8 bytes, big-endian, modulo N, plus 1.
  // SHA-256("abc") begins ba7816bf8f01cfea: 0xba7816bf8f01cfea % 7 = 2.
  EXPECT_EQ(ShardOfId("abc", 7), 3u);
  EXPECT_EQ(ShardOfId("abc", 2), 1u);  // even
}

// The merge of N shards' reports is the unsharded report, for N = 1..7, on
// the repository's corpus: the same JSON (wall times aside) and the same
// JUnit XML; each shard's report holds its own entries only.
TEST(CorpusReportMerge, TheMergeOfNShardsIsTheUnshardedReport) {
  const std::string dir = SourceCorpus();
  const v1::CorpusReport whole = Check(dir, Shard{}).report;
  ASSERT_EQ(whole.entries(), NamesOf(dir).size());
  EXPECT_EQ(whole.selected(), whole.entries());
  EXPECT_EQ(whole.shards(), 0u);
  EXPECT_EQ(whole.manifest_sha256().size(), 64u);
  for (unsigned n = 1; n <= 7; ++n) {
    std::uint32_t sum = 0;
    for (unsigned k = 1; k <= n; ++k) {
      const v1::CorpusReport shard = Check(dir, Shard{k, n}).report;
      EXPECT_EQ(shard.shard(), k);
      EXPECT_EQ(shard.shards(), n);
      EXPECT_EQ(shard.selected(), whole.entries());
      for (const auto& e : shard.results()) EXPECT_EQ(ShardOfId(e.name(), n), k);
      // --jobs changes nothing in a shard either.
      EXPECT_EQ(ToJson(Timeless(Check(dir, Shard{k, n}, {}, 1).report)),
                ToJson(Timeless(Check(dir, Shard{k, n}, {}, 5).report)));
      sum += shard.entries();
    }
    EXPECT_EQ(sum, whole.entries()) << n;
    CorpusMerge merged = MergeOfShards(dir, n);
    ASSERT_FALSE(merged.failure) << merged.failure->message;
    EXPECT_EQ(ToJson(Timeless(merged.report)), ToJson(Timeless(whole))) << n;
    EXPECT_EQ(TimelessXml(JUnitXml(merged.report)), TimelessXml(JUnitXml(whole))) << n;
    EXPECT_EQ(SummaryLine(Timeless(merged.report)), SummaryLine(Timeless(whole)));
  }
}

// A copy of the corpus in which one entry drifts and one file is missing:
// the merge still reports what one check reports (the DRIFT, the
// UNREADABLE, the finding), and --entry with --shard splits --entry's
// entries.
class CorpusCopy : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(tmp_.ok());
    dir_ = tmp_.File("corpus");
    std::filesystem::create_directory(dir_);
    for (const auto& f : std::filesystem::directory_iterator(SourceCorpus())) {
      const std::string name = f.path().filename().string();
      if (name == "MANIFEST" || f.path().extension() == ".ptape") {
        std::filesystem::copy_file(f.path(), dir_ + "/" + name);
      }
    }
    std::ifstream in(dir_ + "/MANIFEST");
    std::stringstream text;
    text << in.rdbuf();
    std::string manifest = text.str();
    const std::string from = "expect   MULTIPLE_MATCHES\n";
    ASSERT_NE(manifest.find(from), std::string::npos);
    manifest.replace(manifest.find(from), from.size(), "expect   NO_MATCH\n");
    std::ofstream(dir_ + "/MANIFEST", std::ios::trunc) << manifest;
    Failure failure;
    std::optional<Manifest> m = LoadManifest(dir_, false, &failure);
    ASSERT_TRUE(m) << failure.message;
    missing_ = m->entries.back().name;
    std::filesystem::remove(dir_ + "/" + m->entries.back().file);
  }

  ReplayTempDir tmp_;
  std::string dir_;
  std::string missing_;
};

TEST_F(CorpusCopy, TheMergeReportsTheDriftAndTheMissingFileAsOneCheckDoes) {
  const v1::CorpusReport whole = Check(dir_, Shard{}).report;
  EXPECT_EQ(whole.drifted(), 1u);
  EXPECT_EQ(whole.unreadable(), 1u);
  ASSERT_TRUE(CheckFinding(whole));
  for (unsigned n = 1; n <= 7; ++n) {
    CorpusMerge merged = MergeOfShards(dir_, n);
    ASSERT_FALSE(merged.failure) << merged.failure->message;
    EXPECT_EQ(ToJson(Timeless(merged.report)), ToJson(Timeless(whole))) << n;
    EXPECT_EQ(TimelessXml(JUnitXml(merged.report)), TimelessXml(JUnitXml(whole))) << n;
    EXPECT_EQ(CheckReportText(Timeless(merged.report)), CheckReportText(Timeless(whole)));
    ASSERT_TRUE(CheckFinding(merged.report));
    EXPECT_EQ(CheckFinding(merged.report)->kind, FailureKind::kManifest);  // the missing file
  }
  EXPECT_NE(CheckReportText(whole).find("DRIFT ambiguous-bwrap: expected NO_MATCH; got "),
            std::string::npos)
      << CheckReportText(whole);
  EXPECT_NE(CheckReportText(whole).find("UNREADABLE " + missing_ + ": "), std::string::npos);
}

TEST_F(CorpusCopy, EntryWithShardSplitsTheEntriesNamed) {
  const std::vector<std::string> only = {"ambiguous-bwrap", missing_, "exited-unshare"};
  const v1::CorpusReport whole = Check(dir_, Shard{}, only).report;
  ASSERT_EQ(whole.entries(), 3u);
  for (unsigned n = 1; n <= 7; ++n) {
    std::set<std::string> seen;
    for (unsigned k = 1; k <= n; ++k) {
      const v1::CorpusReport shard = Check(dir_, Shard{k, n}, only).report;
      EXPECT_EQ(shard.selected(), 3u);
      EXPECT_EQ(shard.selection_sha256(), whole.selection_sha256());
      for (const auto& e : shard.results()) EXPECT_TRUE(seen.insert(e.name()).second) << e.name();
    }
    EXPECT_EQ(seen, std::set<std::string>(only.begin(), only.end())) << n;
    CorpusMerge merged = MergeOfShards(dir_, n, only);
    ASSERT_FALSE(merged.failure) << merged.failure->message;
    EXPECT_EQ(ToJson(Timeless(merged.report)), ToJson(Timeless(whole))) << n;
  }
}

// What makes no whole is refused, kind kShards, on one line naming it.
TEST_F(CorpusCopy, ReportsThatMakeNoWholeAreRefusedSayingWhy) {
  std::vector<v1::CorpusReport> three;
  for (unsigned k = 1; k <= 3; ++k) three.push_back(Check(dir_, Shard{k, 3}).report);
  const std::vector<std::string> names = {"a.json", "b.json", "c.json"};
  auto refusal = [](const std::vector<v1::CorpusReport>& reports,
                    const std::vector<std::string>& given) {
    CorpusMerge m = MergeCorpusReports(reports, given);
    EXPECT_TRUE(m.failure);
    if (!m.failure) return std::string();
    EXPECT_EQ(m.failure->kind, FailureKind::kShards);
    EXPECT_EQ(m.failure->message.find('\n'), std::string::npos);
    return m.failure->message;
  };
  ASSERT_FALSE(MergeCorpusReports(three, names).failure);

  EXPECT_EQ(refusal({three[0], three[2]}, {"a.json", "c.json"}),
            "shard 2/3 is missing: give the report of each 'corpus check --shard K/N --json'");
  EXPECT_EQ(refusal({three[1]}, {"b.json"}),
            "shards 1/3, 3/3 are missing: give the report of each 'corpus check --shard K/N "
            "--json'");
  EXPECT_EQ(refusal({three[0], three[1], three[1], three[2]}, {"a", "b", "b2", "c"}),
            "b2: shard 2/3 is given twice (b is it too)");
  EXPECT_EQ(refusal({Check(dir_, Shard{}).report}, {"whole.json"}),
            "whole.json: a report of no shard (not of 'corpus check --shard K/N --json')");

  const v1::CorpusReport of_two = Check(dir_, Shard{2, 2}).report;
  EXPECT_EQ(refusal({three[0], of_two, three[2]}, names),
            "b.json is a report of shard 2/2, a.json of shard 1/3: the shards of one run have "
            "one N");

  const v1::CorpusReport source = Check(SourceCorpus(), Shard{2, 3}).report;
  EXPECT_EQ(refusal({three[0], source, three[2]}, names).substr(0, 60),
            "b.json (shard 2/3) is a report of another corpus than a.json");

  const v1::CorpusReport some = Check(dir_, Shard{2, 3}, {"exited-unshare"}).report;
  EXPECT_EQ(refusal({three[0], some, three[2]}, names),
            "b.json (shard 2/3) checked other entries than a.json (1 selected, the other " +
                std::to_string(three[0].selected()) + "): give every shard the same --entry");

  // Counts that are not the results', an entry of another shard, an entry
  // dropped (every report still consistent on its own).
  std::vector<v1::CorpusReport> edited = three;
  edited[1].set_reproduced(edited[1].reproduced() + 1);
  EXPECT_NE(refusal(edited, names).find("b.json: its counts ("), std::string::npos);
  edited = three;
  ASSERT_GT(edited[0].results_size(), 0);
  *edited[1].add_results() = edited[0].results(0);
  edited[1].set_entries(edited[1].entries() + 1);
  EXPECT_EQ(refusal(edited, names),
            "b.json: its entry " + edited[0].results(0).name() + " is not of shard 2/3");
  edited = three;
  const v1::CorpusEntryResult dropped = edited[2].results(0);
  edited[2].mutable_results()->DeleteSubrange(0, 1);
  edited[2].set_entries(edited[2].entries() - 1);
  if (dropped.state() == v1::CorpusEntryResult::REPRODUCED) {
    edited[2].set_reproduced(edited[2].reproduced() - 1);
  } else if (dropped.state() == v1::CorpusEntryResult::DRIFTED) {
    edited[2].set_drifted(edited[2].drifted() - 1);
  } else {
    edited[2].set_unreadable(edited[2].unreadable() - 1);
  }
  EXPECT_EQ(refusal(edited, names), "the shards' reports hold " +
                                        std::to_string(three[0].selected() - 1) +
                                        " entries, not the " + std::to_string(three[0].selected()) +
                                        " the run selected: they are not the reports of one run");
}

// From files: the JSON `corpus check --json` prints, read back; a file
// that is not one is refused naming it, one that cannot be read is kIo.
TEST_F(CorpusCopy, ReportsAreReadFromTheirJsonFiles) {
  std::vector<std::string> files;
  for (unsigned k = 1; k <= 3; ++k) {
    files.push_back(tmp_.File("shard-" + std::to_string(k) + ".json"));
    std::ofstream(files.back()) << ToJson(Check(dir_, Shard{k, 3}).report) << "\n";
  }
  CorpusMerge merged = MergeCorpusReports(files);
  ASSERT_FALSE(merged.failure) << merged.failure->message;
  EXPECT_EQ(ToJson(Timeless(merged.report)), ToJson(Timeless(Check(dir_, Shard{}).report)));

  std::ofstream(tmp_.File("bad.json")) << "{\"entries\": \"many\"}";
  CorpusMerge bad = MergeCorpusReports(std::vector<std::string>{files[0], tmp_.File("bad.json")});
  ASSERT_TRUE(bad.failure);
  EXPECT_EQ(bad.failure->kind, FailureKind::kShards);
  EXPECT_EQ(bad.failure->message.rfind(
                tmp_.File("bad.json") + ": not the JSON of 'corpus check --json' (", 0),
            0u)
      << bad.failure->message;
  // What the parser quotes of a file is escaped: a .ptape's magic, a
  // terminal's escape, a NUL never reach the message raw.
  std::ofstream(tmp_.File("raw.json"), std::ios::binary)
      << std::string("{\"\x89PTAPE\x1b[31m\0x\": 1}", 20);
  CorpusMerge raw = MergeCorpusReports(std::vector<std::string>{tmp_.File("raw.json")});
  ASSERT_TRUE(raw.failure);
  EXPECT_EQ(raw.failure->kind, FailureKind::kShards);
  for (char c : raw.failure->message) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << raw.failure->message;
  // An empty file (a shard whose check failed before it printed) and JSON
  // of another kind say so.
  std::ofstream(tmp_.File("empty.json")).flush();
  CorpusMerge empty = MergeCorpusReports(std::vector<std::string>{tmp_.File("empty.json")});
  ASSERT_TRUE(empty.failure);
  EXPECT_EQ(empty.failure->message,
            tmp_.File("empty.json") +
                ": is empty: its 'corpus check --json' wrote no report (its exit status and "
                "standard error say why)");
  std::ofstream(tmp_.File("other.json")) << "{\"shard\": 1, \"shards\": 3}";
  CorpusMerge other = MergeCorpusReports(std::vector<std::string>{tmp_.File("other.json")});
  ASSERT_TRUE(other.failure);
  EXPECT_EQ(other.failure->message,
            tmp_.File("other.json") +
                ": not the JSON of 'corpus check --json' (it has no manifest_sha256)");
  CorpusMerge none = MergeCorpusReports(std::vector<std::string>{tmp_.File("absent.json")});
  ASSERT_TRUE(none.failure);
  EXPECT_EQ(none.failure->kind, FailureKind::kIo);
  EXPECT_EQ(none.failure->message,
            tmp_.File("absent.json") + ": cannot open: No such file or directory");
}

}  // namespace
}  // namespace proctape
