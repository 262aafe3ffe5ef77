// SPDX-License-Identifier: Apache-2.0
// How a function says it failed across a library boundary (docs/architecture.md,
// "Errors"): a Failure is its kind, one line of message and the errno behind
// it, if any. A function that gives nothing else returns MaybeFailure
// (nothing: it succeeded); one that gives a value returns it and fills a
// Failure* when it gives none. The kind decides the exit status, in the CLI's
// one table (cli/exit_codes.h ExitCodeFor); the message is said as it is.
//
// Two errors keep their own richer types and convert to this one where they
// cross into another layer: a snapshot file's damage (format/format_error.h:
// the chunk and byte offset) and a corpus manifest's (corpus/manifest.h: the
// line).
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace proctape {

enum class FailureKind : int {
  kUsage,           // the request itself is wrong: exit 2
  kNotFound,        // what was asked for is not there (a view's filter selects nothing): 5
  kBound,           // a bound cut the work short (a frame cut by --max-processes): 8
  kOtherBoot,       // a fingerprint or an identity of another boot: 9
  kIo,              // an open, read or write failed, or an output path was refused: 10
  kBadMagic,        // not a .ptape file: 11
  kNewerVersion,    // a .ptape of a newer format version: 12
  kTruncated,       // a .ptape that ends inside a chunk or has no footer: 13
  kChecksum,        // a chunk whose content checksum does not match: 14
  kCorrupt,         // a chunk that does not decode, or breaks the structure: 15
  kTooLarge,        // a length, size or count over the limits: 16
  kVerdictChanged,  // replay: the same evidence gives another verdict: 20
  kDiverged,        // replay: the resolver asked for what the tape does not hold: 21
  kCorpusDrift,     // a corpus entry drifted from its expectation or is unreadable: 22
  kManifest,        // a corpus manifest that does not parse: 23
  kLabUnavailable,  // the lab cannot run here: 24
  kLabFailed,       // a lab scenario could not be set up as described: 25
  kScope,           // ownership: the scope is not the verifier's: 26
  kShards,          // corpus report: the shards' reports make no whole corpus check: 27
  kInternal,        // proctape itself failed: 1
};

struct Failure {
  Failure() = default;
  Failure(FailureKind k, std::string m, int e = 0) : kind(k), message(std::move(m)), sys_errno(e) {}

  FailureKind kind = FailureKind::kInternal;
  std::string message;  // one line, no trailing newline
  int sys_errno = 0;    // the errno behind it (0: none)
};

// Nothing: done.
using MaybeFailure = std::optional<Failure>;

// A failure of kind kIo for `errno_value` ("WHAT: strerror").
Failure IoFailure(const std::string& what, int errno_value);

}  // namespace proctape
