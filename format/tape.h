// SPDX-License-Identifier: Apache-2.0
// A tape kept compact (`docs/format.md`, "Tapes: only what changed"): what
// `replay` and `explain` keep of a file's observations. Each observation is its
// call (kind and arguments) and the number of its result; each distinct result
// of a call is stored once: an observation whose result equals the last result
// of the same call (a version 2 "same as observation K", docs/format.md section
// 9a, or, in any version, equal bytes) shares it, with no copy. A 5 s retry
// loop re-reads stat files that did not change: its tape costs what changed.
//
// What is not kept: the observations' times (mono_ns) and their messages;
// Observation() rebuilds one, for messages only.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "format/tape_calls.h"
#include "proctape.pb.h"

namespace proctape {

class Tape {
 public:
  // One call. kind is v1::Observation::CallCase.
  struct Call {
    std::int64_t arg = 0;      // ReadFile/ExeIdentity: pid; Now: result_ns; SleepUntil: until_ns
    std::uint64_t bound = 0;   // ListPids/ReadFile: bound; PathIdentity: its path's number
    std::uint32_t result = 0;  // the number of its result, among those of its kind
    std::uint8_t kind = 0;
    std::uint8_t file = 0;  // ReadFile: the ProcFile
  };
  struct FileResult {
    std::string data;
    std::int32_t err = 0;
    bool truncated = false;
    bool redacted = false;
    bool present = true;  // the recorded FileRead was present
  };
  struct ListResult {
    std::vector<std::string> names;
    std::int32_t err = 0;
    bool truncated = false;
    std::uint64_t bytes = 0;  // what the listing read; 0 when not recorded
    bool stopped_at_bytes = false;
    bool stopped_at_deadline = false;
  };
  struct IdentityResult {
    v1::FileIdentity identity;
    bool present = false;
  };

  // Appends the next observation of the file (index size()). One that says
  // "same as" (checked by the reader: the last earlier observation of the
  // same call) shares that call's last result.
  void Add(const v1::Observation& observation);
  // Drops what Add needs to find a call's last result: the tape is complete.
  void Seal();

  std::size_t size() const { return calls_.size(); }
  const Call& call(std::size_t i) const { return calls_[i]; }
  const FileResult& file_result(const Call& c) const { return files_[c.result]; }
  const ListResult& list_result(const Call& c) const { return lists_[c.result]; }
  const IdentityResult& identity_result(const Call& c) const { return identities_[c.result]; }
  const std::string& path(const Call& c) const { return paths_[c.bound]; }
  // Observation i as the file held it (results resolved), without mono_ns.
  v1::Observation Observation(std::size_t i) const;
  // Distinct results stored (for tests and benchmarks).
  std::size_t distinct_results() const {
    return files_.size() + lists_.size() + identities_.size();
  }

 private:
  // A deque, not a vector: a tape of a million calls grows without the
  // copies (and the twice-the-size peak) of a vector's doubling.
  std::deque<Call> calls_;
  std::vector<FileResult> files_;
  std::vector<ListResult> lists_;
  std::vector<IdentityResult> identities_;
  std::vector<std::string> paths_;
  // While adding: per call (SameAsKey), the number of its last result.
  std::unordered_map<CallKey, std::uint32_t, CallKeyHash> last_;
  std::unordered_map<std::string, std::uint64_t> path_numbers_;
};

}  // namespace proctape
