// SPDX-License-Identifier: Apache-2.0
// Every view on files of hostile shapes (`docs/format.md`, "The frame
// model's work": no view quadratic in the file's shape): a 60,000-deep
// parent chain and a 60,000-wide star, each with a
// recorded resolution (tests/shapes/shape_file.h, generated here, never
// checked in). Each command runs as the built binary under RLIMIT_AS 512 MiB
// (prlimit) with a timeout that is a hang guard, not a measure (the times
// are in bench/views_shape_bench.sh): each ends cleanly, exit 0, nothing
// killed. Before, `explain` on the chain walked to the root once per process
// (quadratic: minutes), and the JSON outputs took gigabytes (protobuf's
// printer builds the whole document as a tree first).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/live/files.h"
#include "tests/shapes/shape_file.h"

namespace proctape::live {
namespace {

constexpr std::uint32_t kProcesses = 60'000;
constexpr int kHangGuardMs = 60'000;  // explain on the chain took 89 s before

class ShapedFiles : public ::testing::TestWithParam<shapes::Shape> {};

TEST_P(ShapedFiles, EveryViewEndsCleanlyWithinTheLimits) {
  if (const std::string why = AddressLimitUnavailable(); !why.empty()) GTEST_SKIP() << why;
  TempDir dir("shapes");
  const std::string file = dir.path() + "/shape.ptape";
  std::string error;
  ASSERT_TRUE(shapes::WriteShapeFile(file, GetParam(), kProcesses, &error)) << error;
  const std::string out = dir.path() + "/out";
  const std::vector<std::vector<std::string>> commands = {
      {"replay", file},
      {"show", file},
      {"show", file, "--json"},
      {"tree", file},
      {"tree", file, "--json"},
      {"tree", file, "--pid", "61000"},
      {"diff", file, file},
      {"diff", file, "--frames", "0", "1", "--json"},
      {"explain", file},
      {"explain", file, "--json"},
      {"export", "--format", "json", file, "-o", out + ".json"},
      {"export", "--format", "dot", file, "-o", out + ".dot"},
      // Not `export --format proc-dir`: it walks no ancestry (one directory
      // per record, in file order), and its 300,000 files take minutes of a
      // shared disk (bench/views_shape_bench.sh measures it: the
      // filesystem's time, linear).
  };
  ASSERT_NO_FATAL_FAILURE(ExpectEachEndsWithinAddressLimit(commands, 0, kHangGuardMs));
  // The chain is drawn to its bottom: the deepest process, at its depth.
  CommandResult tree = ProctapeWithinAddressLimit({"tree", file, "--json"}, kHangGuardMs);
  EXPECT_NE(tree.out.find(GetParam() == shapes::Shape::kChain ? "\"depth\":60001" : "\"depth\":2"),
            std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(GeneratedShapes, ShapedFiles,
                         ::testing::Values(shapes::Shape::kChain, shapes::Shape::kStar),
                         [](const ::testing::TestParamInfo<shapes::Shape>& p) {
                           return std::string(p.param == shapes::Shape::kChain ? "chain60000"
                                                                               : "star60000");
                         });

}  // namespace
}  // namespace proctape::live
