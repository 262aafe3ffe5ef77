// SPDX-License-Identifier: Apache-2.0
// What the tests of `proctape explain` (analyze_explain_*_test.cc) share: a
// check run on the in-memory host of fake_host.h, recorded through the real
// recorder into a real file and read back (replay_fixture.h), then explained;
// what holds for every explained resolution (ExpectFaithful); the text of one
// explained check; and a sleep that exits between its cmdline and environ
// reads.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>

#include "analyze/explain.h"
#include "format/reader.h"
#include "tests/unit/fake_host.h"
#include "tests/unit/replay_fixture.h"

namespace proctape::test {

// In every attempt, the sleep's environ reads empty and `exit` follows it
// (the sleep exited between its cmdline and environ reads); a fresh one is
// back before the next attempt.
inline void ExitAtEnviron(FakeHost& host, std::function<void(FakeHost&)> exit) {
  host.SetFile(kSleep, ProcFile::kEnviron, "");
  host.after_call = [exit = std::move(exit)](FakeHost& h, const Call& c) {
    if (c.kind == "read" && c.pid == kSleep && c.file == ProcFile::kEnviron) exit(h);
  };
  host.on_sleep = [](MemoryEvidence& ev) {
    ev.AddProcess(kSleep, kSandboxShell, kSleepStart, "sleep", {"/bin/sleep", "120"}, {},
                  kSleepExe);
  };
}

struct Explained {
  Recorded recorded;
  Snapshot snapshot;
  v1::ExplainCheck check;
};

// Records Resolve(host, request) into a real file, reads it back, explains it.
inline Explained RecordAndExplain(FakeHost& host, const Request& request,
                                  const RecordOptions& options = {}) {
  Explained out;
  ReplayTempDir dir;
  EXPECT_TRUE(dir.ok());
  const std::string path = dir.File("check.ptape");
  out.recorded = RecordResolution(host, request, path, options);
  EXPECT_TRUE(out.recorded.ok) << out.recorded.error;
  EXPECT_TRUE(ReadSnapshot(path, &out.snapshot).ok());
  if (out.snapshot.resolutions.size() == 1) out.check = ExplainRecordedCheck(out.snapshot, 0);
  return out;
}

inline Explained LivenessExplained(FakeHost& host, std::int64_t pid, std::uint64_t start) {
  Explained out;
  ReplayTempDir dir;
  EXPECT_TRUE(dir.ok());
  const std::string path = dir.File("liveness.ptape");
  out.recorded = RecordLivenessCheck(host, pid, start, path);
  EXPECT_TRUE(out.recorded.ok) << out.recorded.error;
  EXPECT_TRUE(ReadSnapshot(path, &out.snapshot).ok());
  if (out.snapshot.resolutions.size() == 1) out.check = ExplainRecordedCheck(out.snapshot, 0);
  return out;
}

inline const v1::ExplainCandidate* FindCandidate(const v1::ExplainAttempt& a, std::int64_t pid) {
  for (const auto& k : a.candidates()) {
    if (k.pid() == pid) return &k;
  }
  return nullptr;
}

inline std::string Text(const v1::ExplainCheck& check) {
  v1::Explanation e;
  e.set_file("check.ptape");
  e.set_recorded_checks(1);
  *e.add_checks() = check;
  return RenderExplanation(e, false);
}

// What holds for every explained resolution, whatever it decided: the
// explanation tells the resolver's own run, call for call.
inline void ExpectFaithful(const Explained& x) {
  const v1::ExplainCheck& c = x.check;
  EXPECT_EQ(c.kind(), v1::ExplainCheck::RESOLVE);
  EXPECT_EQ(c.replay(), v1::ReplayResult::REPRODUCED) << Text(c);
  EXPECT_EQ(static_cast<int>(c.verdict().status()), static_cast<int>(x.recorded.verdict.status));
  EXPECT_EQ(c.verdict().attempts(), x.recorded.verdict.attempts);
  // One attempt told per attempt the resolver counted.
  EXPECT_EQ(static_cast<std::uint32_t>(c.attempts_size()), x.recorded.verdict.attempts) << Text(c);
  // Every call of the tape belongs to the fingerprint or to one attempt.
  std::uint64_t told = c.fingerprinted() ? 1 : 0;
  for (const auto& a : c.attempts()) {
    EXPECT_EQ(a.first_observation(), told) << "attempt " << a.index();
    told += a.observation_count();
  }
  if (c.attempts_size() > 0) {
    EXPECT_EQ(told, x.recorded.observations);
  }
  // Retries until the last attempt; every candidate has a reason.
  for (int i = 0; i < c.attempts_size(); ++i) {
    const auto& a = c.attempts(i);
    EXPECT_EQ(a.index(), static_cast<std::uint32_t>(i + 1));
    if (i + 1 < c.attempts_size()) {
      EXPECT_EQ(a.outcome(), v1::ExplainAttempt::RETRY);
    }
    for (const auto& k : a.candidates()) {
      EXPECT_NE(k.why(), v1::ExplainCandidate::WHY_UNSPECIFIED) << k.pid();
      EXPECT_FALSE(k.detail().empty()) << k.pid();
    }
  }
  EXPECT_FALSE(c.ended_by().empty());
}

}  // namespace proctape::test
