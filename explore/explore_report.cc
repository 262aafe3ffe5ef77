// SPDX-License-Identifier: Apache-2.0
#include "explore/explore_report.h"

#include "core/proc_parse.h"
#include "explore.pb.h"
#include "explore/model_evidence.h"
#include "proto/convert.h"
#include "proto/summary.h"

namespace proctape::explore {
namespace {

std::string N(std::uint64_t n) { return std::to_string(n); }

bool NothingToExplore(const SearchReport& r) {
  return r.run + r.pruned + r.not_applicable + r.left + r.unextended == 0;
}

std::string Baseline(const ExploredCheck& c) {
  return c.report.baseline_cut ? "no verdict: its run was cut at " + N(kMaxRunCalls) + " calls"
                               : VerdictText(*c.setup, c.report.baseline);
}

// "histories: 60 run, 222 pruned (182 without a run), 0 not applicable;
// budget: 100 of 100 runs, 190 histories left; violations: 0"
std::string Histories(const ExploreRequest& o, const SearchReport& r) {
  std::string line = "  histories: " + N(r.run) + " run, " + N(r.pruned) + " pruned";
  if (r.skipped != 0) line += " (" + N(r.skipped) + " without a run)";
  line += ", " + N(r.not_applicable) + " not applicable; budget: " + N(r.budget_used) + " of " +
          N(o.budget) + " runs";
  if (r.left != 0) line += ", " + Plural(r.left, "history", "histories") + " left";
  if (r.unextended != 0) {
    line += ", " + Plural(r.unextended, "history", "histories") + " not extended to pairs";
  }
  line += ReachedClause(r.stopped, o.limits);
  return line + "; violations: " + N(r.violation_count) + "\n";
}

// The note under a check's first line: a derived file's events, or a
// recorded verdict its frame's host does not give ("" when neither).
std::string RecordedNote(const ExploredCheck& c) {
  std::string recorded;
  const bool same = SameAsRecorded(*c.setup, c.report.baseline, &recorded);
  if (c.derived_events > 0) {
    return "  note: this file was derived with " +
           Plural(c.derived_events, "kernel event", "kernel events") +
           " (its header lists them); explore starts from the host before them: its recorded "
           "verdict is " +
           recorded + "\n";
  }
  if (same) return "";
  return "  note: the recording's verdict is " + recorded +
         "; on its frame's host the baseline is not: the recording saw what the frame does not "
         "hold, and every history starts from the frame\n";
}

// The histories of a check by event kinds, its examples and violations.
std::string FoundText(const ExploredCheck& c, const TokenMask& mask) {
  const SearchReport& r = c.report;
  std::string text;
  for (const auto& [kinds, outcomes] : r.by_kind) {
    std::string line = "    " + kinds + ":";
    for (const auto& [outcome, n] : outcomes) line += " " + outcome + " " + N(n) + ",";
    line.pop_back();
    text += line + "\n";
  }
  for (const ExploredCheck::Example& e : c.examples) {
    text += "  example " + e.outcome + " (" + Plural(e.histories, "history", "histories") +
            "): " + mask.Shown(e.file) + "\n";
    for (const Scheduled& s : e.history) text += "    " + Describe(s) + "\n";
  }
  for (std::size_t i = 0; i < r.violations.size(); ++i) {
    const Violation& v = r.violations[i];
    text += "  VIOLATION " + N(i + 1) + ": " + v.why + "\n";
    for (const Scheduled& s : v.history) text += "    " + Describe(s) + "\n";
    if (!c.written[i].empty()) text += "    written: " + mask.Shown(c.written[i]) + "\n";
  }
  return text;
}

// One check of the text report: its baseline, histories by event kinds,
// examples and violations.
std::string CheckText(const ExploreRequest& o, const ExploredCheck& c, const TokenMask& mask) {
  const SearchReport& r = c.report;
  std::string text = "check " + N(c.setup->index) + " (" +
                     (c.setup->liveness ? "liveness" : "resolve") + ") on frame " +
                     N(c.setup->frame) + ": baseline " + Baseline(c) + " (" +
                     Plural(r.points, "schedule point", "schedule points") + ")\n";
  if (r.baseline_cut) return text + Histories(o, r);  // nothing below it is known
  text += RecordedNote(c) + Histories(o, r);
  if (NothingToExplore(r)) {
    text += "    no event can happen to " +
            (c.setup->liveness
                 ? "pid " + N(static_cast<std::uint64_t>(c.setup->recorded.liveness().pid()))
                 : std::string("the root or a process beneath it")) +
            " in this check's model: nothing to explore\n";
  }
  return text + FoundText(c, mask);
}

// One check of the JSON report (ExploreCheck): its numbers.
void FillCheckCounts(const ExploreRequest& o, const ExploredCheck& c, v1::ExploreCheck* check) {
  const SearchReport& r = c.report;
  check->set_index(Count32(c.setup->index));
  check->set_kind(c.setup->liveness ? "liveness" : "resolve");
  check->set_frame(Count32(c.setup->frame));
  check->set_baseline(Baseline(c));
  check->set_points(Count32(r.points));
  check->set_run(Count32(r.run));
  check->set_pruned(Count32(r.pruned));
  check->set_pruned_without_run(Count32(r.skipped));
  check->set_not_applicable(Count32(r.not_applicable));
  check->set_budget_used(Count32(r.budget_used));
  check->set_left(Count32(r.left));
  check->set_unextended(Count32(r.unextended));
  check->set_violation_count(Count32(r.violation_count));
  check->set_stopped_by(StopWord(r.stopped, o.limits));
}

// One check of the JSON report (ExploreCheck).
void FillCheckJson(const ExploreRequest& o, const ExploredCheck& c, const TokenMask& mask,
                   v1::ExploreCheck* check) {
  const SearchReport& r = c.report;
  FillCheckCounts(o, c, check);
  for (const ExploredCheck::Example& e : c.examples) {
    v1::ExploreExample* x = check->add_examples();
    x->set_outcome(e.outcome);
    x->set_histories(Count32(e.histories));
    for (const Scheduled& s : e.history) x->add_events(Describe(s));
    x->set_file(mask.Shown(e.file));
  }
  std::string recorded;
  check->set_baseline_is_recorded(SameAsRecorded(*c.setup, r.baseline, &recorded));
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
    v->set_outcome(VerdictText(*c.setup, r.violations[i].outcome));
    v->set_why(r.violations[i].why);
    for (const Scheduled& s : r.violations[i].history) v->add_events(Describe(s));
    v->set_file(mask.Shown(c.written[i]));
  }
}

}  // namespace

std::string ExploreText(const ExploreRun& run) {
  const ExploreRequest& o = run.request;
  std::string text = "explore " + run.mask.Shown(o.file) + ": depth " + N(o.depth) + ", budget " +
                     Plural(o.budget, "run", "runs") + " per check\n";
  for (const ExploredCheck& c : run.checks) text += CheckText(o, c, run.mask);
  if (const std::string line = UnexploredLine(run.end); !line.empty()) text += line + "\n";
  const ExploreTotals t = Totals(run.checks);
  std::string written;
  if (!o.out.empty()) {
    written = t.written == 0 ? "; nothing written to " + run.mask.Shown(o.out)
                             : "; " + N(t.written) + " written to " + run.mask.Shown(o.out);
  }
  return text + "total: " + Plural(t.run, "history", "histories") + " run, " + N(t.pruned) +
         " pruned, " + Plural(t.violations, "violation", "violations") + written + "\n";
}

std::string ExploreJson(const ExploreRun& run) {
  const ExploreRequest& o = run.request;
  const RunEnd& end = run.end;
  v1::ExploreReport doc;
  doc.set_file(run.mask.Shown(o.file));
  doc.set_depth(o.depth);
  doc.set_budget(Count32(o.budget));
  for (const ExploredCheck& c : run.checks) FillCheckJson(o, c, run.mask, doc.add_checks());
  const ExploreTotals t = Totals(run.checks);
  doc.set_histories_run(Count32(t.run));
  doc.set_histories_pruned(Count32(t.pruned));
  doc.set_violations(Count32(t.violations));
  doc.set_written(Count32(t.written));
  doc.set_total_budget(Count32(end.limits.runs));
  doc.set_work_budget(Count32(end.limits.steps));
  doc.set_time_limit_s(Count32(end.limits.time_s));
  doc.set_runs_used(Count32(end.runs));
  doc.set_work_used(Count32(end.steps));
  doc.set_stopped_by(StopWord(end.stop, end.limits));
  doc.set_unexplored_checks(Count32(end.unexplored));
  if (end.unexplored != 0) doc.set_first_unexplored(Count32(end.first_unexplored));
  return ToJson(doc) + "\n";
}

}  // namespace proctape::explore
