// SPDX-License-Identifier: Apache-2.0
// The root's fingerprint before a turn (`docs/resolver.md`, "The eight
// steps", step 1): one stat read,
// the pid's start tick, of a live process.
#include <string>

#include "core/resolver_internal.h"

namespace proctape {

using resolver::Vanished;

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
  // A missing root stops the checker (docs/resolver.md, "When the root is
  // fingerprinted"). A dead one (a zombie not yet reaped, or X) is missing:
  // nothing it starts will be beneath it, and its start tick names no
  // process that can start a sandbox. Refused here, before the turn, as the
  // resolver refuses it.
  if (resolver::DeadState(parsed.fields.state)) {
    v.status = Status::kMissingRoot;
    v.subject_start_ticks = parsed.fields.start_ticks;
    v.evidence = std::string(r.data.substr(0, kEvidenceExcerpt));
    v.detail = "root pid " + std::to_string(pid) + " is dead (state " +
               std::string(1, parsed.fields.state) + "): nothing it starts can be beneath it";
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
