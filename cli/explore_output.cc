// SPDX-License-Identifier: Apache-2.0
#include "cli/explore_output.h"

#include <cstdio>

#include "core/proc_parse.h"
#include "explore.pb.h"
#include "explore/model_evidence.h"
#include "proto/convert.h"
#include "proto/summary.h"

namespace proctape {
namespace {

using explore::CheckSetup;
using explore::SearchReport;

std::string N(std::uint64_t n) { return std::to_string(n); }

bool NothingToExplore(const SearchReport& r) {
  return r.run + r.pruned + r.not_applicable + r.left + r.unextended == 0;
}

// "histories: 60 run, 222 pruned (182 without a run), 0 not applicable;
// budget: 100 of 100 runs, 190 histories left; violations: 0"
std::string Histories(const ExploreOptions& o, const SearchReport& r) {
  std::string line = "  histories: " + N(r.run) + " run, " + N(r.pruned) + " pruned";
  if (r.skipped != 0) line += " (" + N(r.skipped) + " without a run)";
  line += ", " + N(r.not_applicable) + " not applicable; budget: " + N(r.budget_used) + " of " +
          N(o.budget) + " runs";
  if (r.left != 0) line += ", " + Plural(r.left, "history", "histories") + " left";
  if (r.unextended != 0) {
    line += ", " + Plural(r.unextended, "history", "histories") + " not extended to pairs";
  }
  line += ReachedClause(r.stopped, o.limits);
  return line + "; violations: " + N(r.violation_count);
}

}  // namespace

ExploreTotals Totals(const std::vector<CheckResult>& results) {
  ExploreTotals t;
  for (const CheckResult& c : results) {
    t.run += c.report.run;
    t.pruned += c.report.pruned;
    t.violations += c.report.violation_count;
    for (const std::string& w : c.written) t.written += w.empty() ? 0 : 1;
    t.written += c.examples.size();
  }
  return t;
}

// One check of the text report: its baseline, histories by event kinds,
// examples and violations.
void PrintCheckText(const ExploreOptions& o, const CheckResult& c, const TokenMask& mask) {
  const SearchReport& r = c.report;
  const std::string baseline =
      r.baseline_cut ? "no verdict: its run was cut at " + N(explore::kMaxRunCalls) + " calls"
                     : explore::VerdictText(*c.setup, r.baseline);
  std::printf("check %zu (%s) on frame %zu: baseline %s (%s)\n", c.setup->index,
              c.setup->liveness ? "liveness" : "resolve", c.setup->frame, baseline.c_str(),
              Plural(r.points, "schedule point", "schedule points").c_str());
  if (r.baseline_cut) {  // nothing below it is known
    std::printf("%s\n", Histories(o, r).c_str());
    return;
  }
  std::string recorded;
  const bool same = explore::SameAsRecorded(*c.setup, r.baseline, &recorded);
  if (c.derived_events > 0) {
    std::printf(
        "  note: this file was derived with %s (its header lists them); explore starts "
        "from the host before them: its recorded verdict is %s\n",
        Plural(c.derived_events, "kernel event", "kernel events").c_str(), recorded.c_str());
  } else if (!same) {
    std::printf(
        "  note: the recording's verdict is %s; on its frame's host the baseline is not: "
        "the recording saw what the frame does not hold, and every history starts from "
        "the frame\n",
        recorded.c_str());
  }
  std::printf("%s\n", Histories(o, r).c_str());
  if (NothingToExplore(r)) {
    std::printf(
        "    no event can happen to %s in this check's model: nothing to explore\n",
        c.setup->liveness
            ? ("pid " + N(static_cast<std::uint64_t>(c.setup->recorded.liveness().pid()))).c_str()
            : "the root or a process beneath it");
  }
  for (const auto& [kinds, outcomes] : r.by_kind) {
    std::string line = "    " + kinds + ":";
    for (const auto& [outcome, n] : outcomes) line += " " + outcome + " " + N(n) + ",";
    line.pop_back();
    std::printf("%s\n", line.c_str());
  }
  for (const CheckResult::Example& e : c.examples) {
    std::printf("  example %s (%s): %s\n", e.outcome.c_str(),
                Plural(e.histories, "history", "histories").c_str(), mask.Shown(e.file).c_str());
    for (const explore::Scheduled& s : e.history) std::printf("    %s\n", Describe(s).c_str());
  }
  for (std::size_t i = 0; i < r.violations.size(); ++i) {
    const explore::Violation& v = r.violations[i];
    std::printf("  VIOLATION %zu: %s\n", i + 1, v.why.c_str());
    for (const explore::Scheduled& s : v.history) std::printf("    %s\n", Describe(s).c_str());
    if (!c.written[i].empty()) std::printf("    written: %s\n", mask.Shown(c.written[i]).c_str());
  }
}

void PrintExploreText(const ExploreOptions& o, const std::string& name,
                      const std::vector<CheckResult>& results, const RunEnd& end,
                      const TokenMask& mask) {
  std::printf("explore %s: depth %u, budget %s per check\n", name.c_str(), o.depth,
              Plural(o.budget, "run", "runs").c_str());
  for (const CheckResult& c : results) PrintCheckText(o, c, mask);
  if (const std::string line = UnexploredLine(end); !line.empty())
    std::printf("%s\n", line.c_str());
  const ExploreTotals t = Totals(results);
  std::string written;
  if (!o.out.empty()) {
    written = t.written == 0 ? "; nothing written to " + mask.Shown(o.out)
                             : "; " + N(t.written) + " written to " + mask.Shown(o.out);
  }
  std::printf("total: %s run, %llu pruned, %s%s\n", Plural(t.run, "history", "histories").c_str(),
              static_cast<unsigned long long>(t.pruned),
              Plural(t.violations, "violation", "violations").c_str(), written.c_str());
}

// One check of the JSON report (ExploreCheck).
void FillCheckJson(const ExploreOptions& o, const CheckResult& c, const TokenMask& mask,
                   v1::ExploreCheck* check) {
  const SearchReport& r = c.report;
  check->set_index(Count32(c.setup->index));
  check->set_kind(c.setup->liveness ? "liveness" : "resolve");
  check->set_frame(Count32(c.setup->frame));
  check->set_baseline(r.baseline_cut
                          ? "no verdict: its run was cut at " + N(explore::kMaxRunCalls) + " calls"
                          : explore::VerdictText(*c.setup, r.baseline));
  check->set_points(Count32(r.points));
  check->set_run(Count32(r.run));
  check->set_pruned(Count32(r.pruned));
  check->set_pruned_without_run(Count32(r.skipped));
  check->set_not_applicable(Count32(r.not_applicable));
  check->set_budget_used(Count32(r.budget_used));
  check->set_left(Count32(r.left));
  check->set_unextended(Count32(r.unextended));
  check->set_violation_count(Count32(r.violation_count));
  check->set_stopped_by(explore::StopWord(r.stopped, o.limits));
  for (const CheckResult::Example& e : c.examples) {
    v1::ExploreExample* x = check->add_examples();
    x->set_outcome(e.outcome);
    x->set_histories(Count32(e.histories));
    for (const explore::Scheduled& s : e.history) x->add_events(Describe(s));
    x->set_file(mask.Shown(e.file));
  }
  std::string recorded;
  check->set_baseline_is_recorded(explore::SameAsRecorded(*c.setup, r.baseline, &recorded));
  check->set_recorded(recorded);
  check->set_derived_events(Count32(c.derived_events));
  check->set_nothing_to_explore(NothingToExplore(r));
  for (const auto& [kinds, outcomes] : r.by_kind) {
    v1::ExploreEventKinds* k = check->add_by_kind();
    k->set_kinds(kinds);
    for (const auto& [outcome, n] : outcomes) {
      v1::ExploreOutcomeCount* count = k->add_outcomes();
      count->set_outcome(outcome);
      count->set_histories(Count32(n));
    }
  }
  for (std::size_t i = 0; i < r.violations.size(); ++i) {
    v1::ExploreViolation* v = check->add_violations();
    v->set_outcome(explore::VerdictText(*c.setup, r.violations[i].outcome));
    v->set_why(r.violations[i].why);
    for (const explore::Scheduled& s : r.violations[i].history) v->add_events(Describe(s));
    v->set_file(mask.Shown(c.written[i]));
  }
}

void PrintExploreJson(const ExploreOptions& o, const std::string& name,
                      const std::vector<CheckResult>& results, const RunEnd& end,
                      const TokenMask& mask) {
  v1::ExploreReport doc;
  doc.set_file(name);
  doc.set_depth(o.depth);
  doc.set_budget(Count32(o.budget));
  for (const CheckResult& c : results) FillCheckJson(o, c, mask, doc.add_checks());
  const ExploreTotals t = Totals(results);
  doc.set_histories_run(Count32(t.run));
  doc.set_histories_pruned(Count32(t.pruned));
  doc.set_violations(Count32(t.violations));
  doc.set_written(Count32(t.written));
  doc.set_total_budget(Count32(end.limits.runs));
  doc.set_work_budget(Count32(end.limits.steps));
  doc.set_time_limit_s(Count32(end.limits.time_s));
  doc.set_runs_used(Count32(end.runs));
  doc.set_work_used(Count32(end.steps));
  doc.set_stopped_by(explore::StopWord(end.stop, end.limits));
  doc.set_unexplored_checks(Count32(end.unexplored));
  if (end.unexplored != 0) doc.set_first_unexplored(Count32(end.first_unexplored));
  std::printf("%s\n", ToJson(doc).c_str());
}

}  // namespace proctape
