// SPDX-License-Identifier: Apache-2.0
// The calls of a tape (Observation, docs/format.md section 5) as version 2's
// "same as observation K" needs them (section 9a, "Tapes: only what
// changed"): which call an observation makes (its kind and arguments), and
// its result apart from the call. The writer and the reader share these, so
// that a reference the writer makes is exactly one the reader resolves.
#pragma once

#include <cstdint>
#include <string>

#include "proctape.pb.h"

namespace proctape {

// The kind and arguments of an observation's call: equal keys are the same
// call (ListPids: bound; ReadFile: pid, file, bound; ExeIdentity: pid;
// PathIdentity: path). Empty (kind 0) for calls that may not say "same as"
// (Now, SleepUntil, an empty observation): their result is a reading of a
// clock. A value, not bytes: every observation of a tape makes one, and
// the tables keyed by it are looked up once per observation.
struct CallKey {
  std::int64_t pid = 0;
  std::uint64_t bound = 0;
  std::string path;  // PathIdentity only
  std::uint8_t kind = 0;
  std::uint8_t file = 0;
  bool empty() const { return kind == 0; }
  bool operator==(const CallKey&) const = default;
};
struct CallKeyHash {
  std::size_t operator()(const CallKey& k) const;
};
CallKey SameAsKey(const v1::Observation& o);

// The observation's result serialized (ReadFile: its FileRead, whose bound
// is an argument; ListPids: names, err, truncated, bytes, where it stopped;
// identities: the
// FileIdentity): equal bytes are equal results.
std::string ResultBytes(const v1::Observation& o);

// ResultBytes(o).size(), computed without building it where it can be:
// what a reader's table of latest results counts (kMaxTapeTableBytes).
std::uint64_t ResultSize(const v1::Observation& o);

// Whether the observation holds a result of its own beside its arguments
// (ReadFile: anything of `result` but `bound`).
bool HoldsResult(const v1::Observation& o);

// Removes the result, keeping the call's arguments (ReadFile: result.bound).
void ClearResult(v1::Observation* o);

// Copies `from`'s result into `to`, the same call (SameAsKey equal).
void CopyResult(const v1::Observation& from, v1::Observation* to);

}  // namespace proctape
