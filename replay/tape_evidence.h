// SPDX-License-Identifier: Apache-2.0
// Serves a recorded tape to the resolver: the Evidence a replay runs the
// identical resolver code against. Each call must match the next recorded
// observation — same operation and same arguments (pid, file, bound, path,
// sleep target) — and is answered with the recorded result. The clock is the
// recorded one: NowNs returns the recorded reading and SleepUntil returns at
// once, so a 5-second retry loop replays in microseconds. The tape is the
// compact one (format/tape.h): calls are matched on its small records and
// results served from the one copy of each distinct result.
//
// A call the tape does not hold (another operation, other arguments, or past
// the end) is a divergence: the first one is kept, and from then on every
// read fails with EIO and the clock reads far past any deadline, so the
// resolver stops at once, fail-closed. Nothing live is ever touched.
//
// So is a call the tape holds whose recorded answer cannot answer the
// request being replayed: an environ stored redacted, read for a token entry
// the recording did not keep verbatim (SetTokenQuestion, replay/unanswered.h).
// Its divergence says so (`unanswered`); the stars are never handed to the
// resolver.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/evidence.h"
#include "format/reader.h"
#include "format/tape.h"
#include "proctape.pb.h"
#include "replay/unanswered.h"

namespace proctape {

struct Divergence {
  std::uint64_t index = 0;  // tape index of the observation that did not match
  std::string recorded;     // the recorded call, or "end of tape"
  std::string made;         // the call the resolver made
  // Set when the tape holds the call but not its whole answer.
  v1::Unanswered unanswered = v1::UNANSWERED_NONE;
};

// Where the clock of a replay reads once a call went unanswered: past every
// deadline, without overflowing a deadline check.
inline constexpr std::int64_t kClockAfterDivergence = INT64_MAX / 2;

// "ReadFile(pid 4103, environ, bound 65536)" and the like.
std::string DescribeCall(const v1::Observation& observation);

// The tape of `snapshot`: its compact tape (ReadKeep::compact_tape), or else
// one built into *scratch from its observations.
const Tape& TapeOf(const Snapshot& snapshot, Tape* scratch);

class TapeEvidence : public Evidence {
 public:
  // Serves observations [first, first + count) of `tape`, which must outlive
  // this object.
  TapeEvidence(const Tape& tape, std::uint64_t first, std::uint64_t count);
  // The same of plain observations, kept compact in this object.
  TapeEvidence(const std::vector<v1::Observation>& tape, std::uint64_t first, std::uint64_t count);

  // Environ reads are answered only where they answer `question` (which
  // must outlive this object); null (the default): every read as recorded.
  void SetTokenQuestion(const TokenQuestion* question) { question_ = question; }

  bool diverged() const { return diverged_; }
  const Divergence& divergence() const { return divergence_; }
  std::uint64_t consumed() const { return next_ - first_; }
  std::uint64_t count() const { return end_ - first_; }

  ListResult ListPids(std::uint64_t bound) override;
  ReadResult ReadFile(std::int64_t pid, ProcFile file, std::uint64_t bound) override;
  Identity ExeIdentity(std::int64_t pid) override;
  Identity PathIdentity(const std::string& path) override;
  std::int64_t NowNs() override;
  void SleepUntil(std::int64_t mono_ns) override;

 private:
  // A call as made: what must match the next recorded observation.
  struct Call {
    v1::Observation::CallCase kind;
    std::int64_t pid = 0;
    int file = 0;
    std::uint64_t bound = 0;
    const std::string* path = nullptr;
    std::int64_t until_ns = 0;
  };
  bool Matches(const Tape::Call& recorded, const Call& call) const;
  static v1::Observation ToObservation(const Call& call);
  // The next recorded call if it is `call`; otherwise records the divergence
  // and returns null. Builds nothing on the matching path.
  const Tape::Call* Take(const Call& call);

  std::shared_ptr<const Tape> owned_;  // the plain observations' compact tape
  const Tape& tape_;
  std::uint64_t first_;
  std::uint64_t end_;
  std::uint64_t next_;
  std::int64_t last_now_ = 0;
  bool diverged_ = false;
  Divergence divergence_;
  const TokenQuestion* question_ = nullptr;
};

}  // namespace proctape
