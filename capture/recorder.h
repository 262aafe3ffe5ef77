// SPDX-License-Identifier: Apache-2.0
// The recorder (`docs/format.md` section 5): an Evidence that forwards every
// call to another Evidence unchanged, returns its exact result unchanged, and
// appends one v1::Observation per call to a sink — the tape of a resolution.
//
//   Resolver --> RecordingEvidence --> ProcfsEvidence
//                      |
//                      +--> sink(Observation)   index, mono_ns, call, result
//
// Recording must not change what the resolver does, so the recorder makes no
// call of its own on the wrapped source: the time stamp of each observation
// comes from its own clock (CLOCK_MONOTONIC by default), never from the
// wrapped NowNs. For a NowNs call the time stamp is the call's result.
//
// Environ reads are stored redacted (RedactEnviron, FileRead.redacted = true)
// unless `keep_environ`; the caller always gets the bytes as read.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/evidence.h"
#include "proctape.pb.h"

namespace proctape {

struct RecorderOptions {
  bool keep_environ = false;              // store environ values as read
  std::vector<std::string> kept_entries;  // kept verbatim when redacting
  std::function<std::int64_t()> clock;    // empty: CLOCK_MONOTONIC
};

class RecordingEvidence : public Evidence {
 public:
  using Sink = std::function<void(v1::Observation&&)>;

  RecordingEvidence(Evidence& inner, Sink sink, RecorderOptions options = {});

  // Observations appended so far; the next one's index.
  std::uint64_t observations() const { return next_index_; }

  ListResult ListPids(std::uint64_t bound) override;
  ListResult ListPidsWithin(const ListLimits& limits) override;
  ReadResult ReadFile(std::int64_t pid, ProcFile file, std::uint64_t bound) override;
  Identity ExeIdentity(std::int64_t pid) override;
  Identity PathIdentity(const std::string& path) override;
  std::int64_t NowNs() override;
  void SleepUntil(std::int64_t mono_ns) override;

 private:
  // Stamps `obs` with the next index and `mono_ns`, then hands it to the sink.
  void Append(v1::Observation& obs, std::int64_t mono_ns);
  void RecordListing(std::uint64_t bound, const ListResult& result);

  Evidence& inner_;
  Sink sink_;
  RecorderOptions options_;
  std::uint64_t next_index_ = 0;
};

}  // namespace proctape
