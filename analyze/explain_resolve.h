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
#include <memory>
#include <string>

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

// Tells a replayed Resolve attempt by attempt, as its calls are made: an
// attempt that ended in the retry wait is told when the next one begins, and
// its calls are let go, so what is held is the calls of the attempt under
// way, however long the resolution. What ended it, and the last attempt, are
// told once the resolver's `verdict` is known.
class ResolveTeller {
 public:
  // `request` is the request as the resolver runs it (replay/replay.h's
  // ReplayWatch sets it before the resolver's first call); it, `mask` and
  // `out` must outlive the teller. Argv is masked by `mask` before it is
  // quoted.
  ResolveTeller(const Request& request, const TokenMask& mask, v1::ExplainCheck* out);
  ~ResolveTeller();
  ResolveTeller(const ResolveTeller&) = delete;
  ResolveTeller& operator=(const ResolveTeller&) = delete;

  // The Resolve's next call, in order: its clock reading first.
  void Take(Seen call);
  // The Resolve is over: adds to `out` the attempts not yet told and what
  // ended the resolution, from `verdict` (the resolver's; none when
  // `unheld`: the replay diverged, and the attempt it stopped is told up to
  // the divergence, and ends there).
  void Finish(const v1::Verdict& verdict, const Unheld* unheld);
  // The calls held now: those of the attempts not yet told (and what came
  // before the first attempt).
  std::size_t held() const;

 private:
  class Attempts;
  std::unique_ptr<Attempts> attempts_;
};

}  // namespace proctape::explain
