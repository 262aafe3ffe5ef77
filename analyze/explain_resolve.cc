// SPDX-License-Identifier: Apache-2.0
#include "analyze/explain_resolve.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analyze/explain.h"
#include "analyze/explain_candidate.h"
#include "core/checked.h"
#include "core/proc_parse.h"
#include "proto/convert.h"
#include "proto/summary.h"

namespace proctape::explain {
namespace {

// Any integer, in decimal.
template <typename T>
std::string Num(T v) {
  return std::to_string(v);
}

bool IsScanStatus(v1::Verdict::Status s) {
  switch (s) {
    case v1::Verdict::UNREADABLE:
    case v1::Verdict::ENTRY_BOUND:
    case v1::Verdict::DEADLINE:
    case v1::Verdict::BYTE_BUDGET:
    case v1::Verdict::MALFORMED_RECORD:
    case v1::Verdict::DUPLICATE_RECORD:
    case v1::Verdict::NODE_BOUND:
    case v1::Verdict::FILE_BOUND: return true;
    default: return false;
  }
}

// Whether the resolver's retry loop ran out (NoMatch): NO_MATCH, or
// TOKEN_MISMATCH without a deciding file (the at-once one names environ).
bool RanOut(const v1::Verdict& v) {
  return v.status() == v1::Verdict::NO_MATCH ||
         (v.status() == v1::Verdict::TOKEN_MISMATCH && v.file() == v1::PROC_FILE_UNSPECIFIED);
}

// The match whose confirmation the deadline cut (docs/resolver.md,
// "Retries, deadline and budget": the verdict names it, as the first near
// miss, with rule EXECUTABLE or ANCESTRY), or 0.
std::int64_t CutWhileConfirming(const v1::Verdict& v) {
  if (v.near_misses().empty()) return 0;
  const v1::NearMiss& first = v.near_misses(0);
  const bool confirming =
      first.rule() == v1::NearMiss::EXECUTABLE || first.rule() == v1::NearMiss::ANCESTRY;
  return confirming ? first.pid() : 0;
}

}  // namespace

class ResolveTeller::Attempts {
 public:
  Attempts(const Request& request, const TokenMask& mask, v1::ExplainCheck* out)
      : req_(request), mask_(mask), out_(out) {}

  // The calls are held from the first attempt not yet told (`firsts_`: where
  // each untold attempt starts in `window_`); an attempt that slept is told
  // as soon as the next begins, since nothing of it waits for the verdict.
  void Take(Seen c) {
    if (ignored_) return;
    if (window_.empty() && !started_) {
      // Without the clock reading first, nothing is told (Finish says so).
      if (c.op != Seen::Op::kNow) {
        ignored_ = true;
        return;
      }
      started_ = true;
      start_ = c.ns;
      deadline_ = SaturatingAdd(start_, req_.bounds.deadline_ns);
    }
    if (c.op == Seen::Op::kList) {
      const std::size_t j = window_.size();
      firsts_.push_back(j > 0 && window_[j - 1].op == Seen::Op::kNow ? j - 1 : j);
    }
    window_.push_back(std::move(c));
    if (window_.back().op == Seen::Op::kList) TellRetried();
  }

  std::size_t held() const { return window_.size(); }

  void Finish(const v1::Verdict& verdict, const Unheld* unheld) {
    verdict_ = &verdict;
    unheld_ = unheld;
    if (!started_) {
      out_->set_ended_by(unheld_ != nullptr ? "no attempt was answered: " + unheld_->said
                         : verdict_->status() == v1::Verdict::INVALID_REQUEST
                             ? "the request is invalid: the resolver made no call"
                             : "the resolver made no call the tape answered");
      return;
    }
    for (std::size_t k = 0; k < firsts_.size(); ++k) {
      const std::size_t end = k + 1 < firsts_.size() ? firsts_[k + 1] : window_.size();
      Attempt(++told_, firsts_[k], end, k + 1 == firsts_.size());
    }
    EndedBy();
  }

 private:
  // Tells the attempts before the one just begun that ended in the retry
  // wait, and lets their calls go.
  void TellRetried() {
    std::size_t told = 0;
    while (told + 1 < firsts_.size() && Slept(firsts_[told], firsts_[told + 1])) {
      Attempt(++told_, firsts_[told], firsts_[told + 1], false);
      ++told;
    }
    if (told == 0) return;
    const std::size_t from = firsts_[told];
    window_.erase(window_.begin(), window_.begin() + static_cast<std::ptrdiff_t>(from));
    firsts_.erase(firsts_.begin(), firsts_.begin() + static_cast<std::ptrdiff_t>(told));
    for (std::size_t& f : firsts_) f -= from;
  }

  bool Slept(std::size_t first, std::size_t end) const {
    for (std::size_t j = first; j < end; ++j) {
      if (window_[j].op == Seen::Op::kSleep) return true;
    }
    return false;
  }

  void Attempt(std::uint32_t index, std::size_t first, std::size_t end, bool last) {
    v1::ExplainAttempt* a = out_->add_attempts();
    a->set_index(index);
    a->set_start_offset_ns(static_cast<double>(
        window_[first].op == Seen::Op::kNow ? SaturatingSub(window_[first].ns, start_) : 0));
    a->set_first_observation(Count32(window_[first].index));
    a->set_observation_count(Count32(window_[end - 1].index - window_[first].index + 1));

    ScanRecords scanned(window_);
    std::vector<std::int64_t> order;
    std::vector<CandidateCalls> where;
    bool scanning = true;
    bool slept = false;
    std::size_t last_read = kNoCall;
    int confirming = -1;                       // the candidate whose executable was taken
    std::map<std::int64_t, int> candidate_of;  // pid -> its first candidate
    for (std::size_t j = first; j < end; ++j) {
      const Seen& c = window_[j];
      switch (c.op) {
        case Seen::Op::kList:
          a->set_list_err(c.list.err);
          a->set_list_truncated(c.list.truncated);
          a->set_listed(Count32(c.list.listed));
          if (c.list.stopped != ListStop::kNone) {
            a->set_list_stopped(c.list.stopped == ListStop::kBytes ? "byte budget" : "deadline");
          }
          last_read = j;
          break;
        case Seen::Op::kRead:
          last_read = j;
          if (c.file == ProcFile::kStat && scanning) {
            if (Vanished(c.read.err)) {
              a->add_vanished_before_stat(Int32(c.pid));
              break;
            }
            if (scanned.Add(j)) {
              order.push_back(c.pid);
              a->set_records(a->records() + 1);
            }
          } else if (c.file == ProcFile::kStat && confirming < 0 && a->candidates_size() > 0 &&
                     a->candidates().rbegin()->pid() == c.pid &&
                     a->candidates().rbegin()->environ_read()) {
            // The stat re-read after an empty environ (exited, or no token?).
            *a->mutable_candidates(a->candidates_size() - 1)->mutable_environ_recheck() =
                StatOf(c.pid, c.read.view());
            where.back().environ_recheck = j;
          } else if (c.file == ProcFile::kStat && confirming >= 0) {
            RecordReread(c, scanned.Stat(c.pid), req_, a->mutable_candidates(confirming));
            where[static_cast<std::size_t>(confirming)].ancestry.push_back(j);
          } else if (c.file == ProcFile::kCmdline) {
            if (scanning) TellTree(req_, scanned, order, a);
            scanning = false;
            candidate_of.emplace(c.pid, a->candidates_size());
            InspectCandidate(c, scanned.Stat(c.pid), mask_, a->add_candidates());
            where.emplace_back().cmdline = j;
          } else if (c.file == ProcFile::kEnviron && a->candidates_size() > 0 &&
                     a->candidates().rbegin()->pid() == c.pid) {
            RecordEnviron(c.read.view(), req_, a->mutable_candidates(a->candidates_size() - 1));
            where.back().environ = j;
          }
          break;
        case Seen::Op::kExe: {
          last_read = j;
          // The first candidate of that pid, found by pid (not by a walk of
          // the candidates per read: a host may hold 65,536 of them).
          auto listed = candidate_of.find(c.pid);
          if (listed == candidate_of.end()) break;
          const int i = listed->second;
          v1::ExplainCandidate* m = a->mutable_candidates(i);
          m->set_exe_read(true);
          *m->mutable_exe() = ToSummary(ToProto(c.identity));
          where[static_cast<std::size_t>(i)].exe = j;
          confirming = i;
          break;
        }
        case Seen::Op::kSleep:
          slept = true;
          a->set_next_offset_ns(static_cast<double>(SaturatingSub(c.ns, start_)));
          break;
        case Seen::Op::kNow:
        case Seen::Op::kPath: break;
      }
    }
    // The replay diverged in this attempt: it is told up to the last call
    // the tape answered, and nothing of the resolver's conclusion past it.
    const bool unheld = last && !slept && unheld_ != nullptr;
    // The deadline passed during this last attempt after earlier ones
    // completed (the resolver's last clock reading is past it): the verdict
    // is the earlier attempts' diagnosis, this attempt was cut.
    cut_ = last && !slept && !unheld && RanOut(*verdict_) &&
           window_[end - 1].op == Seen::Op::kNow && window_[end - 1].ns > deadline_;
    bool ran_out = last && !unheld && RanOut(*verdict_) && !cut_;
    bool final_attempt = last && !slept && !ran_out && !cut_ && !unheld;
    bool scan_done =
        !scanning || (unheld ? ScannedBefore(*unheld_->call)
                             : !cut_ && (!final_attempt || !IsScanStatus(verdict_->status())));
    a->set_scan_complete(scan_done);
    if (scanning && scan_done) TellTree(req_, scanned, order, a);

    Stop stop;
    if (unheld && last_read != kNoCall && !MovedOn(*unheld_->call, window_[last_read].pid)) {
      stop = {last_read, v1::ExplainCandidate::UNANSWERED,
              "the tape does not hold what the resolver asked next"};
    } else if (cut_ || (final_attempt && (verdict_->status() == v1::Verdict::DEADLINE ||
                                          verdict_->status() == v1::Verdict::BYTE_BUDGET))) {
      stop = {last_read, v1::ExplainCandidate::STOPPED,
              cut_ ? "DEADLINE" : v1::Verdict::Status_Name(verdict_->status())};
    }
    for (int i = 0; i < a->candidates_size(); ++i) {
      DecideCandidate(where[static_cast<std::size_t>(i)], stop, req_, a->mutable_candidates(i));
    }
    if (!scanning) {
      std::set<std::int64_t> inspected;
      for (const auto& c : a->candidates()) inspected.insert(c.pid());
      for (std::int64_t pid : a->beneath_root()) {
        if (!inspected.count(pid)) a->add_not_inspected(Int32(pid));
      }
    }
    if (unheld) {
      a->set_outcome(v1::ExplainAttempt::UNANSWERED);
      a->set_summary(unheld_->said);
    } else if (slept) {
      a->set_outcome(v1::ExplainAttempt::RETRY);
      a->set_summary(RetryReason(*a) + ": retried");
      last_retry_reason_ = RetryReason(*a);
    } else if (cut_) {
      a->set_outcome(v1::ExplainAttempt::CUT);
      const std::int64_t match = CutWhileConfirming(*verdict_);
      a->set_summary(
          "the deadline at " + Offset(deadline_) + " passed during this attempt" +
          (match != 0
               ? ", while confirming pid " + Num(match) + ", its only match: the verdict names it"
               : ": the verdict keeps the diagnosis of attempt " + std::to_string(index - 1)));
    } else if (ran_out) {
      a->set_outcome(v1::ExplainAttempt::LAST);
      a->set_summary(RetryReason(*a) + ": no time for another attempt");
    } else {
      a->set_outcome(v1::ExplainAttempt::FINAL);
      std::string summary = v1::Verdict::Status_Name(verdict_->status());
      if (!verdict_->detail().empty()) summary += ": " + verdict_->detail();
      if (verdict_->matches_size() > 0) {
        summary += " (pids";
        for (std::int64_t m : verdict_->matches()) summary.append(" ").append(Num(m));
        summary += ")";
      }
      a->set_summary(summary);
    }
    if (last) {
      last_start_ = window_[first].op == Seen::Op::kNow ? window_[first].ns : start_;
      last_outcome_ = a->outcome();
    }
  }

  // The resolver's reason for another attempt, from the candidates.
  static std::string RetryReason(const v1::ExplainAttempt& a) {
    for (const auto& k : a.candidates()) {
      if (k.why() == v1::ExplainCandidate::VANISHED) {
        return "pid " + Num(k.pid()) + " vanished during inspection";
      }
      if (k.why() == v1::ExplainCandidate::DEAD) return "pid " + Num(k.pid()) + " is dead";
    }
    for (const auto& k : a.candidates()) {
      if (k.why() == v1::ExplainCandidate::OTHER_TOKEN) {
        return "pid " + Num(k.pid()) + " matches argv but carries another token";
      }
      if (k.why() == v1::ExplainCandidate::NO_TOKEN) {
        return "pid " + Num(k.pid()) + " matches argv but carries no token";
      }
    }
    return "no process beneath the root matches";
  }

  void EndedBy() {
    const int n = out_->attempts_size();
    const std::string at = n == 0 ? "" : "attempt " + std::to_string(n);
    std::string ended;
    if (unheld_ != nullptr && n == 0) {
      ended = "no attempt was answered: " + unheld_->said;
    } else if (unheld_ != nullptr) {
      ended = (last_outcome_ == v1::ExplainAttempt::UNANSWERED ? "the replay stopped during "
                                                               : "the replay stopped after ") +
              at + ": " + unheld_->said;
    } else if (n == 0) {
      ended = "no attempt was made";
    } else if (last_outcome_ == v1::ExplainAttempt::LAST) {
      ended = "no match by the deadline: the next attempt would start at " +
              Offset(SaturatingAdd(last_start_, req_.bounds.retry_ns)) +
              ", after the deadline at " + Offset(deadline_);
    } else if (last_outcome_ == v1::ExplainAttempt::CUT && CutWhileConfirming(*verdict_) != 0) {
      ended = "the deadline at " + Offset(deadline_) + " passed during " + at +
              " while confirming pid " + Num(CutWhileConfirming(*verdict_)) +
              ", its only match, after " + std::to_string(n - 1) +
              " completed attempts without a match: " + StatusText(verdict_->status());
    } else if (last_outcome_ == v1::ExplainAttempt::CUT) {
      ended = "the deadline at " + Offset(deadline_) + " passed during " + at + ", after " +
              std::to_string(n - 1) + " completed attempts without a match (" + last_retry_reason_ +
              "): " + v1::Verdict::Status_Name(verdict_->status());
    } else if (last_outcome_ == v1::ExplainAttempt::RETRY) {
      ended = "the tape ends after " + at;
    } else {
      switch (verdict_->status()) {
        case v1::Verdict::RESOLVED: ended = at + " confirmed the only match"; break;
        case v1::Verdict::DEADLINE:
          ended = "the deadline at " + Offset(deadline_) + " passed during " + at;
          break;
        case v1::Verdict::BYTE_BUDGET:
          ended = "the byte budget of " + Plural(req_.bounds.byte_budget, "byte", "bytes") +
                  " ran out during " + at;
          break;
        case v1::Verdict::ENTRY_BOUND:
        case v1::Verdict::NODE_BOUND:
        case v1::Verdict::DEPTH_BOUND:
        case v1::Verdict::FILE_BOUND:
          ended = "a bound ended " + at + ": " + v1::Verdict::Status_Name(verdict_->status());
          break;
        default:
          ended = at + " decided at once: " + v1::Verdict::Status_Name(verdict_->status());
          break;
      }
    }
    out_->set_ended_by(ended);
  }

  std::string Offset(std::int64_t t) const { return FormatOffset(SaturatingSub(t, start_)); }

  const Request& req_;
  const TokenMask& mask_;
  v1::ExplainCheck* out_;
  const v1::Verdict* verdict_ = nullptr;  // known at Finish, for the last attempt
  const Unheld* unheld_ = nullptr;
  std::vector<Seen> window_;
  std::vector<std::size_t> firsts_;
  bool started_ = false;  // the first call was the clock reading
  bool ignored_ = false;  // it was not: nothing is told
  std::uint32_t told_ = 0;
  std::int64_t start_ = 0;
  std::int64_t deadline_ = 0;
  std::int64_t last_start_ = 0;
  v1::ExplainAttempt::Outcome last_outcome_ = v1::ExplainAttempt::OUTCOME_UNSPECIFIED;
  bool cut_ = false;               // the attempt being told was cut by the deadline
  std::string last_retry_reason_;  // of the last attempt that was retried
};

ResolveTeller::ResolveTeller(const Request& request, const TokenMask& mask, v1::ExplainCheck* out)
    : attempts_(std::make_unique<Attempts>(request, mask, out)) {}
ResolveTeller::~ResolveTeller() = default;
void ResolveTeller::Take(Seen call) { attempts_->Take(std::move(call)); }
void ResolveTeller::Finish(const v1::Verdict& verdict, const Unheld* unheld) {
  attempts_->Finish(verdict, unheld);
}

std::size_t ResolveTeller::held() const { return attempts_->held(); }

}  // namespace proctape::explain
