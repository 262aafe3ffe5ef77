// SPDX-License-Identifier: Apache-2.0
// One candidate of an explained resolve attempt (internal to
// analyze/explain*.cc): a process the resolver inspected (read its cmdline),
// what was read of it, and why it is or is not the process. Nothing is
// re-decided: the reason is taken from what the resolver went on to read
// (environ read: the argv matched; executable taken: the match), and where
// the deadline or the byte budget stopped the resolution, from the read it
// stopped after. Environ values are never kept: only how many entries are
// named the token variable and how many carry the request's token.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "analyze/explain_watch.h"
#include "core/resolver.h"
#include "explain.pb.h"
#include "replay/token_mask.h"

namespace proctape::explain {

// No call: a read the candidate did not get, or a resolution not stopped.
inline constexpr std::size_t kNoCall = std::numeric_limits<std::size_t>::max();

// Where a candidate's reads lie among the calls, to find the one the
// resolution stopped at.
struct CandidateCalls {
  std::size_t cmdline = kNoCall;
  std::size_t environ = kNoCall;
  std::size_t exe = kNoCall;
  std::size_t environ_recheck = kNoCall;
  std::vector<std::size_t> ancestry;
};

// Fills the candidate `k` from its cmdline read `cmdline`, with `scanned`
// (its record from this attempt's scan, or null): its argv is masked
// (`mask`) before any detail quotes it.
void InspectCandidate(const Seen& cmdline, const v1::ExplainStat* scanned, const TokenMask& mask,
                      v1::ExplainCandidate* k);

// Records the environ read `r` of `k`: its argv was exact. Counts the
// entries named `request`'s token variable and those carrying its token.
void RecordEnviron(const ReadResult& r, const Request& request, v1::ExplainCandidate* k);

// Adds one link of the ancestry re-read of the match `k`: the stat read
// `stat`, against `scanned` (that pid's record from the scan, or null), and
// what changed, in a detail.
void RecordReread(const Seen& stat, const v1::ExplainStat* scanned, const Request& request,
                  v1::ExplainCandidate* k);

// Where the told resolution stopped: after the call `at` (kNoCall: it did
// not stop at a candidate's read), `why` STOPPED (the deadline or the byte
// budget ended it: `said` names the status) or UNANSWERED (the replay
// diverged: the tape does not hold the resolver's next call, `said` says so).
struct Stop {
  std::size_t at = kNoCall;
  v1::ExplainCandidate::Why why = v1::ExplainCandidate::STOPPED;
  std::string said;
};

// Sets why `k` is or is not the process, from what was read of it (`at`:
// where) and what the resolver did next; a candidate whose read is the one
// the resolution stopped after (`stop`) is told so.
void DecideCandidate(const CandidateCalls& at, const Stop& stop, const Request& request,
                     v1::ExplainCandidate* k);

}  // namespace proctape::explain
