// SPDX-License-Identifier: Apache-2.0
// Liveness of a resolved identity (`docs/resolver.md`, "Liveness"; "The
// eight steps", step 8): one stat read. The
// root's fingerprint, the other one-stat check, is core/fingerprint.cc.
#include <string>
#include <utility>

#include "core/mutant.h"
#include "core/resolver_internal.h"

namespace proctape {

using resolver::DeadState;
using resolver::Vanished;

// PROCTAPE_LIVENESS_AS: the name a mutant is compiled under (core/mutant.h).
#ifndef PROCTAPE_LIVENESS_AS
#define PROCTAPE_LIVENESS_AS CheckLiveness
#endif
LivenessVerdict PROCTAPE_LIVENESS_AS(Evidence& evidence, std::int64_t pid,
                                     std::uint64_t start_ticks, std::uint64_t stat_bytes) {
  LivenessVerdict out;
  auto error = [&](Status reason, std::string detail) {
    out.status = LivenessStatus::kError;
    out.reason = reason;
    out.detail = std::move(detail);
    return out;
  };
  // As resolve validates its root: "PIDs are canonical decimal values from 2
  // through 2,147,483,647"; a start tick of 0 is no process started after
  // boot. Refused before anything is read.
  if (pid < 2 || static_cast<std::uint64_t>(pid) > kMaxPid) {
    return error(Status::kInvalidRequest,
                 "pid " + std::to_string(pid) + " is outside 2..2147483647");
  }
  if (start_ticks == 0) return error(Status::kInvalidRequest, "the start tick is 0");
  std::string where = "/proc/" + std::to_string(pid) + "/stat";
  ReadResult r = evidence.ReadFile(pid, ProcFile::kStat, stat_bytes);
  out.err = r.err;
  if (!r.ok()) {
    if (Vanished(r.err)) {
      out.status = LivenessStatus::kDead;
      out.detail = where + " is gone (errno " + std::to_string(r.err) + ")";
      return out;
    }
    return error(Status::kUnreadable,
                 where + " is unreadable (errno " + std::to_string(r.err) + ")");
  }
  if (r.truncated) return error(Status::kMalformedRecord, where + " is larger than its bound");
  StatViewParse parsed = ParseStatView(r.data);
  if (!parsed.ok()) return error(Status::kMalformedRecord, where + ": " + parsed.Error());
  const StatView& f = parsed.fields;
  out.state = std::string(1, f.state);
  if (f.pid != pid) return error(Status::kMalformedRecord, where + ": field 1 is not the pid");
  if (f.start_ticks != start_ticks) {
    // A later start is a process that took the pid since; an earlier one
    // means the identity given never held this pid. Either way the process
    // named is not the one there.
    const bool later = f.start_ticks > start_ticks;
    return error(Status::kPidReused,
                 "pid " + std::to_string(pid) + " started at tick " +
                     std::to_string(f.start_ticks) + ", not " + std::to_string(start_ticks) +
                     (later ? ": the pid was reused"
                            : ": another process holds the pid (it started before the one named)"));
  }
  // "state Z, X, or x is dead" (the mutant that drops the rule takes Z for alive).
  const bool dead =
      mutant::Drops(mutant::kZombieAlive) ? f.state == 'X' || f.state == 'x' : DeadState(f.state);
  out.status = dead ? LivenessStatus::kDead : LivenessStatus::kAlive;
  out.detail = "pid " + std::to_string(pid) + " in state " + out.state + " started at tick " +
               std::to_string(start_ticks);
  return out;
}

}  // namespace proctape
