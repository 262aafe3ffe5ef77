// SPDX-License-Identifier: Apache-2.0
#include "explore/in_order.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace proctape::explore {
namespace {

std::uint64_t Less(std::uint64_t limit, std::uint64_t used) {
  return limit > used ? limit - used : 0;
}

// One task run speculatively by a worker.
struct Speculation {
  bool done = false;
  std::optional<RunBound> bound;  // its own
  ExploredCheck check;
  MaybeFailure failure;
  std::exception_ptr escaped;  // rethrown on the calling thread, in order
};

// Whether a speculative run stands on `bound` (the whole run's, counting
// everything before it): see explore/in_order.h.
bool Stands(const Speculation& s, const RunBound& bound) {
  if (s.failure) return true;  // it failed before it counted anything
  const RunLimits& limits = bound.limits();
  const Stop stopped = s.check.report.stopped;
  if (stopped == Stop::kRuns || stopped == Stop::kSteps || stopped == Stop::kTime) return false;
  return bound.runs() + s.bound->runs() < limits.runs &&
         bound.steps() + s.bound->steps() < limits.steps;
}

// The workers, and what they found; joined when it goes.
class Workers {
 public:
  Workers(std::size_t tasks, unsigned jobs, const RunBound& bound, const CheckAttempt& attempt)
      : found_(tasks), bound_(bound), attempt_(attempt) {
    for (unsigned j = 0; j < jobs; ++j) threads_.emplace_back([this] { Work(); });
  }
  ~Workers() {
    next_ = found_.size();  // none begins another
    for (std::thread& t : threads_) t.join();
  }
  Workers(const Workers&) = delete;
  Workers& operator=(const Workers&) = delete;

  // Waits for task `task`, saying how many are done meanwhile.
  Speculation& Wait(std::size_t task, const ExploreProgress& progress) {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!found_[task].done) {
      if (progress) {
        progress(std::to_string(done_) + " of " + std::to_string(found_.size()) +
                 " checks explored, " + std::to_string(threads_.size()) + " at once");
      }
      changed_.wait(lock);
    }
    return found_[task];
  }
  // What the checks decided counted, for the limits of those begun next.
  void Counted(const RunBound& bound) {
    runs_ = bound.runs();
    steps_ = bound.steps();
  }

 private:
  void Work() {
    for (std::size_t t; (t = next_.fetch_add(1)) < found_.size();) {
      RunLimits limits = bound_.limits();
      limits.runs = Less(limits.runs, runs_);
      limits.steps = Less(limits.steps, steps_);
      Speculation s;
      s.bound.emplace(bound_.OnSameClock(limits));
      try {
        s.failure = attempt_(t, *s.bound, nullptr, &s.check);
      } catch (...) {
        s.escaped = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(mutex_);
      s.done = true;
      found_[t] = std::move(s);
      ++done_;
      changed_.notify_all();
    }
  }

  std::vector<Speculation> found_;
  const RunBound& bound_;  // read for its limits and clock only
  const CheckAttempt& attempt_;
  std::atomic<std::size_t> next_{0};
  std::atomic<std::uint64_t> runs_{0}, steps_{0};
  std::mutex mutex_;
  std::condition_variable changed_;
  std::size_t done_ = 0;
  std::vector<std::thread> threads_;  // last: they start once the rest is made
};

MaybeFailure OneAtATime(std::size_t tasks, RunBound& bound, const CheckAttempt& attempt,
                        const CheckDecided& decided, const ExploreProgress& progress) {
  for (std::size_t t = 0; t < tasks; ++t) {
    if (bound.Spent()) {
      decided(t, std::nullopt, bound);
      continue;
    }
    ExploredCheck check;
    if (MaybeFailure bad = attempt(t, bound, &progress, &check)) return bad;
    decided(t, std::move(check), bound);
  }
  return std::nullopt;
}

}  // namespace

MaybeFailure DecideInOrder(std::size_t tasks, unsigned jobs, RunBound& bound,
                           const CheckAttempt& attempt, const CheckDecided& decided,
                           const ExploreProgress& progress) {
  jobs = static_cast<unsigned>(std::min<std::size_t>(std::max(jobs, 1u), tasks));
  if (jobs <= 1) return OneAtATime(tasks, bound, attempt, decided, progress);
  Workers workers(tasks, jobs, bound, attempt);
  for (std::size_t t = 0; t < tasks; ++t) {
    if (bound.Spent()) {
      decided(t, std::nullopt, bound);
      continue;
    }
    Speculation& s = workers.Wait(t, progress);
    if (s.escaped) std::rethrow_exception(s.escaped);
    if (Stands(s, bound)) {
      if (s.failure) return s.failure;
      bound.Absorb(*s.bound);
      decided(t, std::move(s.check), bound);
    } else {
      ExploredCheck check;
      if (MaybeFailure bad = attempt(t, bound, &progress, &check)) return bad;
      decided(t, std::move(check), bound);
    }
    s.check = ExploredCheck{};  // its memory goes now
    s.bound.reset();
    workers.Counted(bound);
  }
  return std::nullopt;
}

}  // namespace proctape::explore
