// SPDX-License-Identifier: Apache-2.0
#include "explore/minimize.h"

#include <algorithm>
#include <unordered_set>
#include <vector>

#include "core/proc_parse.h"
#include "explore/model_evidence.h"

namespace proctape::explore {
namespace {

class Reducer {
 public:
  Reducer(const CheckSetup& setup, const History& history,
          const std::function<void(std::uint64_t)>& progress, RunBound* bound)
      : setup_(setup), history_(history), progress_(progress), bound_(bound) {}

  // Null, with *why, when the target cannot be had.
  std::unique_ptr<Minimized> Go(std::string* why) {
    auto out = std::make_unique<Minimized>();
    {
      HostModel m = setup_.initial;
      ModelEvidence ev(&m, &setup_.ctx, &history_, setup_.scan_ns);
      if (!setup_.liveness) ev.SetAttestedPath(setup_.exe_path, setup_.request.exe);
      ev.keep_calls = true;
      out->target = RunCheck(ev, setup_, Checker{});
      Charge(m.listing().size() + ev.calls() + ev.names_listed());
      original_ = ev.calls_made();
      out->calls_before = ev.calls();
      if (ev.cut()) {
        *why = "its run answers more than " + std::to_string(kMaxRunCalls) +
               " calls (the most one run answers: docs/explore.md, \"Bounds of a whole run\"); "
               "nothing to keep";
        return nullptr;
      }
      if (ev.failed() > 0 || ev.applied() != history_.size()) {
        *why = "its events cannot happen on the host model of its frame";
        return nullptr;
      }
    }
    std::string recorded;
    if (!SameAsRecorded(setup_, out->target, &recorded)) {
      *why = "the check re-run on the host model of its frame gives " +
             OutcomeName(setup_, out->target) + ", not the recorded " + recorded +
             ": the verdict came from what the frame does not hold (a change between two "
             "frames); nothing to keep";
      return nullptr;
    }
    target_ = out->target;
    std::vector<std::int64_t> pids;
    for (std::int64_t pid : setup_.initial.listing()) {
      if (setup_.initial.Find(pid) != nullptr &&
          std::find(pids.begin(), pids.end(), pid) == pids.end()) {
        pids.push_back(pid);
      }
    }
    out->processes_before = pids.size();
    pids = Ddmin(pids);
    HostModel model = Keep(pids);
    for (std::int64_t pid : pids) TrimFiles(pid, &model);
    out->processes_after = pids.size();

    out->reduced = WithModel(setup_, std::move(model));
    HostModel m = out->reduced->initial;
    ModelEvidence ev(&m, &out->reduced->ctx, &history_, out->reduced->scan_ns);
    if (!setup_.liveness) ev.SetAttestedPath(setup_.exe_path, setup_.request.exe);
    ev.original = &original_;
    RunCheck(ev, *out->reduced, Checker{});
    out->calls_after = ev.calls();
    for (std::size_t i = 0; i < history_.size(); ++i) {
      out->history.push_back(Scheduled{ev.applied_at()[i], history_[i].event});
    }
    out->runs = runs_;
    if (Spent()) out->stopped = bound_->stop();
    return out;
  }

 private:
  HostModel Keep(const std::vector<std::int64_t>& pids) const {
    return setup_.initial.Subset(std::unordered_set<std::int64_t>(pids.begin(), pids.end()));
  }

  void Charge(std::uint64_t steps) {
    if (bound_ != nullptr) bound_->Steps(steps);
  }
  bool Spent() { return bound_ != nullptr && bound_->Spent(); }

  // The check on `model`, under the original run's events: the target?
  // (Not once the bound is reached: nothing is tried then.)
  bool Holds(HostModel model) {
    if (Spent()) return false;
    ++runs_;
    if (bound_ != nullptr) bound_->Run();
    if (progress_) progress_(runs_);
    // The candidate cut from the whole model, its context, its copy.
    Charge(setup_.initial.listing().size() + 2 * model.listing().size());
    std::unique_ptr<CheckSetup> s = WithModel(setup_, std::move(model));
    HostModel m = s->initial;
    ModelEvidence ev(&m, &s->ctx, &history_, s->scan_ns);
    if (!setup_.liveness) ev.SetAttestedPath(setup_.exe_path, setup_.request.exe);
    ev.original = &original_;
    CheckOutcome got = RunCheck(ev, *s, Checker{});
    Charge(ev.calls() + ev.names_listed());
    return !ev.mismatched() && ev.failed() == 0 && ev.applied() == history_.size() &&
           SameVerdict(setup_, got, target_);
  }

  // ddmin; once the bound is reached it returns what it holds (a host that
  // keeps the verdict, not a minimal one).
  std::vector<std::int64_t> Ddmin(std::vector<std::int64_t> items) {
    std::size_t n = 2;
    while (items.size() >= 2 && !Spent()) {
      const std::size_t chunk = (items.size() + n - 1) / n;
      std::vector<std::vector<std::int64_t>> parts;
      for (std::size_t i = 0; i < items.size(); i += chunk) {
        parts.emplace_back(
            items.begin() + static_cast<std::ptrdiff_t>(i),
            items.begin() + static_cast<std::ptrdiff_t>(std::min(i + chunk, items.size())));
      }
      bool reduced = false;
      for (const auto& part : parts) {
        if (Spent()) break;
        if (Holds(Keep(part))) {
          items = part;
          n = 2;
          reduced = true;
          break;
        }
      }
      if (!reduced && parts.size() > 2) {
        for (std::size_t p = 0; p < parts.size() && !reduced && !Spent(); ++p) {
          std::vector<std::int64_t> rest;
          for (std::size_t q = 0; q < parts.size(); ++q) {
            if (q != p) rest.insert(rest.end(), parts[q].begin(), parts[q].end());
          }
          if (Holds(Keep(rest))) {
            items = rest;
            n = std::max<std::size_t>(n - 1, 2);
            reduced = true;
          }
        }
      }
      if (reduced) continue;
      if (n >= items.size()) break;
      n = std::min(items.size(), 2 * n);
    }
    if (items.size() == 1 && Holds(Keep({}))) items.clear();
    return items;
  }

  // Drops the environ entries of `pid` other than the token variable's,
  // where the verdict stays. (Every file read stays a record, as a capture
  // holds it: a frame without a process's status is not one a capture makes.)
  void TrimFiles(std::int64_t pid, HostModel* model) {
    const ModelProcess* p = model->Find(pid);
    if (p == nullptr || Spent()) return;
    if (setup_.liveness || !p->environ || !p->environ->ok()) return;
    std::string kept;
    const std::string prefix = setup_.request.token_var + "=";
    for (std::string_view e : SplitNul(p->environ->data)) {
      if (e.substr(0, prefix.size()) == prefix) kept.append(e).push_back('\0');
    }
    if (kept.size() == p->environ->data.size()) return;
    StoredRead env = *p->environ;
    env.data = kept;
    env.truncated = false;
    HostModel trial = *model;
    if (trial.SetFile(pid, ProcFile::kEnviron, env) && Holds(trial)) *model = trial;
  }

  const CheckSetup& setup_;
  const History& history_;
  const std::function<void(std::uint64_t)>& progress_;
  RunBound* bound_;
  std::vector<CallKey> original_;
  CheckOutcome target_;
  std::uint64_t runs_ = 0;
};

}  // namespace

std::unique_ptr<Minimized> Minimize(const CheckSetup& setup, const History& history,
                                    const std::function<void(std::uint64_t runs)>& progress,
                                    Failure* failure, RunBound* bound) {
  std::string why;
  std::unique_ptr<Minimized> done = Reducer(setup, history, progress, bound).Go(&why);
  if (!done) *failure = Failure(FailureKind::kVerdictChanged, why);
  return done;
}

}  // namespace proctape::explore
