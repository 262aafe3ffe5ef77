// SPDX-License-Identifier: Apache-2.0
// Mapping between the core's plain types and schema v1 messages. The core has
// no dependency on protobuf; everything that stores or prints a verdict in
// the schema's shape goes through these functions.
#pragma once

#include <cstdint>
#include <string>

#include "core/failure.h"
#include "core/resolver.h"
#include "core/verdict.h"
#include "proctape.pb.h"

namespace proctape {

v1::Bounds ToProto(const Bounds& bounds);
Bounds FromProto(const v1::Bounds& bounds);
v1::ResolutionRequest ToProto(const Request& request);
// A request made with a fingerprint taken before the turn (it holds the
// RootFingerprint) takes its root pid, start tick and executable identity
// from it, not from its own copies of them: a replay or an explanation
// resolves against the very fingerprint the recording was made with.
Request FromProto(const v1::ResolutionRequest& request);
v1::Verdict ToProto(const Verdict& verdict);
Verdict FromProto(const v1::Verdict& verdict);
v1::LivenessVerdict ToProto(const LivenessVerdict& verdict);
// A verdict as files written before subject_pid existed hold it (the subject
// of a failure in pid/start_ticks) becomes the current shape: pid and
// start_ticks present for RESOLVED only. Current verdicts are unchanged.
void UpgradeVerdict(v1::Verdict* verdict);
// A liveness check whose request names no boot had its boot unchecked
// (docs/resolver.md, "Liveness"): its verdict says boot_unchecked, which
// files written before the flag existed do not hold. Others are unchanged.
void UpgradeLiveness(v1::Resolution* resolution);
// `docs/resolver.md`, "The eight steps", step 1, kept in a fingerprint taken
// before the turn: the request's root pid, the root's start tick and the
// attested executable's identity become the fingerprint's.
void ApplyFingerprint(const v1::RootFingerprint& fingerprint, Request* request);
v1::FileIdentity ToProto(const Identity& identity);
Identity FromProto(const v1::FileIdentity& identity);

// The read of `file` a process record holds, or null when it holds none
// (ProcFile::kExe is never read, only its identity taken).
const v1::FileRead* RecordedRead(const v1::ProcessRecord& record, ProcFile file);

// One JSON object on one line, from protobuf's own printer. For messages
// bounded by construction (reports, one record); "" if the printer fails.
std::string ToJson(const google::protobuf::Message& message);

// The most protobuf serializes (its printer serializes the message first):
// INT_MAX bytes, 2 GiB - 1.
inline constexpr std::uint64_t kMaxSerializedBytes = 2147483647;
// ToJson for a message built from a file (export --format json): a failure
// when its serialized size is over `max_bytes` (kTooLarge, checked before any
// work: past 2 GiB protobuf's printer gave an empty document) or the printer
// fails (kInternal); *out is then empty. `max_bytes` is a parameter for tests.
MaybeFailure ToJsonChecked(const google::protobuf::Message& message, std::string* out,
                           std::uint64_t max_bytes = kMaxSerializedBytes);

}  // namespace proctape
