// SPDX-License-Identifier: Apache-2.0
// Every command on the hostile files of tests/data/hostile/ (`docs/format.md`
// section 7), run by the built binary under RLIMIT_AS 512 MiB (prlimit sets
// it in the child before exec) and a timeout: each ends with one line and the
// status of its damage (16, too-large), never a crash, a hang, an
// allocation failure, or success with data lost (an export never leaves an
// output behind).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/live/files.h"

namespace proctape::live {
namespace {

std::string Hostile(const std::string& name) {
  return std::string(PROCTAPE_SOURCE_DIR) + "/tests/data/hostile/" + name;
}

class HostileFiles : public ::testing::TestWithParam<std::string> {};

TEST_P(HostileFiles, EveryCommandEndsWithTooLargeWithinTheLimits) {
  if (const std::string why = AddressLimitUnavailable(); !why.empty()) GTEST_SKIP() << why;
  TempDir dir("hostile");
  const std::string file = Hostile(GetParam());
  const std::string out = dir.path() + "/out";
  const std::vector<std::vector<std::string>> commands = {
      {"verify", file},
      {"show", file},
      {"show", file, "--json"},
      {"tree", file},
      {"diff", file, file},
      {"explain", file},
      {"export", "--format", "json", file, "-o", out + ".json"},
      {"export", "--format", "dot", file, "-o", out + ".dot"},
      {"export", "--format", "proc-dir", file, "-o", out + ".d"},
      {"replay", file},
      {"corpus", "add", file, "--corpus", dir.path() + "/corpus"},
  };
  // Too large (16), said in one line that names the limit.
  ASSERT_NO_FATAL_FAILURE(ExpectEachEndsWithinAddressLimit(
      commands, 16, 120'000, kAddressSpaceLimit,
      [](const std::string& shown, const CommandResult& r) {
        EXPECT_NE(r.err.find("(the limit)"), std::string::npos) << shown << "\n" << r.err;
        EXPECT_TRUE(OneLine(r.err)) << shown << ": one line\n" << r.err;
      }));
  for (const char* ext : {".json", ".dot", ".d"}) {
    EXPECT_FALSE(std::filesystem::exists(out + ext)) << out << ext << " was left";
  }
}

INSTANTIATE_TEST_SUITE_P(CommittedInputs, HostileFiles,
                         ::testing::Values("blob-references.ptape", "empty-records.ptape"),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           std::string n = p.param.substr(0, p.param.find('.'));
                           for (char& c : n) c = c == '-' ? '_' : c;
                           return n;
                         });

}  // namespace
}  // namespace proctape::live
