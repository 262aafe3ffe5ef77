// SPDX-License-Identifier: Apache-2.0
// The readers that stream (`docs/format.md`, "What a command holds"): verify,
// show, tree and export read a file chunk by chunk and keep at most one frame
// (diff two; explain and replay of a recording none), so a file whose whole
// Snapshot is larger than the memory they may use is read all the same. The
// file is written here through the real writer (never checked in,
// tests/shapes/many_frames.h): 24 frames of 3,000 process records with kilobyte
// environs, 1.7 MB on disk. Each command runs under RLIMIT_AS 64 MiB (prlimit),
// the target of BENCHMARKS.md, "Streaming readers". Measured on this file (the
// smallest --as each command passed at, a release build): the streaming
// commands 19-29 MiB; the commands before streaming, which read the whole file
// into a Snapshot first, 138-150 MiB (peak RSS 130-145 MB), and abort under
// this limit. The speed and peak RSS as the file grows are measured in
// bench/stream_rss.sh, not here.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/live/files.h"
#include "tests/shapes/many_frames.h"

namespace proctape::live {
namespace {

constexpr int kFrames = 24;
constexpr int kProcesses = 3'000;
constexpr const char* kLimit = "--as=67108864";  // 64 MiB
constexpr int kHangGuardMs = 120'000;

TEST(StreamingReaders, CommandsReadAFileLargerThanTheirMemoryLimit) {
  if (const std::string why = AddressLimitUnavailable(); !why.empty()) GTEST_SKIP() << why;
  TempDir dir("stream");
  const std::string file = dir.File("big.ptape");
  std::string error;
  ASSERT_TRUE(shapes::WriteManyFrames(file, kFrames, kProcesses, &error)) << error;
  const std::string out = dir.File("out");
  const std::vector<std::vector<std::string>> commands = {
      {"verify", file},
      {"show", file},
      {"show", file, "--json"},
      // A filter selects every record of every frame (all "worker", uid 0):
      // each frame's selection is printed, never all of them kept at once.
      {"show", file, "--comm", "worker"},
      {"show", file, "--uid", "0"},
      {"show", file, "--comm", "worker", "--json"},
      {"tree", file, "--frame", "23", "--json"},
      {"export", "--format", "json", file, "-o", out + ".json"},
      {"export", "--format", "dot", "--frame", "5", file, "-o", out + ".dot"},
      {"export", "--format", "proc-dir", "--frame", "5", file, "-o", out + ".proc"},
      {"diff", file},  // the last complete frame is found by a first read
      {"diff", file, "--frames", "3", "20", "--json"},
      {"diff", file, file, "--frame-b", "7"},
  };
  ASSERT_NO_FATAL_FAILURE(ExpectEachEndsWithinAddressLimit(commands, 0, kHangGuardMs, kLimit));
  // A capture holds no recorded check: said after reading it whole (the
  // count is the file's), not ended by the limit.
  ASSERT_NO_FATAL_FAILURE(ExpectEachEndsWithinAddressLimit(
      {{"explain", file}, {"replay", file}}, 2, kHangGuardMs, kLimit,
      [](const std::string& shown, const CommandResult& r) {
        EXPECT_NE(r.err.find("holds no recorded"), std::string::npos) << shown << "\n" << r.err;
      }));
  // What they read is the whole file: every frame and record counted.
  CommandResult verify = ProctapeWithinAddressLimit({"verify", file}, kHangGuardMs, kLimit);
  EXPECT_NE(verify.out.find("24 frames, 72000 process records"), std::string::npos) << verify.out;
}

}  // namespace
}  // namespace proctape::live
