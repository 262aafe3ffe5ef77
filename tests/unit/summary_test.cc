// SPDX-License-Identifier: Apache-2.0
// proto/summary.h: the stored messages as the views print them, by the JSON
// rule of docs/cli/json.md: counts and pids are numbers, 64-bit identities
// and instants strings, host bytes escaped text, and nothing a hand-made file
// holds makes a conversion undefined.
#include "proto/summary.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "proto/convert.h"

namespace proctape {
namespace {

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(Summary, AVerdictPrintsCountsAndPidsAsNumbersAndItsStartTickAsAString) {
  v1::Verdict v;
  v.set_status(v1::Verdict::RESOLVED);
  v.set_pid(4103);
  v.set_start_ticks(510003);
  v.set_attempts(1);
  v.set_bytes_read(2379);
  v.add_matches(4103);
  const std::string json = ToJson(ToSummary(v));
  EXPECT_TRUE(Has(json, "\"pid\":4103,")) << json;
  EXPECT_TRUE(Has(json, "\"attempts\":1,")) << json;
  EXPECT_TRUE(Has(json, "\"bytes_read\":2379,")) << json;
  EXPECT_TRUE(Has(json, "\"matches\":[4103]")) << json;
  EXPECT_TRUE(Has(json, "\"start_ticks\":\"510003\"")) << json;
}

TEST(Summary, AFailureHasNoPidAsInTheStoredVerdict) {
  v1::Verdict v;
  v.set_status(v1::Verdict::NO_MATCH);
  v.set_subject_pid(7);
  const v1::VerdictSummary s = ToSummary(v);
  EXPECT_FALSE(s.has_pid());
  EXPECT_FALSE(s.has_start_ticks());
  EXPECT_EQ(s.subject_pid(), 7);
}

TEST(Summary, HostBytesAreEscapedTextNeverBase64) {
  v1::LivenessVerdict l;
  l.set_state(std::string(1, '\0'));
  EXPECT_EQ(ToSummary(l).state(), "\\x00");
  v1::Verdict v;
  v.set_evidence("PROCTAPE_TOKEN=a\nb\\");
  EXPECT_EQ(ToSummary(v).evidence(), "PROCTAPE_TOKEN=a\\x0ab\\x5c");
  v1::FileIdentity id;
  id.set_link_text("/proc/1/exe\xff");
  EXPECT_EQ(ToSummary(id).link_text(), "/proc/1/exe\\xff");
}

TEST(Summary, ARequestGivesTheTokensLengthNeverTheToken) {
  v1::ResolutionRequest q;
  q.set_token("7f3c9e0b1a2d");
  q.set_token_var("PROCTAPE_TOKEN");
  q.add_argv("/bin/sleep");
  const v1::RequestSummary s = ToSummary(q, "");
  EXPECT_EQ(s.token_bytes(), 12u);
  EXPECT_FALSE(Has(ToJson(s), "7f3c9e0b1a2d")) << ToJson(s);
}

TEST(Summary, AFingerprintSaysWhetherItIsOfTheFilesBoot) {
  v1::RootFingerprint f;
  f.set_boot_id("b00t\n");
  EXPECT_TRUE(ToSummary(f, "b00t\n").boot_of_file());
  EXPECT_FALSE(ToSummary(f, "other\n").boot_of_file());
  EXPECT_EQ(ToSummary(f, "b00t\n").boot_id(), "b00t");
}

TEST(Summary, ValuesBeyondTheirViewTypeAreHeldNotWrapped) {
  EXPECT_EQ(Count32(std::uint64_t{1} << 40), UINT32_MAX);
  EXPECT_EQ(Count32(7), 7u);
  EXPECT_EQ(Int32(std::int64_t{1} << 40), kNotA32BitValue);
  EXPECT_EQ(Int32(-1), -1);
  EXPECT_EQ(Int32(2147483647), 2147483647);
  // A double back to an integer for the text: exact, or held to the range.
  EXPECT_EQ(AsInt64(static_cast<double>(INT64_MAX)), INT64_MAX);
  EXPECT_EQ(AsInt64(-1e300), INT64_MIN);
  EXPECT_EQ(AsInt64(5000000000.0), 5000000000);
  EXPECT_EQ(AsUint64(1e300), UINT64_MAX);
  EXPECT_EQ(AsUint64(-5), 0u);
  EXPECT_EQ(IntegerText(268435456.0), "268435456");
}

}  // namespace
}  // namespace proctape
