// SPDX-License-Identifier: Apache-2.0
// `proctape lab`: the resolver's namespace-PID races (`docs/lab.md`), staged
// with real processes on this kernel and recorded by the same code as `resolve
// --record`.
//
// Every scenario starts a stand-in app-server (lab/app_server.h); beneath it
// a PID-namespace sandbox (`unshare --pid --fork` or `bwrap --unshare-pid`)
// exports the token, writes `$$` to a marker and (usually) execs
// `/bin/sleep 120`. The lab then records one or more checks — resolve,
// liveness — with the host changed between them as the scenario says, into
// one .ptape file, and says whether the recorded verdicts show what the
// scenario's name says.
//
// The lab ends every process it started, by pidfd or (its own unreaped
// children) by pid — also when a scenario fails, and on SIGINT, SIGTERM or
// SIGHUP (fs/interrupt.h), which also remove its private directory and
// the recording's temporary. It signals nothing else.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "proctape.pb.h"

namespace proctape::lab {

enum class SandboxKind { kUnshare, kBwrap };
const char* SandboxName(SandboxKind kind);

struct ScenarioInfo {
  const char* name;
  const char* summary;  // one line: what is staged
  const char* expect;   // the verdicts the file should hold, in check order
  bool needs_root;      // reuses a pid on purpose (clone3 set_tid)
  // What a recording of it shows, in a sentence: the note `corpus add`
  // gives a lab recording added without --note (docs/corpus.md).
  const char* shows;
};
// Every scenario, in the order `lab --list` shows them.
const std::vector<ScenarioInfo>& Scenarios();
const ScenarioInfo* FindScenario(const std::string& name);

struct LabOptions {
  std::string scenario;
  SandboxKind sandbox = SandboxKind::kUnshare;
  std::string record;                                // output .ptape (fs/output_file.h),
  bool force = false;                                //   checked before any process starts
  std::int64_t deadline_ms = 5000;                   // the resolver's default deadline, 5 s
  std::vector<std::string> command_line;             // stored in the file's header
  std::function<void(const std::string&)> progress;  // one line per step, may be empty
};

enum class LabOutcome {
  kShown,          // recorded, and the verdicts show what the scenario says
  kNotShown,       // recorded, but a verdict differs from the scenario's expectation
  kUnavailable,    // cannot run here: no namespaces, tool, or privilege
  kFailed,         // could not be staged
  kOutputRefused,  // `record` refused (exists, a link, ...): nothing was started
  kOutputFailed,   // `record` could not be written (or read back) while recording:
                   // the staged processes are ended, nothing is left of the file
};

struct StartedProcess {
  pid_t pid = 0;
  std::uint64_t start_ticks = 0;
  std::string role;  // "app-server", "sandbox" (beneath it), "match" (a process
                     // WaitFor found: argv, token, exe), "reuser", ...
};

struct LabResult {
  LabOutcome outcome = LabOutcome::kFailed;
  std::string error;                    // one line, for kUnavailable / kFailed / kNotShown
  std::vector<std::string> facts;       // what was staged, one line each
  std::vector<v1::Resolution> checks;   // the recorded checks, in order
  std::vector<StartedProcess> started;  // every process the lab started
  std::vector<pid_t> left_running;      // started processes still alive after cleanup
};

// Runs one scenario; never throws. The file is written only as a whole (a
// temporary NAME.XXXXXX.partial while recording, removed on failure).
LabResult RunLab(const LabOptions& options);

}  // namespace proctape::lab
