// SPDX-License-Identifier: Apache-2.0
// `proctape explain` (`docs/explain.md`, "What the tape does not hold"): a
// replay that no longer reproduces (a call removed from the tape) says where it
// diverged, tells what the tape answered up to there, and tells no verdict.
#include <gtest/gtest.h>

#include <cstddef>
#include <string>

#include "analyze/explain.h"
#include "format/reader.h"
#include "tests/unit/analyze_explain_fixture.h"
#include "tests/unit/fake_host.h"
#include "tests/unit/replay_fixture.h"

namespace proctape {
namespace {

using namespace test;  // the typical host: FakeHost, its pids, start times, tokens

TEST(ExplainReplay, ATapeWithACallRemovedSaysWhereItDiverged) {
  FakeHost host;
  ReplayTempDir dir;
  ASSERT_TRUE(dir.ok());
  const std::string path = dir.File("edited.ptape");
  Recorded rec = RecordResolution(host, FakeHost::TypicalRequest(), path);
  ASSERT_TRUE(rec.ok);
  Snapshot snap;
  ASSERT_TRUE(ReadSnapshot(path, &snap).ok());
  // Remove the environ read of the sleep: the resolver asks for it there.
  std::size_t environ_at = 0;
  for (std::size_t i = 0; i < snap.observations.size(); ++i) {
    const auto& o = snap.observations[i];
    if (o.has_read_file() && o.read_file().file() == v1::PROC_FILE_ENVIRON) environ_at = i;
  }
  ASSERT_GT(environ_at, 0u);
  RemoveObservation(&snap, environ_at);
  v1::ExplainCheck c = ExplainRecordedCheck(snap, 0);
  EXPECT_EQ(c.replay(), v1::ReplayResult::DIVERGED);
  EXPECT_EQ(c.replay_detail().rfind("at observation " + std::to_string(environ_at) + " ", 0), 0u)
      << c.replay_detail();
  ASSERT_EQ(c.attempts_size(), 1);
  // What the tape answered is told; nothing after the divergence.
  EXPECT_EQ(c.attempts(0).first_observation() + c.attempts(0).observation_count(), environ_at);
  const v1::ExplainCandidate* sleep = FindCandidate(c.attempts(0), kSleep);
  ASSERT_NE(sleep, nullptr);
  EXPECT_FALSE(sleep->environ_read());
  // Past the divergence the tape answered nothing: no verdict is told.
  EXPECT_FALSE(c.has_verdict()) << c.verdict().DebugString();
  std::string text = Text(c);
  EXPECT_NE(text.find("  verdict: none: the tape cannot answer a call the resolver made\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("errno 5"), std::string::npos) << text;
}

}  // namespace
}  // namespace proctape
