// SPDX-License-Identifier: Apache-2.0
#include "explore/search.h"

#include <algorithm>
#include <numeric>
#include <random>

#include "explore/key_set.h"
#include "explore/model_evidence.h"

namespace proctape::explore {

namespace {

std::uint64_t Key(std::uint64_t point, std::uint64_t answers, std::uint64_t model,
                  std::int64_t clock) {
  return Mix64(Mix64(Mix64(Mix64(kFnvStart, point), answers), model),
               static_cast<std::uint64_t>(clock));
}

struct RunResult {
  enum Kind { kRun, kPruned, kNotApplicable, kCut } kind = kRun;  // kCut: at kMaxRunCalls
  CheckOutcome outcome;
  Judgement judgement;
  std::uint64_t calls = 0;
  std::vector<std::uint64_t> answers;
  // Calls from the last event's point on answered as the parent's were.
  std::uint64_t window = 0;
};

// Whether the same event one point later is the same history when the call
// between was answered as without it: the event changes only the model
// (not the clock, not the run before its point, as an exec's earlier state does).
bool Shiftable(const Event& e) {
  return !IsExec(e.kind) && e.kind != EventKind::kTimeRetry && e.kind != EventKind::kTimeDeadline;
}

// Histories known to be pruned without a run: for an event, the points
// [from, through] after a run that answered as its parent did.
struct Skips {
  std::map<std::pair<int, std::int64_t>, std::pair<std::uint64_t, std::uint64_t>> by_event;
  bool Covers(const Scheduled& s) const {
    auto it = by_event.find({static_cast<int>(s.event.kind), s.event.pid});
    return it != by_event.end() && s.point >= it->second.first && s.point <= it->second.second;
  }
  void Note(const Scheduled& s, std::uint64_t window) {
    if (!Shiftable(s.event) || window == 0) return;
    by_event[{static_cast<int>(s.event.kind), s.event.pid}] = {s.point + 1, s.point + window};
  }
};

class Searcher {
 public:
  Searcher(const CheckSetup& setup, const SearchOptions& options) : s_(setup), o_(options) {
    if (std::optional<StatFields> root = setup.initial.Stat(setup.request.root_pid)) {
      initial_root_start_ = root->start_ticks;
    }
  }

  // `keys`: prune against (and add to) the explored keys.
  RunResult Run(const History& h, const std::vector<std::uint64_t>* parent, bool keys) {
    RunResult out;
    // Assigned, not constructed: the copy reuses the last run's nodes and
    // strings instead of allocating them again.
    HostModel& m = scratch_;
    m = s_.initial;
    Charge(m.listing().size());
    ModelEvidence ev(&m, &s_.ctx, &h, s_.scan_ns);
    if (!s_.liveness) ev.SetAttestedPath(s_.exe_path, s_.request.exe);
    ev.keep_answers = true;
    const std::uint64_t last = h.empty() ? 0 : h.back().point;
    bool window = keys && !h.empty();
    ev.at_point = [&](std::uint64_t k) {
      if (ev.failed() > 0) {
        out.kind = RunResult::kNotApplicable;
        return false;
      }
      if (!window || k < last) return true;
      if (k > last && parent != nullptr) {
        const std::vector<std::uint64_t>& a = ev.answer_hashes();
        if (k - 1 >= parent->size() || a[k - 1] != (*parent)[k - 1]) {
          window = false;  // answered otherwise than its parent: keys end here
          return true;
        }
      }
      const std::uint64_t key = Key(k, ev.answers_hash(), m.hash(), ev.now());
      if (keys_.contains(key)) {
        out.kind = RunResult::kPruned;
        return false;
      }
      if (keys_.size() < kMaxKeys) keys_.insert(key);
      return true;
    };
    out.outcome = RunCheck(ev, s_, o_.checker);
    Charge(ev.calls() + ev.names_listed());
    if (ev.cut()) out.kind = RunResult::kCut;
    out.calls = ev.calls();
    out.answers = ev.answer_hashes();
    if (parent != nullptr && !h.empty()) {
      const std::size_t end = std::min(out.answers.size(), parent->size());
      for (std::size_t j = last; j < end && out.answers[j] == (*parent)[j]; ++j) ++out.window;
    }
    if (ev.stopped()) return out;
    if (s_.liveness) {
      const std::int64_t pid = s_.recorded.liveness().pid();
      if (out.outcome.liveness.status == LivenessStatus::kAlive) {
        const PidReads reads = ev.ReadsOf(pid);
        out.judgement = JudgeLiveness(TruthAt(s_.ctx, h, reads.last_stat.value_or(0)), pid,
                                      s_.recorded.liveness().start_ticks(), out.outcome.liveness);
      }
    } else if (out.outcome.verdict.resolved()) {
      Charge(m.listing().size());  // the truths the oracle builds
      out.judgement = JudgeResolutionRun(s_.ctx, h, out.outcome.request, initial_root_start_,
                                         out.outcome.verdict, ev.ReadsOf(out.outcome.verdict.pid));
    }
    return out;
  }

  void Note(const History& h, const RunResult& r, SearchReport* report) {
    if (r.kind == RunResult::kPruned) {
      ++report->pruned;
      return;
    }
    if (r.kind == RunResult::kNotApplicable) {
      ++report->not_applicable;
      return;
    }
    ++report->run;
    const std::string outcome = OutcomeName(s_, r.outcome);
    ++report->by_kind[KindsOf(h)][outcome];
    ++report->by_outcome[outcome];
    report->first_by_outcome.emplace(outcome, h);
    if (r.judgement.violation) {
      if (report->violation_count == 0) report->first_violation_after = report->run + 1;
      ++report->violation_count;
      if (report->violations.size() < o_.keep_violations) {
        report->violations.push_back(Violation{h, r.outcome, r.judgement.why});
      }
    }
  }

  // The histories of one level: `base` extended by one event at each point
  // first..points-1, events in Applicable()'s order, never materialized (a
  // 10,000-process recording lists billions). Entry i is point
  // first + i / events, event i % events; an exec event at point 0 or after
  // another exec, and `base`'s own last event at its point, are not entries.
  struct Level {
    History base;
    std::vector<Event> events;
    std::uint64_t first = 0;
    std::uint64_t points = 0;
    bool has_exec = false;
    std::uint64_t size() const { return points > first ? (points - first) * events.size() : 0; }
    bool At(std::uint64_t i, Scheduled* out) const {
      const std::uint64_t k = first + i / events.size();
      const Event& e = events[i % events.size()];
      if (IsExec(e.kind) && (k == 0 || has_exec)) return false;
      if (!base.empty() && k == base.back().point && e == base.back().event) return false;
      *out = Scheduled{k, e};
      return true;
    }
    // The entries (size() less those At() refuses).
    std::uint64_t entries() const {
      std::uint64_t n = size();
      if (n == 0) return 0;
      for (const Event& e : events) {
        if (IsExec(e.kind)) {
          n -= has_exec ? points - first : (first == 0 ? 1 : 0);
        } else if (!base.empty() && e == base.back().event && base.back().point >= first &&
                   base.back().point < points) {
          n -= 1;
        }
      }
      return n;
    }
  };

  Level Extensions(const History& h, std::uint64_t first, std::uint64_t points) {
    Level level;
    level.base = h;
    const HostModel now = TruthAt(s_.ctx, h, h.empty() ? 0 : h.back().point);
    level.events = Applicable(now, s_.ctx, s_.start_ns);
    Charge(now.listing().size() + s_.ctx.targets.size());
    level.first = first;
    level.points = points;
    level.has_exec =
        std::any_of(h.begin(), h.end(), [](const Scheduled& x) { return IsExec(x.event.kind); });
    return level;
  }

  // The order a level is walked in: i itself, or with a seed the bijection
  // i -> (a * i + b) mod n, a and b drawn from --seed N and the level's
  // number (std::mt19937_64), a coprime with n: every entry once, in an
  // order that N decides.
  struct Walk {
    std::uint64_t n = 0, a = 1, b = 0;
    std::uint64_t operator()(std::uint64_t i) const {
      if (a == 1 && b == 0) return i;
      __extension__ using Wide = unsigned __int128;  // a * i may pass 2^64
      return static_cast<std::uint64_t>((static_cast<Wide>(a) * i + b) % n);
    }
  };
  Walk Order(std::uint64_t n) {
    Walk w;
    w.n = n;
    if (!o_.seed || n < 2) return w;
    std::mt19937_64 rng(*o_.seed + level_++);
    do {
      w.a = rng() % n;
    } while (w.a == 0 || std::gcd(w.a, n) != 1);
    w.b = rng() % n;
    return w;
  }

  SearchReport Go() {
    SearchReport report;
    RunResult base = Run({}, nullptr, false);
    report.points = base.calls;
    report.baseline = base.outcome;
    if (base.kind == RunResult::kCut) {  // no verdict to explore around
      report.stopped = Stop::kRunCalls;
      report.baseline_cut = true;
      return report;
    }
    if (base.judgement.violation) {
      report.first_violation_after = 1;
      ++report.violation_count;
      report.violations.push_back(Violation{{}, base.outcome, base.judgement.why});
    }
    std::uint64_t started = 0;
    std::vector<History> survivors;
    RunLevel(Extensions({}, 0, base.calls), base.answers, &started, &report,
             o_.depth >= 2 ? &survivors : nullptr);
    for (const History& h1 : survivors) {
      if (started >= o_.budget || Spent(&report)) {
        // Its pairs are not listed: how many there would be is not known.
        ++report.unextended;
        continue;
      }
      RunResult parent = Run(h1, nullptr, false);
      RunLevel(Extensions(h1, h1.back().point, parent.calls), parent.answers, &started, &report,
               nullptr);
    }
    report.budget_used = started;
    return report;
  }

 private:
  // Runs the histories of one level, in its walk's order: each skipped
  // without a run when a sibling showed it is a shifted duplicate; once the
  // budget (or the whole run's bound) is spent, the entries not walked are
  // counted as left (shifted duplicates among them included). Those that ran
  // to a verdict are added to *survivors (when given).
  void RunLevel(const Level& level, const std::vector<std::uint64_t>& parent_answers,
                std::uint64_t* started, SearchReport* report, std::vector<History>* survivors) {
    Skips skips;
    const Walk walk = Order(level.size());
    std::uint64_t walked = 0;  // entries
    History h = level.base;
    h.emplace_back();
    for (std::uint64_t i = 0; i < level.size(); ++i) {
      Charge(1);
      if (!level.At(walk(i), &h.back())) continue;
      if (*started == o_.budget || Spent(report)) {
        report->left += level.entries() - walked;
        return;
      }
      ++walked;
      if (skips.Covers(h.back())) {
        ++report->pruned;
        ++report->skipped;
        continue;
      }
      ++*started;
      if (o_.bound != nullptr) o_.bound->Run();
      if (o_.progress) o_.progress(*started);
      RunResult r = Run(h, &parent_answers, true);
      if (r.kind == RunResult::kCut) {  // the search ends: its verdict is none
        report->stopped = Stop::kRunCalls;
        report->left += level.entries() - walked;
        return;
      }
      skips.Note(h.back(), r.window);
      Note(h, r, report);
      if (survivors != nullptr && r.kind == RunResult::kRun) survivors->push_back(h);
    }
  }

  void Charge(std::uint64_t steps) {
    if (o_.bound != nullptr) o_.bound->Steps(steps);
  }
  // Whether the whole run's bound is reached (noted in *report).
  bool Spent(SearchReport* report) {
    if (o_.bound == nullptr || !o_.bound->Spent()) return false;
    report->stopped = o_.bound->stop();
    return true;
  }

  const CheckSetup& s_;
  const SearchOptions& o_;
  std::uint64_t initial_root_start_ = 0;
  KeySet keys_;
  HostModel scratch_;  // the model of the run under way
  std::uint64_t level_ = 0;
};

}  // namespace

SearchReport Search(const CheckSetup& setup, const SearchOptions& options) {
  return Searcher(setup, options).Go();
}

std::vector<std::pair<std::string, std::uint64_t>> RarestOutcomes(const SearchReport& report,
                                                                  std::size_t n) {
  std::vector<std::pair<std::string, std::uint64_t>> out(report.by_outcome.begin(),
                                                         report.by_outcome.end());
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.second < b.second; });
  if (out.size() > n) out.resize(n);
  return out;
}

HistoryRun RunHistory(const CheckSetup& setup, const History& history, const Checker& checker) {
  SearchOptions o;
  o.checker = checker;
  Searcher searcher(setup, o);
  RunResult r = searcher.Run(history, nullptr, false);
  return HistoryRun{r.outcome, r.judgement, r.calls};
}

}  // namespace proctape::explore
