// SPDX-License-Identifier: Apache-2.0
// One recorded check of `proctape explore` and `proctape minimize`: set up on
// the host model of its frame (explore/host_model.h), run through an
// Evidence as replay runs it, its verdict named and compared.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/failure.h"
#include "core/resolver.h"
#include "explore/events.h"
#include "explore/host_model.h"
#include "format/reader.h"

namespace proctape::explore {

// The checks the search runs: the real resolver and liveness check unless a
// test gives others (tests/mutants/: the resolver mutants of core/mutant.h).
using ResolveFn = std::function<Verdict(Evidence&, const Request&)>;
using LivenessFn =
    std::function<LivenessVerdict(Evidence&, std::int64_t pid, std::uint64_t start_ticks)>;
struct Checker {
  ResolveFn resolve;    // empty: Resolve
  LivenessFn liveness;  // empty: CheckLiveness
};

// One recorded check made ready to explore.
struct CheckSetup {
  std::size_t index = 0;  // among the file's resolutions
  bool liveness = false;
  v1::Resolution recorded;  // its request (and recorded verdict)
  Request request;          // a resolution's
  std::string exe_path;     // answered by PathIdentity
  std::size_t frame = 0;    // the frame the model was built from (file order)
  HostModel initial;
  std::int64_t start_ns = 0;
  std::int64_t scan_ns = 0;  // a listing's virtual duration
  EventContext ctx;          // points into `initial`: never copy a CheckSetup
};

// Builds the setup of resolution `index` (null, with *failure of kind kUsage,
// when the file holds no frame to build a model from).
std::unique_ptr<CheckSetup> SetUp(const Snapshot& snapshot, std::size_t index, Failure* failure);

// The same check set up on another host model (`proctape minimize`).
std::unique_ptr<CheckSetup> WithModel(const CheckSetup& setup, HostModel model);

struct CheckOutcome {
  Request request;  // as run (the root's start tick fingerprinted, if so)
  Verdict verdict;
  LivenessVerdict liveness;
};

// Runs the check through `ev` as replay runs it (a fingerprint read first
// when the recording began with one).
CheckOutcome RunCheck(Evidence& ev, const CheckSetup& setup, const Checker& checker);
// The same verdict: the same status (a liveness error: the same reason),
// naming the same process (RESOLVED: pid and start tick; a fail-closed
// verdict: its subject).
bool SameVerdict(const CheckSetup& setup, const CheckOutcome& a, const CheckOutcome& b);
// `run` gives the recorded verdict of the check (by SameVerdict); *recorded:
// the recorded one as VerdictText says it.
bool SameAsRecorded(const CheckSetup& setup, const CheckOutcome& run, std::string* recorded);
// OutcomeName, and for RESOLVED the process: "RESOLVED host pid 241, start
// tick 1310670".
std::string VerdictText(const CheckSetup& setup, const CheckOutcome& outcome);
// "RESOLVED", "NO_MATCH", "ALIVE", "ERROR PID_REUSED", ...
std::string OutcomeName(const CheckSetup& setup, const CheckOutcome& outcome);

}  // namespace proctape::explore
