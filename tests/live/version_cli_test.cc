// SPDX-License-Identifier: Apache-2.0
// `proctape --version` (cli/help.h): the version, the format version this
// binary writes and the versions its reader accepts, and whether it is the
// portable build, and its license (an SPDX identifier), on one line; --json gives the same as one document.
// Expected values come from the constants the writer and the reader use.
#include <gtest/gtest.h>

#include <string>

#include "format/file_format.h"
#include "tests/live/files.h"
#include "tests/live/json_document.h"

namespace proctape {
namespace {

using live::Describe;
using live::Proctape;

#ifdef PROCTAPE_PORTABLE
constexpr bool kPortableBuild = true;
#else
constexpr bool kPortableBuild = false;
#endif

TEST(VersionCli, VersionIsOneLineWithTheFormatWrittenAndTheFormatsRead) {
  const auto r = Proctape({"--version"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  const std::string expected =
      std::string("proctape ") + PROCTAPE_VERSION + " (format " + std::to_string(kFormatVersion) +
      ", reads " + std::to_string(kOldestFormatVersion) + ".." + std::to_string(kFormatVersion) +
      (kPortableBuild ? ", portable" : "") + ") Apache-2.0\n";
  EXPECT_EQ(r.out, expected);
  EXPECT_EQ(r.err, "");
}

TEST(VersionCli, ShortOptionIsTheSameAsVersion) {
  const auto long_form = Proctape({"--version"});
  const auto short_form = Proctape({"-V"});
  ASSERT_EQ(short_form.exit_code, 0) << Describe(short_form);
  EXPECT_EQ(short_form.out, long_form.out);
}

TEST(VersionCli, VersionJsonIsOneDocumentWithTheSameFacts) {
  const auto r = Proctape({"--version", "--json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  const auto doc = live::ParseJsonDocument(r.out);
  ASSERT_TRUE(doc.ok) << doc.why << "\n" << r.out;
  const auto& top = doc.value.struct_value().fields();
  EXPECT_EQ(top.at("version").string_value(), PROCTAPE_VERSION);
  EXPECT_EQ(top.at("portable").bool_value(), kPortableBuild);
  EXPECT_EQ(top.at("license").string_value(), "Apache-2.0");
  const auto& format = top.at("format").struct_value().fields();
  EXPECT_EQ(format.at("writes").number_value(), kFormatVersion);
  EXPECT_EQ(format.at("reads_oldest").number_value(), kOldestFormatVersion);
  EXPECT_EQ(format.at("reads_newest").number_value(), kFormatVersion);
}

TEST(VersionCli, AnythingElseAfterVersionIsAUsageErrorOnOneLine) {
  const auto r = Proctape({"--version", "extra"});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "proctape: --version takes only --json, not 'extra' (see 'proctape --help')\n");
}

}  // namespace
}  // namespace proctape
