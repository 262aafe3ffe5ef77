// SPDX-License-Identifier: Apache-2.0
// What-if replays of a real recording that need bytes it does not have
// (docs/replay.md, "What a replay cannot answer"): a recording made with the
// wrong token stores the sandbox's real token entry redacted, so replaying it
// with the right token is DIVERGED with the reason, in the tape and the frame
// model alike, never REPRODUCED from the stars; and an option that restates
// the recorded request changes nothing. RecordLiveTest's sandboxes
// (record_live_fixture.h), each process ended by its pid.
#include <gtest/gtest.h>

#include <string>

#include "replay/unanswered.h"
#include "tests/live/files.h"
#include "tests/live/record_live_fixture.h"

namespace proctape::live {
namespace {

TEST_P(RecordLiveTest, TheRightTokenOnAWrongTokenRecordingDivergesInBothModels) {
  const std::string file = dir_.File("wrong.ptape");
  CommandResult wrong =
      Proctape({"resolve", "--root", Root(), "--token", "not-" + sandbox_->token(), "--deadline-ms",
                "300", "--record", file});
  ASSERT_EQ(wrong.exit_code, 5) << Describe(wrong);
  ASSERT_TRUE(StartsWith(wrong.out, "TOKEN_MISMATCH")) << Describe(wrong);
  const std::string why = UnansweredWhy(v1::UNANSWERED_REDACTED);

  CommandResult tape = Proctape({"replay", file, "--token", sandbox_->token()});
  EXPECT_EQ(tape.exit_code, 21) << Describe(tape);
  EXPECT_TRUE(StartsWith(tape.out, "resolution 0 (request changed): DIVERGED at observation "))
      << Describe(tape);
  EXPECT_NE(tape.out.find("recorded ReadFile(pid " + Pid() +
                          ", environ, bound 65536) with its values redacted"),
            std::string::npos)
      << Describe(tape);
  EXPECT_NE(tape.out.find("  " + why + "\n"), std::string::npos) << Describe(tape);
  EXPECT_EQ(tape.out.find("REPRODUCED"), std::string::npos) << Describe(tape);

  CommandResult json = Proctape({"replay", file, "--token", sandbox_->token(), "--json"});
  EXPECT_EQ(json.exit_code, 21) << Describe(json);
  EXPECT_NE(json.out.find("\"unanswered\":\"UNANSWERED_REDACTED\""), std::string::npos)
      << Describe(json);

  CommandResult frames =
      Proctape({"replay", file, "--model", "frames", "--token", sandbox_->token()});
  EXPECT_EQ(frames.exit_code, 21) << Describe(frames);
  EXPECT_TRUE(StartsWith(frames.out,
                         "resolution 0 (request changed) on the frames: DIVERGED: "
                         "the frames cannot answer ReadFile(pid " +
                             Pid() + ", environ, bound 65536) ("))
      << Describe(frames);
  EXPECT_NE(frames.out.find(why), std::string::npos) << Describe(frames);
  // No verdict from the stars: the only TOKEN_MISMATCH said is the recorded one.
  const std::string head = frames.out.substr(0, frames.out.find('\n'));
  EXPECT_EQ(head.find("TOKEN_MISMATCH"), std::string::npos) << Describe(frames);

  // The recorded root and token, restated: the recorded request.
  CommandResult same =
      Proctape({"replay", file, "--root", Root(), "--token", "not-" + sandbox_->token()});
  EXPECT_EQ(same.exit_code, 0) << Describe(same);
  EXPECT_TRUE(StartsWith(same.out, "resolution 0: REPRODUCED TOKEN_MISMATCH")) << Describe(same);
}

}  // namespace
}  // namespace proctape::live
