// SPDX-License-Identifier: Apache-2.0
// `proctape resolve` on the live host (docs/resolver.md, "When the root is
// fingerprinted"): the request's root and executable, from a fingerprint
// file taken before the turn or from --root, --root-start and --exe now,
// then the check (capture/live_checks.h ResolveCheck) run on the live /proc,
// recorded into --record's file when there is one (capture/live_record.h).
// The caller has checked the request's words (core/resolver.h
// CheckRequestWords), opened the output and the live /proc, and held --root
// below pid_max; it prints the verdict and its exit status.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "capture/option_failure.h"
#include "capture/procfs_evidence.h"
#include "core/evidence.h"
#include "core/failure.h"
#include "core/resolver.h"
#include "core/verdict.h"
#include "fs/output_file.h"

namespace proctape {

struct LiveResolveRequest {
  Request words;                     // token, token_var, argv and bounds; root and exe are set here
  std::string fingerprint;           // --fingerprint FILE; empty: none
  std::optional<std::int64_t> root;  // --root
  std::optional<std::uint64_t> root_start;  // --root-start (only without a fingerprint)
  std::string exe = "/bin/sleep";           // --exe (only without a fingerprint)
  // Why `exe` cannot be the executable attested by device and inode (the
  // CLI's rule for --exe, checked when there is a root and no fingerprint),
  // "" when it can.
  std::string exe_problem;
  std::string proc = "/proc";             // whose boot id the fingerprint's must be
  std::vector<std::string> command_line;  // a recording's header keeps it
  // Wraps the evidence the check runs on (null: none): the CLI's progress
  // line watching the waits between attempts. The wrapper forwards every
  // call unchanged, so what a recording holds is the check's own.
  std::function<std::unique_ptr<Evidence>(Evidence&)> watch;
};

struct LiveResolution {
  // The request was refused before the check ran: a fingerprint file that
  // is damaged, of another boot or not one ("--fingerprint"), a --root not
  // the fingerprint's or none given (kUsage), an --exe that cannot be
  // attested ("--exe", kUsage), this host's boot id unread (kInternal).
  // Nothing else below is set then.
  std::optional<OptionFailure> refused;
  bool ran = false;  // the check ran: `verdict` stands (false: the recording
                     // could not be begun, `record_failure` says why)
  Request request;   // as resolved: the root and the token, for the output's mask
  Verdict verdict;
  // Said after the verdict: a root fingerprinted late, or an --exe attested
  // late, where the verdict used what was read late.
  std::vector<std::string> warnings;
  // --record's file could not be begun or written (kIo; nothing is left of
  // it): said about that file, before the verdict.
  MaybeFailure record_failure;
};

// Resolves on `live` as `request` says, recorded into `record` when it is
// not null (opened before any work).
LiveResolution ResolveLive(ProcfsEvidence& live, const LiveResolveRequest& request,
                           std::unique_ptr<OutputFile> record);

}  // namespace proctape
