// SPDX-License-Identifier: Apache-2.0
// What `proctape lab` gives back (docs/lab.md): one staged run with its
// report, masked (a LabReport, which the CLI prints as JSON, and its text),
// and the failure its exit status is; and the scenarios as `lab --list`
// shows them. Nothing here prints: the CLI says what these return.
#pragma once

#include <string>

#include "core/failure.h"
#include "lab/lab.h"
#include "proctape.pb.h"

namespace proctape::lab {

// Every scenario, in the order of Scenarios(): `lab --list --json`.
v1::LabScenarioList ScenarioList();
// Every scenario as `lab --list` prints it: "NAME             summary ..."
// (" (root)" after one that needs root), then "expect: ..." beneath, each
// wrapped within 80 columns under its own text.
std::string ScenarioListText();

// One staged run, reported.
struct LabRun {
  LabResult result;
  // The run's report, masked: the checks as recorded (their token shown by
  // its length only, since a verdict's evidence may quote it; the recording
  // keeps it: 'proctape export --format json'). Empty when the record was
  // refused (kOutputRefused): the refusal is then the whole story.
  v1::LabReport report;
  // Nothing when the scenario showed what it says. Otherwise: kInternal,
  // a started process still running after cleanup; kLabFailed, not shown
  // or could not be staged; kLabUnavailable, cannot run here; kIo, the
  // --record file refused or not written (`about_record`).
  MaybeFailure failure;
  // The failure is about the --record file: said naming it.
  bool about_record = false;
};

// Runs options.scenario (RunLab, which never throws) and reports it.
LabRun RunAndReport(const LabOptions& options);
// The report and failure of a run's result: what RunAndReport gives,
// without running anything. `boot_id` is this host's (a fingerprint the
// lab took is of this boot).
LabRun ReportRun(const LabOptions& options, LabResult result, const std::string& boot_id);
// The report as text: the scenario and sandbox, the facts, each check (its
// verdict; for a failure the subject and the near misses), how to replay
// the recording when one was written, and the processes the lab ended.
std::string ReportText(const LabOptions& options, const LabRun& run);

}  // namespace proctape::lab
