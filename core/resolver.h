// SPDX-License-Identifier: Apache-2.0
// The Linux host-PID resolver (`docs/resolver.md`, "The eight steps"),
// written only against the Evidence interface so that capture,
// replay and unit tests run the identical code.
//
// Given the host pid and start time of a fingerprinted root (the app-server),
// the attested identity of the expected executable and a per-invocation token,
// it finds the unique process beneath the root whose argv is exactly the
// expected one, whose environment carries the token exactly once and whose
// executable is the attested one — or fails closed with a status naming why.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/evidence.h"
#include "core/verdict.h"

namespace proctape {

// The limits of a request's timing, whatever a command line or a file says.
// `docs/resolver.md`, "Retries, deadline and budget": attempts every 100 ms for
// at most 5 s by default; no interval is shorter than 100 ms, and no deadline
// is longer than an hour (the most `resolve --deadline-ms` accepts). A request
// outside them is INVALID_REQUEST, live and in replay, so a recorded deadline
// of years with a retry interval of a nanosecond cannot make replay run
// forever. Every attempt but the first starts at least one retry interval after
// the one before, so a resolution makes at most kMaxAttempts attempts; the
// resolver also stops there (NO_MATCH) if an Evidence's clock never advances.
inline constexpr std::int64_t kMaxDeadlineNs = 3'600'000'000'000;                // 1 hour
inline constexpr std::int64_t kMinRetryNs = 100'000'000;                         // 100 ms
inline constexpr std::uint32_t kMaxAttempts = kMaxDeadlineNs / kMinRetryNs + 1;  // 36,001

// Defaults are the numbers of `docs/resolver.md`, "Inputs (Request)".
struct Bounds {
  std::uint64_t max_entries = 65536;  // numeric /proc entries per scan
  std::uint64_t max_nodes = 65536;    // process records per snapshot
  std::uint32_t max_depth = 256;      // ancestry depth (parent links)
  std::uint64_t stat_bytes = 4096;
  std::uint64_t cmdline_bytes = 65536;
  std::uint64_t environ_bytes = 65536;
  std::uint64_t byte_budget = 256ull << 20;  // all reads of all attempts
  std::int64_t deadline_ns = 5'000'000'000;  // from the start of Resolve
  std::int64_t retry_ns = 100'000'000;       // between attempt starts
};

struct Request {
  std::int64_t root_pid = 0;
  std::uint64_t root_start_ticks = 0;
  std::string token;
  std::string token_var = "PROCTAPE_TOKEN";
  std::vector<std::string> argv = {"/bin/sleep", "120"};
  Identity exe;  // attested identity of the expected executable
  Bounds bounds;
};

// The operator's words of a request that make it INVALID_REQUEST (each given
// one, null = not given): an empty token; a token variable that is empty or
// holds '=' or NUL; an argv that is empty, has an element holding NUL (its
// bytes would be those of two elements of the NUL-delimited cmdline) or,
// joined with NUL, is longer than `cmdline_bytes`. An empty argv element is
// valid: argv is compared byte for byte, with no trimming or normalisation
// (`docs/resolver.md`, "The eight steps", step 5),
// and a process may hold one (`exec -a ''`; its cmdline shows "\0").
// `field` names the word at fault ("token", "token_var", "argv"), empty when
// every one given is valid. Resolve checks its request with it; the CLI
// checks the same words with it before any read (resolve's options and
// replay's overrides alike).
struct RequestWordsProblem {
  std::string field;
  std::string why;
};
RequestWordsProblem CheckRequestWords(const std::string* token, const std::string* token_var,
                                      const std::vector<std::string>* argv,
                                      std::uint64_t cmdline_bytes);

// Runs attempts until a final verdict. The deadline is NowNs() at entry plus
// bounds.deadline_ns; the byte budget counts every byte of every read.
Verdict Resolve(Evidence& evidence, const Request& request);

// `docs/resolver.md`, "Liveness" (step 8): every later liveness check re-reads
// stat. A missing process or state Z, X or x is dead; a matching non-dead start
// time is alive; pid reuse, malformed data, or unreadable required evidence is
// an error. One stat read (at most `stat_bytes`), nothing else. A pid outside
// 2..2147483647 or a start tick of 0 is ERROR INVALID_REQUEST, nothing read.
LivenessVerdict CheckLiveness(Evidence& evidence, std::int64_t pid, std::uint64_t start_ticks,
                              std::uint64_t stat_bytes = 4096);

// The start time (stat field 22) of `pid` now, for fingerprinting a root
// before a turn. On failure returns a verdict explaining why (MISSING_ROOT:
// gone, or dead in state Z, X or x, with its start tick; UNREADABLE,
// MALFORMED_RECORD); on success status is kResolved.
Verdict FingerprintRoot(Evidence& evidence, std::int64_t pid, std::uint64_t stat_bytes = 4096);

}  // namespace proctape
