// SPDX-License-Identifier: Apache-2.0
// `proctape liveness --record FILE` on a real PID-namespace sandbox
// (`docs/format.md` section 5): the recording holds the frames taken before and
// after, one stat read of the sleep, and an ALIVE verdict. Every process a test
// starts is ended by its pid (sandbox.h).
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "tests/live/build_paths.h"
#include "format/reader.h"
#include "tests/live/files.h"
#include "tests/live/record_live_fixture.h"
#include "tests/live/sandbox.h"

namespace proctape {
namespace {

using live::CommandResult;
using live::Describe;
using live::FindRecord;
using live::RecordLiveTest;
using live::StartsWith;

using live::Proctape;

TEST_P(RecordLiveTest, LivenessRecordHoldsOneStatReadAndAnAliveVerdict) {
  const std::string file = dir_.File("liveness.ptape");
  CommandResult r = Proctape({"liveness", "--pid", Pid(), "--start", Start(), "--record", file});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_TRUE(StartsWith(r.out, "ALIVE")) << Describe(r);

  Snapshot snap;
  FormatError err = ReadSnapshot(file, &snap);
  ASSERT_TRUE(err.ok()) << err.message;
  EXPECT_EQ(snap.header.redaction().environ(), v1::RedactionPolicy::ENVIRON_REDACTED);
  EXPECT_EQ(snap.header.redaction().kept_entries_size(), 0);
  ASSERT_EQ(snap.frames.size(), 2u);
  EXPECT_NE(FindRecord(snap.frames[0], sandbox_->sleep_pid()), nullptr);
  EXPECT_NE(FindRecord(snap.frames[1], sandbox_->sleep_pid()), nullptr);
  ASSERT_EQ(snap.resolutions.size(), 1u);
  const v1::Resolution& res = snap.resolutions[0];
  ASSERT_TRUE(res.has_liveness());
  EXPECT_EQ(res.liveness().pid(), sandbox_->sleep_pid());
  EXPECT_EQ(res.liveness().start_ticks(), sandbox_->sleep_start());
  ASSERT_TRUE(res.has_liveness_verdict());
  EXPECT_EQ(res.liveness_verdict().status(), v1::LivenessVerdict::ALIVE)
      << res.liveness_verdict().detail();
  EXPECT_EQ(res.first_observation(), 0u);
  EXPECT_EQ(res.observation_count(), 1u);
  ASSERT_EQ(snap.observations.size(), 1u);
  const v1::Observation& o = snap.observations[0];
  EXPECT_EQ(o.index(), 0u);
  ASSERT_TRUE(o.has_read_file());
  EXPECT_EQ(o.read_file().pid(), sandbox_->sleep_pid());
  EXPECT_EQ(o.read_file().file(), v1::PROC_FILE_STAT);
  EXPECT_EQ(o.read_file().result().err(), 0);
  EXPECT_EQ(o.read_file().result().bound(), 4096u);
  EXPECT_TRUE(StartsWith(o.read_file().result().data(), Pid() + " (sleep) S "))
      << o.read_file().result().data();
  EXPECT_GE(o.mono_ns(), res.start_mono_ns());
  EXPECT_LE(o.mono_ns(), res.end_mono_ns());
  EXPECT_LE(snap.frames[0].scan_end_mono_ns(), res.start_mono_ns());
  EXPECT_GE(snap.frames[1].scan_start_mono_ns(), res.end_mono_ns());
}
}  // namespace
}  // namespace proctape
