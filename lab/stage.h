// SPDX-License-Identifier: Apache-2.0
// The lab's inside, shared by the runner (lab.cc) and the scenarios
// (scenarios.cc): one scenario's stage (session, request, the checks to
// record) and what the recorded verdicts must show. Not for other layers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "capture/live_checks.h"
#include "capture/live_record.h"
#include "core/proc_parse.h"
#include "core/resolver.h"
#include "lab/lab.h"
#include "lab/procs.h"
#include "lab/session.h"
#include "proctape.pb.h"

namespace proctape::lab {

inline const std::string kSleepCmdline(
    "/bin/sleep\0"
    "120\0",
    15);

// `bytes` random bytes in hex (tokens).
std::string RandomHex(std::size_t bytes);

// One scenario's run: the session, the request every resolve check uses,
// the checks to record, and what their verdicts must show.
struct Stage {
  Session session;
  std::string token;
  Request request;
  v1::RootFingerprint fingerprint;  // taken before the turn; every resolve uses it
  FileId sleep_exe;
  std::vector<std::string> facts;
  std::vector<LiveStep> steps;
  std::deque<Request> requests;  // stable addresses for the checks
  std::deque<Verdict> verdicts;
  std::deque<LivenessVerdict> liveness;
  // The recorded checks against the scenario's claim: "" when shown, else
  // what differs.
  std::function<std::string(const std::vector<v1::Resolution>&)> shown;

  void Resolve(std::function<MaybeFailure()> before = nullptr) {
    Request* r = &requests.emplace_back(request);
    steps.push_back({std::move(before),
                     ResolveCheck(r, "/bin/sleep", false, &verdicts.emplace_back(), &fingerprint)});
  }
  void Liveness(const StatFields& p, std::function<MaybeFailure()> before = nullptr) {
    // The sleep was resolved against `fingerprint`: its boot is the identity's.
    steps.push_back({std::move(before), LivenessCheck({p.pid, p.start_ticks, fingerprint.boot_id()},
                                                      &liveness.emplace_back())});
  }
  std::string Token(const std::string& token_value) const {
    return "PROCTAPE_TOKEN=" + token_value;
  }
  // The one exact sleep with this token beneath the app-server; nullopt and
  // *failure (Session::WaitFor's, kLabFailed) when there is not.
  std::optional<StatFields> Sleep(const std::string& token_value, Failure* failure,
                                  std::size_t count = 1) {
    std::vector<StatFields> found = session.WaitFor(
        session.app()->pid(), kSleepCmdline, Token(token_value), sleep_exe, count, 5000, failure);
    if (found.size() != count) return std::nullopt;
    return found.back();
  }
  void Fact(const std::string& line) { facts.push_back(line); }
  void SleepFact(const StatFields& sleep, const char* what = "the sandboxed sleep") {
    std::string ns;
    if (auto status = ReadProcFile(static_cast<pid_t>(sleep.pid), "status")) {
      if (auto v = StatusValue(*status, "NSpid")) ns = std::string(*v);
    }
    for (char& c : ns) {
      if (c == '\t') c = ' ';
    }
    Fact(std::string(what) + ": host pid " + std::to_string(sleep.pid) + ", start tick " +
         std::to_string(sleep.start_ticks) + (ns.empty() ? "" : ", NSpid " + ns));
  }
  void MarkerFact(long marker) {
    std::string named = "no process";
    if (auto st = ReadStatOf(static_cast<pid_t>(marker))) {
      named = "'" + EscapeBytes(st->comm, 64) + "' (start tick " + std::to_string(st->start_ticks) +
              ")";
    }
    Fact("the marker says " + std::to_string(marker) + " (the sandbox's $$); as a host pid, " +
         std::to_string(marker) + " is " + named);
  }
};

// ---- What the recorded verdicts must show: "" when shown, else what differs.

// Check k is a resolve with `status` (and, when RESOLVED, `pid`).
std::string ExpectResolve(const std::vector<v1::Resolution>& rs, std::size_t k,
                          v1::Verdict::Status status, std::int64_t pid = 0);
std::string ExpectLiveness(const std::vector<v1::Resolution>& rs, std::size_t k,
                           v1::LivenessVerdict::Status status,
                           v1::Verdict::Status reason = v1::Verdict::STATUS_UNSPECIFIED);
// Check k is a resolve that ended at the deadline without a match: NO_MATCH
// (DEADLINE alone means no attempt completed: not what a scenario stages).
std::string ExpectDeadline(const std::vector<v1::Resolution>& rs, std::size_t k);
// The first difference of two.
std::string Both(const std::string& a, const std::string& b);

// ---- The scenarios (scenarios.cc) ------------------------------------------

struct Scenario {
  ScenarioInfo info;
  bool (*stage)(Stage&, std::string*);
};

// Every scenario, in the order `lab --list` shows them.
const std::vector<Scenario>& ScenarioTable();

}  // namespace proctape::lab
