// SPDX-License-Identifier: Apache-2.0
// `proctape lab SCENARIO --record FILE`: stages one of the resolver's races
// (`docs/lab.md`, "Scenarios") with
// real processes on this kernel and records the live checks; `--list` names
// the scenarios. Thin: the lab itself is lab/.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "replay/token_mask.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/options.h"
#include "cli/outputs.h"
#include "cli/exit_codes.h"
#include "cli/progress.h"
#include "core/proc_parse.h"
#include "lab/lab.h"
#include "capture/host_facts.h"
#include "proto/convert.h"
#include "proto/summary.h"

namespace proctape {
namespace {

struct LabCommandOptions {
  std::string scenario;
  std::string sandbox = "unshare";
  std::string record;
  bool force = false;
  bool list = false;
  bool json = false;
  std::int64_t deadline_ms = 5000;
  std::vector<std::string> command_line;
  // What was given besides --list, which takes nothing but --json.
  std::vector<std::string> beside_list;
};

// `label` then `text`, its words wrapped within 80 columns, each further
// line indented to where the text began.
std::string Hanging(const std::string& label, const std::string& text) {
  std::string out = label;
  std::size_t column = label.size();
  bool first = true;
  std::istringstream words(text);
  for (std::string word; words >> word;) {
    if (!first && column + 1 + word.size() > 80) {
      out += "\n" + std::string(label.size(), ' ');
      column = label.size();
    } else if (!first) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
    first = false;
  }
  return out + "\n";
}

int List(bool json) {
  if (json) {
    v1::LabScenarioList list;
    for (const lab::ScenarioInfo& s : lab::Scenarios()) {
      v1::LabScenarioList::Scenario* out = list.add_scenarios();
      out->set_name(s.name);
      out->set_summary(s.summary);
      out->set_expect(s.expect);
      out->set_needs_root(s.needs_root);
    }
    std::printf("%s\n", ToJson(list).c_str());
    return kExitOk;
  }
  // "NAME             summary ..." then "                   expect: ...", each
  // wrapped within 80 columns under its own text.
  for (const lab::ScenarioInfo& s : lab::Scenarios()) {
    std::string name = s.name;
    name.resize(std::max<std::size_t>(name.size() + 1, 17), ' ');
    std::fputs(Hanging(name, std::string(s.summary) + (s.needs_root ? " (root)" : "")).c_str(),
               stdout);
    std::fputs(Hanging(std::string(19, ' ') + "expect: ", s.expect).c_str(), stdout);
  }
  return kExitOk;
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

// The usage errors of the options; kExitOk when none.
int CheckOptions(const LabCommandOptions& o) {
  if (o.list && !o.beside_list.empty()) {
    std::string what;
    for (const std::string& w : o.beside_list) what += (what.empty() ? "" : ", ") + w;
    return Fail(kExitUsage, "--list lists every scenario and stages none: it takes no " + what +
                                " (run 'proctape lab SCENARIO --record FILE' to stage one)");
  }
  if (o.list) return kExitOk;
  if (o.scenario.empty() || o.record.empty()) {
    return Fail(kExitUsage,
                "give a SCENARIO and --record FILE ('proctape lab --list' lists the scenarios)");
  }
  if (!lab::FindScenario(o.scenario)) {
    return Fail(kExitUsage, "unknown scenario '" + EscapeBytes(o.scenario, 64) +
                                "' ('proctape lab --list' lists the scenarios)");
  }
  if (o.record == "-") {
    return Fail(kExitUsage,
                "--record '-' (standard output) cannot be written here: name a file "
                "(the lab reads it back)");
  }
  return kExitOk;
}

// One report of the run, masked: the checks as recorded, their token shown
// by its length only (the recording keeps it: 'proctape export --format
// json'), since a verdict's evidence may quote it.
v1::LabReport Report(const LabCommandOptions& o, const lab::LabResult& r) {
  v1::LabReport report;
  report.set_scenario(o.scenario);
  report.set_sandbox(o.sandbox);
  report.set_file(EscapedText(o.record));
  report.set_shown(r.outcome == lab::LabOutcome::kShown);
  report.set_error(r.error);
  for (const std::string& f : r.facts) report.add_facts(f);
  // The lab recorded this host's checks: a fingerprint it took is of this boot.
  const std::string boot_id = CollectHostFacts("/proc").boot_id();
  for (std::size_t k = 0; k < r.checks.size(); ++k) {
    *report.add_checks() = ToSummary(r.checks[k], Count32(k), boot_id);
  }
  for (const lab::StartedProcess& p : r.started) {
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

void PrintText(const LabCommandOptions& o, const lab::LabResult& r, const v1::LabReport& report) {
  std::printf("lab %s (%s sandbox)\n", o.scenario.c_str(), o.sandbox.c_str());
  for (const std::string& f : report.facts()) std::printf("  %s\n", f.c_str());
  for (const v1::CheckSummary& c : report.checks()) std::fputs(CheckLines(c).c_str(), stdout);
  if (r.outcome == lab::LabOutcome::kShown || r.outcome == lab::LabOutcome::kNotShown) {
    const std::string file = EscapeBytes(o.record);
    std::printf(
        "recorded %s: replay it with 'proctape replay %s', see why with 'proctape explain "
        "%s'\n",
        file.c_str(), file.c_str(), file.c_str());
  }
  if (!r.started.empty()) {
    std::string pids;
    for (const lab::StartedProcess& p : r.started) {
      pids += (pids.empty() ? "" : ", ") + p.role + " " + std::to_string(p.pid);
    }
    std::printf("cleanup: ended the %s the lab started (%s)\n",
                Plural(r.started.size(), "process", "processes").c_str(), pids.c_str());
  }
}

// The exit status of a staged run (docs/lab.md).
int Status(const LabCommandOptions& o, const lab::LabResult& r) {
  if (!r.left_running.empty()) {
    return Fail(
        kExitInternal,
        "lab: " + Plural(r.left_running.size(), "started process is", "started processes are") +
            " still running after cleanup");
  }
  switch (r.outcome) {
    case lab::LabOutcome::kShown: return kExitOk;
    case lab::LabOutcome::kNotShown:
      return Fail(kExitLabFailed,
                  "lab: " + o.scenario + " did not show what it says: " + Printable(r.error));
    case lab::LabOutcome::kUnavailable:
      return Fail(kExitLabUnavailable, "lab: cannot run here: " + Printable(r.error));
    case lab::LabOutcome::kFailed:
      return Fail(kExitLabFailed,
                  "lab: " + o.scenario + " could not be staged: " + Printable(r.error));
    case lab::LabOutcome::kOutputRefused: return kExitIo;  // said before the report
    case lab::LabOutcome::kOutputFailed:
      // The one status of an output that cannot be written (docs/cli/outputs.md).
      return FailAbout(kExitIo, "--record", o.record, Printable(r.error));
  }
  return kExitInternal;
}

int Run(const LabCommandOptions& o) {
  if (int bad = CheckOptions(o); bad != kExitOk) return bad;
  if (o.list) return List(o.json);
  lab::LabOptions options;
  options.scenario = o.scenario;
  options.sandbox = o.sandbox == "bwrap" ? lab::SandboxKind::kBwrap : lab::SandboxKind::kUnshare;
  options.record = o.record;
  options.force = o.force;
  options.deadline_ms = o.deadline_ms;
  options.command_line = o.command_line;
  // Each step on one line, on a terminal (a scenario takes seconds).
  Progress progress;
  if (progress.active()) {
    options.progress = [&progress](const std::string& line) { progress.Show("lab: " + line); };
  }
  lab::LabResult r = lab::RunLab(options);
  progress.Done();
  // Refused before anything was started: the refusal is the whole story.
  if (r.outcome == lab::LabOutcome::kOutputRefused) {
    return FailAbout(kExitIo, "--record", o.record, r.error);
  }
  const v1::LabReport report = Report(o, r);
  if (o.json) {
    std::printf("%s\n", ToJson(report).c_str());
  } else {
    PrintText(o, r, report);
  }
  return Status(o, r);
}

}  // namespace

void RegisterLab(CLI::App& app, int* exit_code, std::vector<std::string> command_line) {
  auto o = std::make_shared<LabCommandOptions>();
  o->command_line = std::move(command_line);
  CLI::App* sub = app.add_subcommand(
      "lab",
      "Stage one of the namespace-PID races the resolver must survive (docs/resolver.md)\n"
      "with real processes on this kernel, and record the live checks into FILE, as\n"
      "'resolve --record' would on a CI host.\n"
      "A stand-in app-server is started; beneath it a PID-namespace sandbox (--sandbox)\n"
      "exports the token, writes $$ to a marker and execs /bin/sleep 120 — or does what\n"
      "the scenario says instead. The lab then resolves (and checks liveness) with the\n"
      "host changed between checks as the scenario says, and reports whether the recorded\n"
      "verdicts show what the scenario's name says.\n\n"
      "The lab ends every process it started, by pidfd (or, its own children, by pid),\n"
      "also when a scenario fails or the lab is interrupted; it signals nothing else.\n"
      "pid-reuse and root-restarted reuse a pid on purpose (clone3 set_tid): root only.");
  sub->add_option("SCENARIO", o->scenario, "what to stage (see --list)")
      ->check(NonEmpty("an empty name names no scenario"));
  sub->add_flag("--list", o->list, "list the scenarios and what each should record");
  AddSideOutputOption(sub, "--record", o->record,
                      "the .ptape file to write (checked before any process is started)");
  AddForceOption(sub, o->force, "replace an existing FILE (a regular file: never a link)");
  sub->add_option("--sandbox", o->sandbox, "unshare --pid --fork, or bwrap --unshare-pid")
      ->capture_default_str()
      ->check(CLI::IsMember({"unshare", "bwrap"}));
  AddSigned(sub, "--deadline-ms", o->deadline_ms, 100, 60'000,
            "the resolver's deadline (its default, 5 s)", "MS")
      ->capture_default_str();
  sub->add_flag("--json", o->json, "print a LabReport (or the list) as JSON");
  sub->footer(std::string("Examples:\n"
                          "  proctape lab --list\n"
                          "  proctape lab plain --record plain.ptape\n"
                          "  proctape lab pid-reuse --sandbox bwrap --record reuse.ptape\n"
                          "  proctape replay reuse.ptape && proctape corpus add reuse.ptape\n\n") +
              ExitStatusFooter(
                  "0 shown, 2 usage error, 10 --record refused or cannot be written, 24 cannot "
                  "run here, 25 not shown"));
  sub->callback([o, sub, exit_code] {
    o->beside_list.clear();
    if (!o->scenario.empty())
      o->beside_list.push_back("SCENARIO ('" + EscapeBytes(o->scenario, 64) + "')");
    for (const char* name : {"--record", "--force", "--sandbox", "--deadline-ms"}) {
      if (sub->get_option(name)->count() > 0) o->beside_list.push_back(name);
    }
    *exit_code = Run(*o);
  });
}

}  // namespace proctape
