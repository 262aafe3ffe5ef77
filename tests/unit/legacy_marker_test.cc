// SPDX-License-Identifier: Apache-2.0
// The legacy strategy (the marker taken as a host pid, probed with kill(0))
// beside the resolver, on the same fake host.
#include "core/legacy_marker.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <map>
#include <string>
#include <vector>

#include "core/proc_parse.h"
#include "core/resolver.h"
#include "tests/unit/fake_host.h"

namespace proctape {
namespace {

using namespace test;  // the typical host: FakeHost, its pids, start times, tokens

// What kill(pid, 0) would answer on the fake host: 0 for our own processes,
// EPERM for another user's, ESRCH for a pid nobody holds.
class FakeProbe : public SignalProbe {
 public:
  std::map<std::int64_t, int> answers;
  std::vector<std::int64_t> probed;
  int Kill0(std::int64_t pid) override {
    probed.push_back(pid);
    auto it = answers.find(pid);
    return it == answers.end() ? ESRCH : it->second;
  }
};

// `docs/resolver.md`, "The legacy check": the marker (namespace pid 3) taken
// as a host pid names an unrelated host process, and the legacy kill(pid, 0)
// fails with EPERM. On the
// same host the resolver finds the sleep's real host pid.
TEST(LegacyMarker, NamespacePid3MakesHostKill0FailWithEperm) {
  FakeHost host;
  // The marker the sandboxed shell wrote: its own pid in the sandbox's
  // namespace, which is the sleep's namespace pid after exec.
  std::string marker = "3\n";
  auto nspid = StatusValue(host.Find(kSleep)->files[ProcFile::kStatus].data, "NSpid");
  ASSERT_TRUE(nspid.has_value());
  EXPECT_EQ(*nspid, "4103\t3");

  FakeProbe probe;
  probe.answers = {{kHostPid3, EPERM}, {kSleep, 0}};
  LegacyResult legacy = LegacyMarkerCheck(marker, probe);
  EXPECT_EQ(legacy.outcome, LegacyOutcome::kError) << legacy.detail;
  EXPECT_EQ(legacy.pid, kHostPid3);
  EXPECT_EQ(legacy.err, EPERM);
  EXPECT_NE(legacy.detail.find("EPERM"), std::string::npos) << legacy.detail;
  EXPECT_EQ(probe.probed, (std::vector<std::int64_t>{kHostPid3}));

  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  ASSERT_EQ(v.status, Status::kResolved) << v.detail;
  EXPECT_EQ(v.pid, kSleep);
  EXPECT_NE(v.pid, legacy.pid);
}

// The legacy check keeps kill(0) semantics for the marker pid (as Darwin
// still does): success is alive, ESRCH is dead, anything else throws.
TEST(LegacyMarker, MarkerIsProbedAsHostPidWithKill0Semantics) {
  FakeProbe probe;
  probe.answers = {{8155, 0}, {8156, EINVAL}};
  LegacyResult alive = LegacyMarkerCheck("8155\n", probe);
  EXPECT_EQ(alive.outcome, LegacyOutcome::kAlive);
  EXPECT_EQ(alive.pid, 8155);
  EXPECT_EQ(alive.err, 0);

  LegacyResult dead = LegacyMarkerCheck("8157", probe);
  EXPECT_EQ(dead.outcome, LegacyOutcome::kDead);
  EXPECT_EQ(dead.err, ESRCH);

  LegacyResult error = LegacyMarkerCheck("8156", probe);
  EXPECT_EQ(error.outcome, LegacyOutcome::kError);
  EXPECT_EQ(error.err, EINVAL);
  EXPECT_EQ(probe.probed, (std::vector<std::int64_t>{8155, 8157, 8156}));
}

// A marker that holds no pid is reported as such and probes nothing: the
// legacy check never signals a pid it did not read.
TEST(LegacyMarker, InvalidMarkerIsNeverProbed) {
  for (const std::string& marker :
       std::vector<std::string>{"", "\n", "abc", "0", "-3", " 3", "3 ", "03", "3\n\n", "3\r\n",
                                "2147483648", std::string("3\0", 2)}) {
    FakeProbe probe;
    LegacyResult r = LegacyMarkerCheck(marker, probe);
    EXPECT_EQ(r.outcome, LegacyOutcome::kInvalidMarker) << EscapeBytes(marker);
    EXPECT_TRUE(probe.probed.empty()) << EscapeBytes(marker);
  }
}

}  // namespace
}  // namespace proctape
