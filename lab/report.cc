// SPDX-License-Identifier: Apache-2.0
#include "lab/report.h"

#include <algorithm>
#include <utility>

#include "capture/host_facts.h"
#include "core/proc_parse.h"
#include "core/wrap.h"
#include "proto/summary.h"
#include "replay/token_mask.h"

namespace proctape::lab {
namespace {

// `label` then `text`, its words wrapped within 80 columns, each further
// line indented to where the text began.
std::string Hanging(const std::string& label, const std::string& text) {
  return WrapHanging(label, text, label.size());
}

// A check as its summary says it (masked as the report is): its verdict,
// and for a failure the subject and the near misses (docs/resolver.md).
std::string CheckLines(const v1::CheckSummary& c) {
  std::string line = "check " + std::to_string(c.index()) + " ";
  if (c.has_verdict()) {
    const v1::VerdictSummary& v = c.verdict();
    line += "resolve: " + StatusText(v.status());
    if (v.status() == v1::Verdict::RESOLVED) {
      line += " host pid " + std::to_string(v.pid()) + ", start tick " +
              std::to_string(v.start_ticks());
    } else if (!v.detail().empty()) {
      line += ": " + Printable(v.detail());
    }
    line += " (" + Plural(v.attempts(), "attempt", "attempts") + ")\n";
    if (v.status() != v1::Verdict::RESOLVED) {
      if (const std::string subject = SubjectText(v); !subject.empty()) {
        line += "  subject: " + subject + "\n";
      }
      line += NearMissLines(v, "  ");
    }
    return line;
  }
  line += "liveness of " + std::to_string(c.liveness().pid()) + "@" +
          std::to_string(c.liveness().start_ticks()) + ": " + LivenessLine(c.liveness_verdict());
  return line + "\n";
}

// One report of the run, masked.
v1::LabReport Report(const LabOptions& o, const LabResult& r, const std::string& boot_id) {
  v1::LabReport report;
  report.set_scenario(o.scenario);
  report.set_sandbox(SandboxName(o.sandbox));
  report.set_file(EscapedText(o.record));
  report.set_shown(r.outcome == LabOutcome::kShown);
  report.set_error(r.error);
  for (const std::string& f : r.facts) report.add_facts(f);
  for (std::size_t k = 0; k < r.checks.size(); ++k) {
    *report.add_checks() = ToSummary(r.checks[k], Count32(k), boot_id);
  }
  for (const StartedProcess& p : r.started) {
    v1::LabReport::Started* s = report.add_started();
    s->set_pid(Int32(p.pid));
    s->set_start_ticks(p.start_ticks);
    s->set_role(p.role);
  }
  for (pid_t pid : r.left_running) report.add_left_running(pid);
  TokenMask mask;
  for (const v1::Resolution& c : r.checks) {
    if (c.has_resolve()) mask.Add(c.resolve().token());
  }
  mask.Mask(&report);
  return report;
}

// What the exit status of a staged run says (docs/lab.md); nothing: 0.
MaybeFailure FailureOf(const LabOptions& o, const LabResult& r) {
  // Refused before anything was started: the refusal is the whole story.
  if (r.outcome == LabOutcome::kOutputRefused) return Failure(FailureKind::kIo, r.error);
  if (!r.left_running.empty()) {
    return Failure(
        FailureKind::kInternal,
        "lab: " + Plural(r.left_running.size(), "started process is", "started processes are") +
            " still running after cleanup");
  }
  switch (r.outcome) {
    case LabOutcome::kShown: return std::nullopt;
    case LabOutcome::kNotShown:
      return Failure(FailureKind::kLabFailed,
                     "lab: " + o.scenario + " did not show what it says: " + Printable(r.error));
    case LabOutcome::kUnavailable:
      return Failure(FailureKind::kLabUnavailable, "lab: cannot run here: " + Printable(r.error));
    case LabOutcome::kFailed:
      return Failure(FailureKind::kLabFailed,
                     "lab: " + o.scenario + " could not be staged: " + Printable(r.error));
    case LabOutcome::kOutputRefused: break;  // above
    case LabOutcome::kOutputFailed:
      // The one status of an output that cannot be written (docs/cli/outputs.md).
      return Failure(FailureKind::kIo, Printable(r.error));
  }
  return Failure(FailureKind::kInternal, "");
}

}  // namespace

v1::LabScenarioList ScenarioList() {
  v1::LabScenarioList list;
  for (const ScenarioInfo& s : Scenarios()) {
    v1::LabScenarioList::Scenario* out = list.add_scenarios();
    out->set_name(s.name);
    out->set_summary(s.summary);
    out->set_expect(s.expect);
    out->set_needs_root(s.needs_root);
  }
  return list;
}

std::string ScenarioListText() {
  std::string text;
  for (const ScenarioInfo& s : Scenarios()) {
    std::string name = s.name;
    name.resize(std::max<std::size_t>(name.size() + 1, 17), ' ');
    text += Hanging(name, std::string(s.summary) + (s.needs_root ? " (root)" : ""));
    text += Hanging(std::string(19, ' ') + "expect: ", s.expect);
  }
  return text;
}

LabRun ReportRun(const LabOptions& options, LabResult result, const std::string& boot_id) {
  LabRun run;
  run.failure = FailureOf(options, result);
  run.about_record = result.outcome == LabOutcome::kOutputRefused ||
                     (result.outcome == LabOutcome::kOutputFailed && result.left_running.empty());
  if (result.outcome != LabOutcome::kOutputRefused) {
    run.report = Report(options, result, boot_id);
  }
  run.result = std::move(result);
  return run;
}

LabRun RunAndReport(const LabOptions& options) {
  LabResult result = RunLab(options);
  // The lab recorded this host's checks: a fingerprint it took is of this boot.
  return ReportRun(options, std::move(result), CollectHostFacts("/proc").boot_id());
}

std::string ReportText(const LabOptions& options, const LabRun& run) {
  const LabResult& r = run.result;
  std::string text =
      "lab " + options.scenario + " (" + SandboxName(options.sandbox) + " sandbox)\n";
  for (const std::string& f : run.report.facts()) text += "  " + f + "\n";
  for (const v1::CheckSummary& c : run.report.checks()) text += CheckLines(c);
  if (r.outcome == LabOutcome::kShown || r.outcome == LabOutcome::kNotShown) {
    const std::string file = EscapeBytes(options.record);
    text += "recorded " + file + ": replay it with 'proctape replay " + file +
            "', see why with 'proctape explain " + file + "'\n";
  }
  if (!r.started.empty()) {
    std::string pids;
    for (const StartedProcess& p : r.started) {
      pids += (pids.empty() ? "" : ", ") + p.role + " " + std::to_string(p.pid);
    }
    text += "cleanup: ended the " + Plural(r.started.size(), "process", "processes") +
            " the lab started (" + pids + ")\n";
  }
  return text;
}

}  // namespace proctape::lab
