// SPDX-License-Identifier: Apache-2.0
// A replayed Resolve told attempt by attempt (internal to analyze/explain*.cc),
// from the calls it made (analyze/explain_watch.h). An attempt starts with a
// listing of /proc (and the clock reading just before it); the sleep after it
// is the retry wait. Each attempt tells its listing, the root's record, the
// processes beneath the root, the candidates the resolver inspected
// (analyze/explain_candidate.h), its outcome (retried, the last before the
// deadline, cut by the deadline, or final) and a summary; the check tells what
// ended the resolution. Nothing is re-decided: the outcome of the last
// attempt is read from `verdict`, the resolver's own.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "analyze/explain_watch.h"
#include "core/resolver.h"
#include "explain.pb.h"
#include "replay/token_mask.h"

namespace proctape::explain {

// Where the replay diverged: the call the resolver made that the tape does
// not hold, and the sentence that says so. Past it the tape answers nothing
// (replay/tape_evidence.h feeds the resolver failures so that it stops):
// what the resolver concluded then is no verdict and no attempt's outcome.
struct Unheld {
  std::string said;
  const Seen* call = nullptr;  // as WatchingEvidence::unheld()
};

// Adds to `out` the attempts of the Resolve whose calls are those of `calls`
// from `begin` on (its clock reading first), with `request` as it ran and its
// `verdict` (which must outlive the call), and sets what ended it. With
// `unheld` (the replay diverged; `verdict` is then none) the attempt it
// stopped is told up to the divergence, and ends there. Argv is masked by
// `mask` before it is quoted.
void ExplainResolveCalls(const std::vector<Seen>& calls, std::size_t begin, const Request& request,
                         const v1::Verdict& verdict, const Unheld* unheld, const TokenMask& mask,
                         v1::ExplainCheck* out);

}  // namespace proctape::explain
