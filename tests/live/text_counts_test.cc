// SPDX-License-Identifier: Apache-2.0
// Counts in the text output (`docs/cli/views.md`, "Counts are said right"): a
// count of one takes the singular ("1 attempt", "1 frame", "1 entry"), and a
// total summed over the frames says it counts process records ("2 frames, 2
// process records"), from the built binary. Every process a test starts is
// ended by its pid.
#include <gtest/gtest.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/live/build_paths.h"
#include "tests/live/files.h"
#include "tests/live/sandbox.h"

namespace proctape {
namespace {

using live::CommandResult;
using live::Describe;
using live::Has;
using live::Proctape;
using live::TempDir;

const std::string kSource = PROCTAPE_SOURCE_DIR;
const std::string kPlainUnshare = kSource + "/corpus/f46add6575430d19.ptape";
const std::string kAlive = kSource + "/tests/data/replay/alive.ptape";

TEST(TextCounts, VerifySumsTheRecordsOfTheFramesAndSaysOneResolution) {
  CommandResult r = Proctape({"verify", kPlainUnshare});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_TRUE(Has(r.out,
                  ": intact: 6 chunks, 2 frames, 10 process records, 25 observations, "
                  "1 resolution, environ redacted\n"))
      << r.out;
}

TEST(TextCounts, ReplayAndExplainOfOneObservationSayObservation) {
  CommandResult replay = Proctape({"replay", kAlive});
  ASSERT_EQ(replay.exit_code, 0) << Describe(replay);
  EXPECT_TRUE(Has(replay.out, " (1 of 1 observation)\n")) << replay.out;
  CommandResult explain = Proctape({"explain", kAlive});
  ASSERT_EQ(explain.exit_code, 0) << Describe(explain);
  EXPECT_TRUE(Has(explain.out, "  replay: REPRODUCED (1 of 1 observation)\n")) << explain.out;
}

TEST(TextCounts, CorpusCheckOfOneEntrySaysOneEntry) {
  CommandResult r = Proctape({"corpus", "check", kSource + "/corpus", "--entry", "plain-unshare"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_TRUE(Has(r.out, ": 1 entry, 1 reproduced, 0 drifted, 0 unreadable (")) << r.out;
}

TEST(TextCounts, AResolutionOfOneAttemptSaysOneAttempt) {
  // A deadline of 0 allows the one attempt: DEADLINE after it.
  CommandResult r = Proctape({"resolve", "--root", std::to_string(::getpid()), "--token",
                              "7f3c9e0b1a2d", "--deadline-ms", "0"});
  EXPECT_EQ(r.exit_code, 8) << Describe(r);
  EXPECT_TRUE(Has(r.out, " (1 attempt, ")) << r.out;
}

TEST(TextCounts, ACaptureOfOneProcessSaysOneRecordInEveryView) {
  std::string error;
  std::unique_ptr<live::Child> sleep = live::Child::Start({"/bin/sleep", "120"}, &error);
  ASSERT_NE(sleep, nullptr) << error;
  ASSERT_TRUE(sleep->WaitForCmdline(std::string("/bin/sleep") + '\0' + "120" + '\0', 5000));
  const std::string pid = std::to_string(sleep->pid());
  TempDir dir("counts");
  const std::string one = dir.File("one.ptape");
  const std::string two = dir.File("two.ptape");

  CommandResult capture = Proctape({"capture", "--root", pid, "-o", one});
  ASSERT_EQ(capture.exit_code, 0) << Describe(capture);
  EXPECT_TRUE(Has(capture.out, ": 1 frame, 1 process record, ")) << capture.out;
  capture = Proctape({"capture", "--root", pid, "--frames", "2", "--interval", "0", "-o", two});
  ASSERT_EQ(capture.exit_code, 0) << Describe(capture);
  EXPECT_TRUE(Has(capture.out, ": 2 frames, 2 process records, ")) << capture.out;

  CommandResult tree = Proctape({"tree", one});
  ASSERT_EQ(tree.exit_code, 0) << Describe(tree);
  EXPECT_TRUE(Has(tree.out, ": frame 0 of 1, 1 process\n")) << tree.out;
  CommandResult diff = Proctape({"diff", two});
  ASSERT_EQ(diff.exit_code, 0) << Describe(diff);
  EXPECT_TRUE(Has(diff.out, ": frame 0 -> frame 1, 1 -> 1 process\n")) << diff.out;
  CommandResult show = Proctape({"show", two});
  ASSERT_EQ(show.exit_code, 0) << Describe(show);
  EXPECT_TRUE(Has(show.out, "\nframes: 2 (2 process records)\n  frame 0: 1 process, ")) << show.out;
  CommandResult exported =
      Proctape({"export", one, "--format", "proc-dir", "--out", dir.File("proc")});
  ASSERT_EQ(exported.exit_code, 0) << Describe(exported);
  EXPECT_TRUE(Has(exported.out, ", 1 process, ")) << exported.out;
}

}  // namespace
}  // namespace proctape
