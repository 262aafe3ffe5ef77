// SPDX-License-Identifier: Apache-2.0
// A capture cut by a bound has its own exit status (docs/cli/commands.md, "A
// capture cut by a bound"): a frame that stopped at --max-processes or
// --max-bytes does not hold every process, so the capture exits 8 with one
// line on standard error saying how many frames were cut and by which
// bound; the file is written all the same, whole and readable. A capture
// that no bound cut exits 0. The host's own processes are the subject: it
// always holds more than 5 of them (this test, its shell, init, kthreadd).
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "format/reader.h"
#include "tests/live/capture_live_fixture.h"
#include "tests/live/files.h"
#include "tests/live/json_document.h"

namespace proctape::live {
namespace {

// What the file at `path` holds: its frames, each cut or not, read back whole.
struct Read {
  bool intact = false;
  std::size_t frames = 0;
  std::size_t cut = 0;
  std::string reason;  // of the last cut frame
};

Read ReadBack(const std::string& path) {
  Read r;
  Snapshot snapshot;
  r.intact = ReadSnapshot(path, &snapshot).ok();
  r.frames = snapshot.frames.size();
  for (const v1::Frame& f : snapshot.frames) {
    if (f.cut_reason().empty()) continue;
    ++r.cut;
    r.reason = f.cut_reason();
  }
  return r;
}

TEST(CaptureCut, AFrameCutByMaxProcessesExitsEightWithItsFileWritten) {
  TempDir dir("capture-cut");
  const std::string out = dir.File("host.ptape");
  const CommandResult r = Proctape({"capture", "--max-processes", "5", "-o", out});
  EXPECT_EQ(r.exit_code, 8) << Explain(r);
  EXPECT_TRUE(OneLine(r.err)) << Explain(r);
  EXPECT_TRUE(Has(r.err, "proctape: 1 frame of 1 cut by a bound (max-processes): " + out +
                             " holds what was read, complete and readable, not every process"))
      << Explain(r);
  EXPECT_TRUE(Has(r.out, "1 frame cut by a bound (max-processes)")) << Explain(r);
  const Read file = ReadBack(out);
  EXPECT_TRUE(file.intact) << "the file is written whole";
  EXPECT_EQ(file.frames, 1u);
  EXPECT_EQ(file.cut, 1u);
  EXPECT_EQ(Proctape({"verify", out}).exit_code, 0) << "verify: the file is intact";
}

TEST(CaptureCut, EveryFrameCutByMaxBytesIsCountedAndExitsEight) {
  TempDir dir("capture-cut");
  const std::string out = dir.File("host.ptape");
  // The least budget: one process's worst case, so the second is cut.
  const CommandResult r =
      Proctape({"capture", "--max-bytes", "155648", "--frames", "2", "--interval", "0", "-o", out});
  EXPECT_EQ(r.exit_code, 8) << Explain(r);
  EXPECT_TRUE(OneLine(r.err)) << Explain(r);
  EXPECT_TRUE(Has(r.err, "2 frames of 2 cut by a bound (max-bytes)")) << Explain(r);
  const Read file = ReadBack(out);
  EXPECT_TRUE(file.intact);
  EXPECT_EQ(file.frames, 2u);
  EXPECT_EQ(file.cut, 2u);
  EXPECT_EQ(file.reason, "max-bytes");
}

TEST(CaptureCut, UnderJsonTheReportCountsTheCutAndTheFailureIsLast) {
  TempDir dir("capture-cut");
  const CommandResult r =
      Proctape({"capture", "--max-processes", "5", "-o", dir.File("host.ptape"), "--json"});
  EXPECT_EQ(r.exit_code, 8) << Explain(r);
  const JsonDocument report = ParseJsonDocument(r.out);
  ASSERT_TRUE(report.ok) << report.why << "\n" << r.out;
  const auto& fields = report.value.struct_value().fields();
  EXPECT_EQ(fields.at("frames_cut").number_value(), 1) << r.out;
  EXPECT_EQ(fields.at("cut_reason").string_value(), "max-processes") << r.out;
  ASSERT_TRUE(OneLine(r.err)) << Explain(r);
  const JsonDocument failure = ParseJsonDocument(r.err);
  ASSERT_TRUE(failure.ok) << r.err;
  EXPECT_EQ(failure.value.struct_value().fields().at("exit_status").number_value(), 8) << r.err;
}

TEST(CaptureCut, ACaptureNoBoundCutExitsZero) {
  TempDir dir("capture-cut");
  const std::string self = std::to_string(::getpid());
  const CommandResult r =
      Proctape({"capture", "--root", self, "--max-processes", "5", "-o", dir.File("me.ptape")});
  EXPECT_EQ(r.exit_code, 0) << Explain(r);
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(ReadBack(dir.File("me.ptape")).cut, 0u);
}

}  // namespace
}  // namespace proctape::live
