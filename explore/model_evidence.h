// SPDX-License-Identifier: Apache-2.0
// The Evidence of `proctape explore`: answers every call of the identical
// resolver (or liveness check) from a HostModel, with the virtual clock of
// the frame model (replay/frame_evidence.h): NowNs does not move it, a
// listing advances it by the frame's scan duration, SleepUntil moves it
// forward. Every call is a schedule point k (0, 1, 2, ...): before call k is
// answered, the history's events at k are applied, then `at_point(k)` runs.
//
// at_point may stop the run (a history already explored, explore/search.h):
// from then on every call fails (EIO) and the clock stands past any
// deadline, so the resolver ends at once; its verdict is not a verdict.
//
// A read's bytes are this object's copy, valid until the next read (not
// merely the next call: the resolver parses a stat after the NowNs of its
// deadline check, and that call may be a point whose event removes the
// process); a listing's names until the next listing.
//
// Each answer is hashed: answers_hash() is a rolling hash of every call and
// result so far, which with the model's hash and the clock decides what the
// rest of the run does (the resolver is a function of what it was answered).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/evidence.h"
#include "explore/events.h"
#include "explore/host_model.h"
#include "explore/oracle.h"

namespace proctape::explore {

// One call as made: what `proctape minimize` matches a reduced run's calls
// against the original run's by (explore/minimize.h).
struct CallKey {
  int op = 0;  // 1 list, 2 read, 3 exe, 4 path, 5 now, 6 sleep
  std::int64_t pid = 0;
  int file = 0;
  bool operator==(const CallKey&) const = default;
};

// The most calls one run answers (docs/explore.md, "Bounds of a whole
// run"): past it the run is cut (cut()): its calls fail as a stopped run's
// do, and its verdict is no verdict. So one run costs bounded memory and
// time whatever the recorded request's deadline (an hour of 100 ms retries
// on a large host is some 10^8 calls), and a derived recording of a run
// holds fewer observations than a file may (docs/format.md section 7,
// kMaxObservations).
inline constexpr std::uint64_t kMaxRunCalls = 1'000'000;

class ModelEvidence : public Evidence {
 public:
  // `model` is changed by the history's events; `ctx` and `history` must
  // outlive this object. Exec events' earlier states are applied now.
  ModelEvidence(HostModel* model, const EventContext* ctx, const History* history,
                std::int64_t scan_ns);

  void SetAttestedPath(std::string path, Identity identity);
  // Called at each point after its events: false stops the run.
  std::function<bool(std::uint64_t point)> at_point;
  // Keep the hash of each answer (answer_hashes()).
  bool keep_answers = false;
  // Keep every call's key (calls_made()).
  bool keep_calls = false;
  // A reduced run (explore/minimize.h): the history's points are those of
  // `original`, the calls of the run it reduces. Each call is matched to the
  // next original call of the same key, and the events up to that original
  // point are applied before it; a call with no such match stops the run
  // (mismatched()). applied_at() then holds each event's point in this run.
  const std::vector<CallKey>* original = nullptr;

  std::uint64_t calls() const { return calls_; }
  // Names the run's listings listed, all together (explore/bound.h's steps).
  std::uint64_t names_listed() const { return names_listed_; }
  std::int64_t now() const { return now_; }
  bool stopped() const { return stopped_; }
  bool cut() const { return cut_; }  // stopped at kMaxRunCalls
  std::uint64_t answers_hash() const { return answers_; }
  const std::vector<std::uint64_t>& answer_hashes() const { return answer_hashes_; }
  // What the run read of `pid` since its last listing (explore/oracle.h).
  PidReads ReadsOf(std::int64_t pid) const;
  // Events of the history applied so far, and those that could not happen
  // where the history put them.
  std::size_t applied() const { return next_event_; }
  bool mismatched() const { return mismatched_; }
  const std::vector<CallKey>& calls_made() const { return calls_made_; }
  const std::vector<std::uint64_t>& applied_at() const { return applied_at_; }
  std::size_t failed() const { return failed_; }

  ListResult ListPids(std::uint64_t bound) override;
  ReadResult ReadFile(std::int64_t pid, ProcFile file, std::uint64_t bound) override;
  Identity ExeIdentity(std::int64_t pid) override;
  Identity PathIdentity(const std::string& path) override;
  std::int64_t NowNs() override;
  void SleepUntil(std::int64_t mono_ns) override;

 private:
  // Applies the events at the current point and asks at_point; false when
  // the run is stopped.
  bool Point(CallKey key);
  void Answered(std::uint64_t h);

  HostModel* model_;
  const EventContext* ctx_;
  const History* history_;
  std::int64_t scan_ns_;
  std::int64_t now_;
  std::uint64_t calls_ = 0;
  std::uint64_t names_listed_ = 0;
  std::size_t next_event_ = 0;
  std::size_t failed_ = 0;
  bool stopped_ = false;
  bool cut_ = false;
  bool mismatched_ = false;
  std::size_t cursor_ = 0;  // into *original
  std::vector<CallKey> calls_made_;
  std::vector<std::uint64_t> applied_at_;
  std::uint64_t answers_ = kFnvStart;
  std::vector<std::uint64_t> answer_hashes_;
  std::vector<std::string> names_;  // the last listing, which its names view
  std::string read_;                // the last read's bytes, which its view shows
  struct PidRead {
    std::uint64_t point;
    std::int64_t pid;
    bool stat;
  };
  std::optional<std::uint64_t> listing_;  // the last listing's point
  std::vector<PidRead> reads_;            // every read of a pid's file since it
  std::optional<std::string> attested_path_;
  Identity attested_;
};

}  // namespace proctape::explore
