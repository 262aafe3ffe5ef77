// SPDX-License-Identifier: Apache-2.0
// `proctape lab SCENARIO --record FILE`: stages one of the resolver's races
// (`docs/lab.md`, "Scenarios") with
// real processes on this kernel and records the live checks; `--list` names
// the scenarios. Thin: the lab itself is lab/.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/exit_codes.h"
#include "cli/options.h"
#include "cli/outputs.h"
#include "cli/progress.h"
#include "core/proc_parse.h"
#include "lab/lab.h"
#include "lab/report.h"
#include "proto/convert.h"

namespace proctape {
namespace {

struct LabCommandOptions {
  lab::LabOptions lab;  // the run asked for (its sandbox from `sandbox`)
  std::string sandbox = "unshare";
  bool list = false;
  bool json = false;
  // What was given besides --list, which takes nothing but --json.
  std::vector<std::string> beside_list;
};

int List(bool json) {
  if (json) {
    std::printf("%s\n", ToJson(lab::ScenarioList()).c_str());
  } else {
    std::fputs(lab::ScenarioListText().c_str(), stdout);
  }
  return kExitOk;
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
  if (o.lab.scenario.empty() || o.lab.record.empty()) {
    return Fail(kExitUsage,
                "give a SCENARIO and --record FILE ('proctape lab --list' lists the scenarios)");
  }
  if (!lab::FindScenario(o.lab.scenario)) {
    return Fail(kExitUsage, "unknown scenario '" + EscapeBytes(o.lab.scenario, 64) +
                                "' ('proctape lab --list' lists the scenarios)");
  }
  if (o.lab.record == "-") {
    return Fail(kExitUsage,
                "--record '-' (standard output) cannot be written here: name a file "
                "(the lab reads it back)");
  }
  return kExitOk;
}

int Run(const LabCommandOptions& o) {
  if (int bad = CheckOptions(o); bad != kExitOk) return bad;
  if (o.list) return List(o.json);
  lab::LabOptions options = o.lab;
  options.sandbox = o.sandbox == "bwrap" ? lab::SandboxKind::kBwrap : lab::SandboxKind::kUnshare;
  // Each step on one line, on a terminal (a scenario takes seconds).
  Progress progress;
  if (progress.active()) {
    options.progress = [&progress](const std::string& line) { progress.Show("lab: " + line); };
  }
  const lab::LabRun run = lab::RunAndReport(options);
  progress.Done();
  // Refused before anything was started: the refusal is the whole story.
  if (run.result.outcome != lab::LabOutcome::kOutputRefused) {
    const std::string out = o.json ? ToJson(run.report) + "\n" : lab::ReportText(options, run);
    std::fwrite(out.data(), 1, out.size(), stdout);
  }
  if (!run.failure) return kExitOk;
  return run.about_record ? FailAbout("--record", o.lab.record, *run.failure) : Fail(*run.failure);
}

}  // namespace

void RegisterLab(CLI::App& app, int* exit_code, std::vector<std::string> command_line) {
  auto o = std::make_shared<LabCommandOptions>();
  o->lab.command_line = std::move(command_line);
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
  sub->add_option("SCENARIO", o->lab.scenario, "what to stage (see --list)")
      ->check(NonEmpty("an empty name names no scenario"));
  sub->add_flag("--list", o->list, "list the scenarios and what each should record");
  AddSideOutputOption(sub, "--record", o->lab.record,
                      "the .ptape file to write (checked before any process is started)");
  AddForceOption(sub, o->lab.force, "replace an existing FILE (a regular file: never a link)");
  sub->add_option("--sandbox", o->sandbox, "unshare --pid --fork, or bwrap --unshare-pid")
      ->capture_default_str()
      ->check(CLI::IsMember({"unshare", "bwrap"}));
  AddSigned(sub, "--deadline-ms", o->lab.deadline_ms, 100, 60'000,
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
    if (!o->lab.scenario.empty())
      o->beside_list.push_back("SCENARIO ('" + EscapeBytes(o->lab.scenario, 64) + "')");
    for (const char* name : {"--record", "--force", "--sandbox", "--deadline-ms"}) {
      if (sub->get_option(name)->count() > 0) o->beside_list.push_back(name);
    }
    *exit_code = Run(*o);
  });
}

}  // namespace proctape
