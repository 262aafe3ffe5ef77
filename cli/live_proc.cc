// SPDX-License-Identifier: Apache-2.0
#include "cli/live_proc.h"

#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include <cerrno>
#include <cstring>

#include "capture/host_facts.h"
#include "cli/errors.h"
#include "cli/exit_codes.h"
#include "cli/options.h"
#include "cli/outputs.h"
#include "core/proc_parse.h"

namespace proctape {

CLI::Option* AddProcOption(CLI::App* app, std::string& proc) {
  return app
      ->add_option("--proc", proc,
                   "the /proc mount to read: the root of a procfs mount (statfs), anything "
                   "else is refused (exit 2)")
      ->check(NonEmptyPath("directory"))
      ->type_name("DIR")
      ->capture_default_str();
}

std::unique_ptr<ProcfsEvidence> OpenLiveProc(const std::string& proc, int* exit_code) {
  // A --proc that is not there (or not a directory) is the user's path, not
  // proctape's failure: a usage error naming it, as one that is no procfs.
  struct stat st;
  std::string why;
  if (::stat(proc.c_str(), &st) != 0) {
    why = std::strerror(errno);
  } else if (!S_ISDIR(st.st_mode)) {
    why = "not a directory";
  }
  if (!why.empty()) {
    *exit_code = FailAbout(kExitUsage, "--proc", proc, why);
    return nullptr;
  }
  Failure failure;
  auto evidence = ProcfsEvidence::Open(proc, &failure);
  if (!evidence) {
    // A procfs that is not one begins with DIR: said once, after the option.
    *exit_code = failure.kind == FailureKind::kUsage
                     ? FailAbout(kExitUsage, "--proc", proc, EscapeBytes(failure.message, 8192))
                     : Fail(ExitCodeFor(failure.kind), EscapeBytes(failure.message, 4096));
  }
  return evidence;
}

bool PidBelowPidMax(const std::string& option, std::int64_t pid, const std::string& proc,
                    int* exit_code) {
  const std::int64_t pid_max = CollectHostFacts(proc).pid_max();
  if (pid_max <= 0) {
    *exit_code = Fail(kExitInternal, "cannot read " + EscapeBytes(proc, 4096) +
                                         "/sys/kernel/pid_max: " + option +
                                         " cannot be checked against this host's pid range");
    return false;
  }
  if (pid >= pid_max) {
    *exit_code = Fail(kExitUsage, option + " " + std::to_string(pid) +
                                      " is not a pid of this host: pids are below its pid_max " +
                                      std::to_string(pid_max) + " (" + EscapeBytes(proc, 4096) +
                                      "/sys/kernel/pid_max)");
    return false;
  }
  return true;
}

bool IsProcfs(const std::string& dir) {
  struct statfs fs;
  return ::statfs(dir.c_str(), &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC;
}

std::string ExeFileError(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return std::strerror(errno);
  if (S_ISREG(st.st_mode)) return "";
  return S_ISDIR(st.st_mode) ? "a directory, not an executable file" : "not a regular file";
}

}  // namespace proctape
