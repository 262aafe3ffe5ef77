// SPDX-License-Identifier: Apache-2.0
#include "cli/capture_proc_root.h"

#include "cli/errors.h"
#include "cli/exit_codes.h"
#include "cli/live_proc.h"

namespace proctape {

int OpenProcRoot(const std::string& proc_root, std::unique_ptr<ProcDirEvidence>* dir) {
  if (IsProcfs(proc_root)) {
    return FailAbout(kExitUsage, "--proc-root", proc_root,
                     "a procfs mount: capture a live /proc with --proc, and a copy of one (an "
                     "export, a fixture) with --proc-root");
  }
  Failure failure;
  *dir = ProcDirEvidence::Open(proc_root, &failure);
  // DIR is an input the user named: one that cannot be opened (missing, not
  // a directory, unreadable) is 10 as for any input, a damaged
  // proctape-frame 15; only a host that cannot read it sealed is proctape's
  // own failure (1). The message names DIR first: said once, after the option.
  if (!*dir) return FailAbout("--proc-root", proc_root, failure);
  // An empty or unrelated directory is not a frame of 0 processes: it is
  // no copy of /proc (2, as a --proc that is no procfs).
  if (!(*dir)->HoldsAProcess()) {
    return FailAbout(kExitUsage, "--proc-root", proc_root,
                     "holds no process: no numeric PID entry with a stat file (a copy of /proc, "
                     "or an export --format proc-dir, is expected)");
  }
  return kExitOk;
}

}  // namespace proctape
