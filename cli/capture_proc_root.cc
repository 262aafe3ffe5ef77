#include "cli/capture_proc_root.h"

#include "cli/errors.h"
#include "cli/exit_codes.h"
#include "cli/live_proc.h"
#include "core/proc_parse.h"

namespace proctape {

int OpenProcRoot(const std::string& proc_root, std::unique_ptr<ProcDirEvidence>* dir) {
  if (IsProcfs(proc_root)) {
    return Fail(kExitUsage, "--proc-root " + EscapeBytes(proc_root, 4096) +
                                " is a procfs mount: capture a live /proc with --proc, and a "
                                "copy of one (an export, a fixture) with --proc-root");
  }
  std::string error;
  ProcDirEvidence::OpenFailure failure;
  *dir = ProcDirEvidence::Open(proc_root, &error, &failure);
  if (!*dir) {
    // DIR is an input the user named: one that cannot be opened (missing,
    // not a directory, unreadable) is 10 as for any input; only a host
    // that cannot read it sealed is proctape's own failure (1).
    switch (failure) {
      case ProcDirEvidence::OpenFailure::kFrameFile:
        return Fail(kExitCorrupt, error);
      case ProcDirEvidence::OpenFailure::kCannotOpen:
        return Fail(kExitIo, "--proc-root: " + error);
      default:
        return Fail(kExitInternal, error);
    }
  }
  // An empty or unrelated directory is not a frame of 0 processes: it is
  // no copy of /proc (2, as a --proc that is no procfs).
  if (!(*dir)->HoldsAProcess()) {
    return Fail(kExitUsage, "--proc-root " + EscapeBytes(proc_root, 4096) +
                                " holds no process: no numeric PID entry with a stat file (a "
                                "copy of /proc, or an export --format proc-dir, is expected)");
  }
  return kExitOk;
}

}  // namespace proctape
