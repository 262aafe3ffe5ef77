// The one-stat checks: liveness of a resolved identity (seed 000, step 8) and
// the root's fingerprint before a turn (step 1).
#include <string>
#include <utility>

#include "core/resolver_internal.h"

namespace proctape {

using resolver::DeadState;
using resolver::Vanished;

LivenessVerdict CheckLiveness(Evidence& evidence, std::int64_t pid, std::uint64_t start_ticks,
                              std::uint64_t stat_bytes) {
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
    return error(Status::kUnreadable, where + " is unreadable (errno " + std::to_string(r.err) + ")");
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
  out.status = DeadState(f.state) ? LivenessStatus::kDead : LivenessStatus::kAlive;
  out.detail = "pid " + std::to_string(pid) + " in state " + out.state + " started at tick " +
               std::to_string(start_ticks);
  return out;
}

Verdict FingerprintRoot(Evidence& evidence, std::int64_t pid, std::uint64_t stat_bytes) {
  Verdict v;
  v.subject_pid = pid;
  std::string where = "/proc/" + std::to_string(pid) + "/stat";
  ReadResult r = evidence.ReadFile(pid, ProcFile::kStat, stat_bytes);
  v.file = static_cast<int>(ProcFile::kStat);
  v.err = r.err;
  v.bytes_read = r.data.size();
  if (!r.ok()) {
    v.status = Vanished(r.err) ? Status::kMissingRoot : Status::kUnreadable;
    v.detail = where + " cannot be read (errno " + std::to_string(r.err) + ")";
    return v;
  }
  // A truncated stat is refused unparsed, with no reason beyond "not valid".
  StatViewParse parsed = r.truncated ? StatViewParse{} : ParseStatView(r.data);
  if (r.truncated || !parsed.ok() || parsed.fields.pid != pid) {
    v.status = Status::kMalformedRecord;
    v.evidence = std::string(r.data.substr(0, kEvidenceExcerpt));
    v.detail = where + " is not a valid stat record" +
               (r.truncated || parsed.ok() ? std::string() : ": " + parsed.Error());
    return v;
  }
  v.status = Status::kResolved;
  v.subject_pid = 0;
  v.pid = pid;
  v.start_ticks = parsed.fields.start_ticks;
  v.detail = "pid " + std::to_string(pid) + " started at tick " + std::to_string(v.start_ticks);
  return v;
}

}  // namespace proctape
