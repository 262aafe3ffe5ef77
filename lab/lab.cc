// SPDX-License-Identifier: Apache-2.0
#include "lab/lab.h"

#include <unistd.h>

#include "capture/fingerprint.h"
#include "capture/live_checks.h"
#include "capture/live_record.h"
#include "capture/procfs_evidence.h"
#include "core/proc_parse.h"
#include "format/fingerprint_file.h"
#include "fs/output_file.h"
#include "format/reader.h"
#include "lab/sandbox.h"
#include "lab/session.h"
#include "lab/stage.h"
#include "proto/convert.h"

namespace proctape::lab {
namespace {

// The app-server's fingerprint, written to the session's directory and read
// back; the request's root, start tick and executable become its own. The
// app-server read its start tick itself: the two must agree.
bool FingerprintBeforeTheTurn(ProcfsEvidence& live, const LabOptions& options, Stage& stage,
                              std::string* error) {
  const pid_t root = stage.session.app()->pid();
  const v1::Header header = FingerprintHeader("/proc", options.command_line);
  TakenFingerprint taken = TakeFingerprint(live, root, "/bin/sleep", header.host().boot_id());
  if (!taken.ok()) {
    *error = "cannot fingerprint the app-server " + std::to_string(root) + ": " +
             (taken.root.resolved() ? "/bin/sleep errno " + std::to_string(taken.exe.err)
                                    : taken.root.detail);
    return false;
  }
  const std::string path = stage.session.Path("root-fingerprint.ptape");
  if (MaybeFailure failed = WriteFingerprintFile(path, false, header, taken.fingerprint)) {
    *error = failed->message;
    return false;
  }
  FingerprintFile file = ReadFingerprintFile(path);
  if (!file.ok()) {
    *error = path + " " + file.error;
    return false;
  }
  if (std::string other = OtherBoot(file.fingerprint, header.host().boot_id()); !other.empty()) {
    *error = "the app-server's fingerprint was " + other;
    return false;
  }
  if (file.fingerprint.root_start_ticks() != stage.session.app()->start_ticks()) {
    *error = "the app-server's fingerprint says start tick " +
             std::to_string(file.fingerprint.root_start_ticks()) + ", the app-server " +
             std::to_string(stage.session.app()->start_ticks());
    return false;
  }
  stage.fingerprint = file.fingerprint;
  ApplyFingerprint(stage.fingerprint, &stage.request);
  return true;
}

}  // namespace

const std::vector<ScenarioInfo>& Scenarios() {
  static const std::vector<ScenarioInfo> infos = [] {
    std::vector<ScenarioInfo> out;
    for (const Scenario& s : ScenarioTable()) out.push_back(s.info);
    return out;
  }();
  return infos;
}

const ScenarioInfo* FindScenario(const std::string& name) {
  for (const ScenarioInfo& s : Scenarios()) {
    if (name == s.name) return &s;
  }
  return nullptr;
}

LabResult RunLab(const LabOptions& options) {
  LabResult result;
  const Scenario* scenario = nullptr;
  for (const Scenario& s : ScenarioTable()) {
    if (options.scenario == s.info.name) scenario = &s;
  }
  auto progress = [&](const std::string& line) {
    if (options.progress) options.progress(line);
  };
  if (scenario == nullptr) {
    result.error =
        "unknown scenario '" + EscapeBytes(options.scenario, 64) + "' (see 'proctape lab --list')";
    return result;
  }
  result.outcome = LabOutcome::kUnavailable;
  if (scenario->info.needs_root && ::geteuid() != 0) {
    result.error = std::string(scenario->info.name) +
                   " reuses a pid on purpose (clone3 with set_tid), which needs root";
    return result;
  }
  // The recording's output, checked (and its temporary made) before any
  // process is started: the probe below is one.
  OutputRequest request;
  request.path = options.record;
  request.force = options.force;
  Failure refused;
  std::unique_ptr<OutputFile> output = OutputFile::Open(request, &refused);
  if (!output) {
    result.outcome = LabOutcome::kOutputRefused;
    result.error = refused.message;
    return result;
  }
  // Where the session stages its files, before the sandbox's probe (the
  // first process started): a missing or unwritable TMPDIR cannot run here.
  if (std::string why = StagingProblem(); !why.empty()) {
    result.error = why;
    return result;
  }
  if (std::string why = SandboxUnavailable(options.sandbox); !why.empty()) {
    result.error = why;
    return result;
  }
  result.outcome = LabOutcome::kFailed;
  Failure failure;
  auto live = ProcfsEvidence::Open("/proc", &failure);
  if (!live) {
    // Without a procfs at /proc there is no live process to stage: cannot run here.
    if (failure.kind == FailureKind::kUsage) result.outcome = LabOutcome::kUnavailable;
    result.error = failure.message;
    return result;
  }
  std::string error;
  Stage stage;
  auto finish = [&](LabOutcome outcome, const std::string& message) {
    stage.session.Cleanup(&result.started, &result.left_running);
    result.outcome = outcome;
    result.error = message;
    result.facts = stage.facts;
    return result;
  };
  if (MaybeFailure failed = stage.session.Init(options.sandbox)) {
    return finish(LabOutcome::kFailed, failed->message);
  }
  Identity exe = live->PathIdentity("/bin/sleep");
  if (!exe.ok())
    return finish(LabOutcome::kFailed,
                  "cannot attest /bin/sleep: errno " + std::to_string(exe.err));
  stage.sleep_exe = {exe.dev, exe.ino};
  stage.token = RandomHex(16);
  progress("starting the app-server");
  if (MaybeFailure failed = stage.session.StartAppServer()) {
    return finish(LabOutcome::kFailed, failed->message);
  }
  // `docs/resolver.md`, "The eight steps", step 1: the root is fingerprinted
  // before the turn starts, as `proctape fingerprint` does, into a file that
  // the resolve checks read back, as `resolve --fingerprint` does.
  if (!FingerprintBeforeTheTurn(*live, options, stage, &error)) {
    return finish(LabOutcome::kFailed, error);
  }
  stage.request.token = stage.token;
  stage.request.bounds.deadline_ns = options.deadline_ms * 1'000'000;
  stage.Fact("app-server: host pid " + std::to_string(stage.request.root_pid) + ", start tick " +
             std::to_string(stage.request.root_start_ticks) +
             "; sandbox: " + SandboxName(options.sandbox) + "; token " + stage.token);
  progress(std::string("staging ") + scenario->info.name + " in a " + SandboxName(options.sandbox) +
           " sandbox");
  if (!scenario->stage(stage, &error)) return finish(LabOutcome::kFailed, error);
  progress("recording " + Plural(stage.steps.size(), "check", "checks") + " to " + options.record);
  LiveRecordOptions record;
  record.command_line = options.command_line;
  record.kept_entries = {TokenEntry(stage.request)};
  // A step's action that fails is the scenario's (not staged: kLabFailed,
  // as every action of the session says); any other failure of the
  // recording is the file's (kIo): it could not be written.
  if (MaybeFailure failed = RecordLiveSteps(*live, record, std::move(output), stage.steps)) {
    error = failed->message;
    if (failed->kind == FailureKind::kLabFailed) {
      return finish(LabOutcome::kFailed,
                    "recording " + EscapeBytes(options.record, 4096) + ": " + error);
    }
    // The writer's error names the file first ("PATH: cannot write: ..."):
    // the path is said once.
    const std::string shown = EscapeBytes(options.record, 4096);
    return finish(LabOutcome::kOutputFailed, error.rfind(shown + ": ", 0) == 0
                                                 ? error
                                                 : shown + ": cannot be written: " + error);
  }
  // The file as written is what the report describes.
  Snapshot written;
  FormatError read = ReadSnapshot(options.record, &written);
  if (!read.ok()) {
    return finish(LabOutcome::kOutputFailed,
                  EscapeBytes(options.record, 4096) + " does not read back: " + read.message);
  }
  result.checks = written.resolutions;
  std::string differs = stage.shown ? stage.shown(result.checks) : "";
  return finish(differs.empty() ? LabOutcome::kShown : LabOutcome::kNotShown, differs);
}

}  // namespace proctape::lab
