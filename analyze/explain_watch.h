// SPDX-License-Identifier: Apache-2.0
// What `proctape explain` watches (internal to analyze/explain*.cc): every
// call the replayed resolver makes, kept with the tape's answer, the stat
// record told of a read, and an attempt's scan: its records and the tree
// beneath the root read off them. Nothing here decides anything; the resolver does,
// and the explainer reads what it did from these calls.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/evidence.h"
#include "core/resolver.h"
#include "explain.pb.h"
#include "replay/tape_evidence.h"

namespace proctape::explain {

// A read that failed because the process exited: ENOENT or ESRCH.
bool Vanished(int err);

// What is told of a listing: how many names it gave, not the names (a
// ListResult's names are views valid only until the next call:
// core/evidence.h; a host's 10,000 would be copied at every attempt).
struct SeenList {
  int err = 0;
  std::size_t listed = 0;
  bool truncated = false;
  ListStop stopped = ListStop::kNone;
};

// One call the resolver made and the tape's answer, copied: kept past the
// call.
struct Seen {
  enum class Op { kList, kRead, kExe, kPath, kNow, kSleep };
  Op op = Op::kNow;
  std::int64_t pid = 0;
  ProcFile file = ProcFile::kStat;
  SeenList list;
  StoredRead read;
  Identity identity;
  std::int64_t ns = 0;      // kNow: the reading; kSleep: the target
  std::uint64_t index = 0;  // within the check's tape
};

// The decorator: every call goes to `tape` unchanged, and is handed with its
// answer, in order, to `told` (which keeps what it needs of it: a long
// resolution is told as it runs, not held whole). Calls made after the
// replay diverged are not answers of the tape and are not handed on: only
// the first of them, the call the tape does not hold, is kept. `tape` must
// outlive every call.
class WatchingEvidence : public Evidence {
 public:
  WatchingEvidence(TapeEvidence& tape, std::function<void(Seen)> told)
      : tape_(tape), told_(std::move(told)) {}
  WatchingEvidence(const WatchingEvidence&) = delete;
  WatchingEvidence& operator=(const WatchingEvidence&) = delete;

  // The call the tape did not hold (its answer is the divergence's, not the
  // tape's), or null when the replay did not diverge.
  const Seen* unheld() const { return unheld_ ? &*unheld_ : nullptr; }

  ListResult ListPids(std::uint64_t bound) override;
  ReadResult ReadFile(std::int64_t pid, ProcFile file, std::uint64_t bound) override;
  Identity ExeIdentity(std::int64_t pid) override;
  Identity PathIdentity(const std::string& path) override;
  std::int64_t NowNs() override;
  void SleepUntil(std::int64_t mono_ns) override;

 private:
  // Hands `s` on (numbered within the tape), or only holds it when the tape
  // has diverged.
  void Keep(Seen s);

  TapeEvidence& tape_;
  std::function<void(Seen)> told_;
  std::optional<Seen> unheld_;
};

// What the call the tape did not hold (`asked`: WatchingEvidence::unheld())
// shows of the resolver's run: whether the attempt's scan was over before it
// (it inspects candidates, by their cmdline, or sleeps only after the scan;
// any other call may have been one of the scan's), and whether it was done
// with the process of its last read `pid` (it sleeps, lists, or inspects
// another; not after that process's next read, or a clock reading).
bool ScannedBefore(const Seen& asked);
bool MovedOn(const Seen& asked, std::int64_t pid);

// The record told of the stat read `r` of /proc/`pid`: the errno, whether it
// was cut at its bound, why it does not parse (a field 1 other than `pid`
// too), or its comm, state, parent and start tick.
v1::ExplainStat StatOf(std::int64_t pid, const ReadResult& r);

// The records of an attempt's scan, by pid: where each stat read that parses
// as its pid's record is among the attempt's calls, and its parent. Its
// ExplainStat (StatOf) is made only when it is told (the root, a candidate, a
// link of an ancestry re-read), not for each of a host's processes.
class ScanRecords {
 public:
  // `calls` must hold every call added, unchanged, while this lives.
  explicit ScanRecords(const std::vector<Seen>& calls) : calls_(calls) {}
  // The stat read `calls[j]`: kept when it parses as the record of its pid
  // (StatOf would say parsed) and the scan holds none of that pid yet.
  bool Add(std::size_t j);
  bool Has(std::int64_t pid) const { return at_.count(pid) != 0; }
  std::int64_t Parent(std::int64_t pid) const { return at_.at(pid).ppid; }
  // The record of `pid` as StatOf tells it, or null when the scan has none.
  const v1::ExplainStat* Stat(std::int64_t pid);

 private:
  struct Scan {
    std::size_t call = 0;
    std::int64_t ppid = 0;
  };
  const std::vector<Seen>& calls_;
  std::unordered_map<std::int64_t, Scan> at_;
  std::unordered_map<std::int64_t, v1::ExplainStat> told_;
};

// Tells `a` the root's record and the strict descendants of the root among
// `scanned` (`order`: their pids in listing order), once the scan is over.
// The descendants are told only when the root is the fingerprinted one
// (`request`'s start tick): those are the processes the resolver inspects.
void TellTree(const Request& request, ScanRecords& scanned, const std::vector<std::int64_t>& order,
              v1::ExplainAttempt* a);

}  // namespace proctape::explain
