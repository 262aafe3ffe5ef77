// SPDX-License-Identifier: Apache-2.0
// `proctape explain` (`docs/explain.md`, "The text"): the request of a recorded
// check and the root's fingerprint: a fingerprint read on the tape comes first
// and is told as late, one taken before the turn is told as such, and an
// invalid request makes no call.
#include <gtest/gtest.h>

#include <cerrno>
#include <string>

#include "analyze/explain.h"
#include "capture/fingerprint.h"
#include "tests/unit/analyze_explain_fixture.h"
#include "tests/unit/fake_host.h"

namespace proctape {
namespace {

using namespace test;  // the typical host: FakeHost, its pids, start times, tokens

TEST(ExplainFingerprint, TheRootsFingerprintReadComesFirst) {
  {
    FakeHost host;
    RecordOptions options;
    options.fingerprint = true;
    Explained x = RecordAndExplain(host, FakeHost::TypicalRequest(), options);
    ExpectFaithful(x);
    EXPECT_TRUE(x.check.fingerprinted());
    EXPECT_TRUE(x.check.fingerprint().parsed());
    EXPECT_EQ(x.check.fingerprint().start_ticks(), kAppServerStart);
    EXPECT_NE(Text(x.check).find("  fingerprint: /proc/4000/stat: \"codex\" S, parent 3900, "
                                 "start tick 500000\n"),
              std::string::npos)
        << Text(x.check);
  }
  {
    FakeHost host;
    host.Remove(kAppServer);
    RecordOptions options;
    options.fingerprint = true;
    Explained x = RecordAndExplain(host, FakeHost::TypicalRequest(), options);
    EXPECT_EQ(x.check.replay(), v1::ReplayResult::REPRODUCED);
    EXPECT_EQ(x.check.verdict().status(), v1::Verdict::MISSING_ROOT);
    EXPECT_EQ(x.check.attempts_size(), 0);
    EXPECT_EQ(x.check.fingerprint().err(), ENOENT);
    EXPECT_EQ(x.check.ended_by(), "the root's fingerprint failed: no attempt was made");
  }
}

// How the root came to be known is told in the request line: late, on the
// tape (a restarted root cannot be detected), or before the turn.
TEST(ExplainFingerprint, TheRequestSaysHowTheRootWasFingerprinted) {
  {
    FakeHost host;
    RecordOptions options;
    options.fingerprint = true;
    Explained x = RecordAndExplain(host, FakeHost::TypicalRequest(), options);
    EXPECT_NE(Text(x.check).find("  request: root pid 4000, start tick 500000 (fingerprinted "
                                 "late, on the tape: a restarted root cannot be detected); argv"),
              std::string::npos)
        << Text(x.check);
  }
  {
    FakeHost host;
    TakenFingerprint taken = TakeFingerprint(host, kAppServer, "/bin/sleep", "b00t\n");
    ASSERT_TRUE(taken.ok());
    RecordOptions options;
    options.before_turn = taken.fingerprint;
    Explained x = RecordAndExplain(host, FakeHost::TypicalRequest(), options);
    ExpectFaithful(x);
    EXPECT_FALSE(x.check.fingerprinted());
    EXPECT_TRUE(x.check.resolve().has_fingerprint());
    const std::string text = Text(x.check);
    EXPECT_NE(text.find("  request: root pid 4000, start tick 500000 (fingerprinted before the "
                        "turn); argv"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("  fingerprint: taken before the turn: root 4000 \"codex\", start tick "
                        "500000; exe \"/bin/sleep\" 2051:1311\n"),
              std::string::npos)
        << text;
  }
  {
    FakeHost host;
    Explained x = RecordAndExplain(host, FakeHost::TypicalRequest());
    EXPECT_EQ(Text(x.check).find("fingerprint"), std::string::npos) << Text(x.check);
  }
}

TEST(ExplainRequest, AnInvalidRequestMakesNoCall) {
  FakeHost host;
  Request request = FakeHost::TypicalRequest();
  request.token = "";
  Explained x = RecordAndExplain(host, request);
  EXPECT_EQ(x.check.verdict().status(), v1::Verdict::INVALID_REQUEST);
  EXPECT_EQ(x.check.attempts_size(), 0);
  EXPECT_EQ(x.check.ended_by(), "the request is invalid: the resolver made no call");
}

}  // namespace
}  // namespace proctape
