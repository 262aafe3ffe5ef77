// SPDX-License-Identifier: Apache-2.0
// `proctape explain` (`docs/explain.md`, "Tests and golden files"): its output.
// Hostile names are escaped in every line, the same file explains to the same
// bytes, the JSON round-trips, offsets are told to a tenth of a millisecond;
// then the text and JSON of every corpus entry (corpus/MANIFEST) and of a
// hand-made hostile recording are compared byte for byte with
// tests/golden/explain/. PROCTAPE_UPDATE_GOLDEN=1 rewrites the golden files
// instead.
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "analyze/explain.h"
#include "corpus/manifest.h"
#include "format/reader.h"
#include "proto/convert.h"
#include "tests/unit/analyze_explain_fixture.h"
#include "tests/unit/fake_host.h"
#include "tests/unit/source_dir.h"

namespace proctape {
namespace {

using namespace test;  // the typical host: FakeHost, its pids, start times, tokens

std::filesystem::path SourceDir() { return test::SourceDir(); }

std::string FileBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Compares `actual` with tests/golden/explain/NAME, or rewrites it when
// PROCTAPE_UPDATE_GOLDEN=1.
void ExpectGolden(const std::string& name, const std::string& actual) {
  const std::filesystem::path path = SourceDir() / "tests" / "golden" / "explain" / name;
  const char* update = std::getenv("PROCTAPE_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << actual;
  }
  ASSERT_TRUE(std::filesystem::exists(path))
      << name << " is missing: run with PROCTAPE_UPDATE_GOLDEN=1 to write it";
  EXPECT_EQ(actual, FileBytes(path))
      << "explain output differs from tests/golden/explain/" << name
      << " (PROCTAPE_UPDATE_GOLDEN=1 rewrites it after a deliberate change)";
}

// ---------------------------------------------------------------------------
// Output: escaping, determinism, JSON

// A process whose comm and argv hold what a terminal or a line-based reader
// must not get raw, beneath the root; then the real sleep.
Explained HostileRecording() {
  FakeHost host;
  host.AddProcess(4050, kAppServer, 505000, "x) Z 1 1 1\nx", {"/bin/sleep", "120\n\x1b[2J\"q\\"},
                  SleepEnviron(kToken), kSleepExe);
  return RecordAndExplain(host, FakeHost::TypicalRequest());
}

TEST(ExplainOutput, HostileNamesAreEscapedInEveryLine) {
  Explained x = HostileRecording();
  ExpectFaithful(x);
  v1::Explanation e = Explain(x.snapshot, "host\nile.ptape");
  const std::string text = RenderExplanation(e, false);
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    EXPECT_TRUE(c == '\n' || (u >= 0x20 && u < 0x7f)) << "raw byte " << int{u} << " in\n" << text;
  }
  EXPECT_EQ(text.rfind("host\\x0aile.ptape: 1 recorded check\n", 0), 0u) << text;
  EXPECT_NE(text.find("    pid 4050 \"x) Z 1 1 1\\x0ax\" S, start tick 505000: argv \"/bin/sleep\" "
                      "\"120\\x0a\\x1b[2J\\x22q\\x5c\": not the expected argv\n"),
            std::string::npos)
      << text;
  ExpectGolden("hostile-fixture.txt", text);
  ExpectGolden("hostile-fixture.json", ToJson(e) + "\n");
}

TEST(ExplainOutput, TheSameFileExplainsToTheSameBytesAndJsonRoundTrips) {
  Explained x = HostileRecording();
  v1::Explanation a = Explain(x.snapshot, "a.ptape");
  v1::Explanation b = Explain(x.snapshot, "a.ptape");
  EXPECT_EQ(RenderExplanation(a, false), RenderExplanation(b, false));
  EXPECT_EQ(ToJson(a), ToJson(b));
  v1::Explanation parsed;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(ToJson(a), &parsed).ok());
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(parsed, a));
}

TEST(ExplainOutput, OnlyTheCheckAsked) {
  FakeHost host;
  Explained x = RecordAndExplain(host, FakeHost::TypicalRequest());
  EXPECT_EQ(Explain(x.snapshot, "f", 0).checks_size(), 1);
  EXPECT_EQ(Explain(x.snapshot, "f").checks_size(), 1);
  EXPECT_EQ(Explain(x.snapshot, "f", 1).checks_size(), 0);
  EXPECT_EQ(Explain(x.snapshot, "f", 1).recorded_checks(), 1u);
}

TEST(ExplainOutput, OffsetsToATenthOfAMillisecond) {
  EXPECT_EQ(FormatOffset(0), "+0.0 ms");
  EXPECT_EQ(FormatOffset(100'000'000), "+100.0 ms");
  EXPECT_EQ(FormatOffset(49'999), "+0.0 ms");
  EXPECT_EQ(FormatOffset(50'000), "+0.1 ms");
  EXPECT_EQ(FormatOffset(-1'250'000), "-1.3 ms");
  EXPECT_EQ(FormatOffset(std::numeric_limits<std::int64_t>::min()).substr(0, 1), "-");
}

// ---------------------------------------------------------------------------
// The shipped corpus: every entry of corpus/MANIFEST, text and JSON.

TEST(ExplainCorpus, EveryEntryExplainsToItsGoldenFiles) {
  const std::filesystem::path dir = SourceDir() / "corpus";
  Manifest manifest;
  ManifestError error;
  ASSERT_TRUE(ParseManifest(FileBytes(dir / "MANIFEST"), &manifest, &error)) << error.message;
  ASSERT_FALSE(manifest.entries.empty());
  for (const ManifestEntry& entry : manifest.entries) {
    SCOPED_TRACE(entry.name);
    Snapshot snap;
    FormatError e = ReadSnapshot((dir / entry.file).string(), &snap);
    ASSERT_TRUE(e.ok()) << e.message;
    v1::Explanation x = Explain(snap, entry.file);
    ASSERT_EQ(static_cast<std::size_t>(x.checks_size()), entry.expects.size());
    for (const v1::ExplainCheck& c : x.checks()) {
      EXPECT_EQ(c.replay(), v1::ReplayResult::REPRODUCED);
      if (c.kind() != v1::ExplainCheck::RESOLVE || c.attempts_size() == 0) continue;
      EXPECT_EQ(static_cast<std::uint32_t>(c.attempts_size()), c.verdict().attempts());
      std::uint64_t told = c.fingerprinted() ? 1 : 0;
      for (const auto& a : c.attempts()) told += a.observation_count();
      EXPECT_EQ(told, c.observations());
    }
    ExpectGolden(entry.name + ".txt", RenderExplanation(x, false));
    ExpectGolden(entry.name + ".json", ToJson(x) + "\n");
  }
}

// --all on the longest retry loop of the corpus.
TEST(ExplainCorpus, EveryAttemptOfARetryLoop) {
  const std::filesystem::path dir = SourceDir() / "corpus";
  Manifest manifest;
  ManifestError error;
  ASSERT_TRUE(ParseManifest(FileBytes(dir / "MANIFEST"), &manifest, &error)) << error.message;
  for (const ManifestEntry& entry : manifest.entries) {
    if (entry.name != "never-exec-unshare") continue;
    Snapshot snap;
    ASSERT_TRUE(ReadSnapshot((dir / entry.file).string(), &snap).ok());
    v1::Explanation x = Explain(snap, entry.file);
    ASSERT_EQ(x.checks_size(), 1);
    const std::string all = RenderExplanation(x, true);
    EXPECT_GT(all.size(), RenderExplanation(x, false).size());
    ExpectGolden(entry.name + ".all.txt", all);
    return;
  }
  FAIL() << "corpus/MANIFEST has no entry never-exec-unshare";
}

}  // namespace
}  // namespace proctape
