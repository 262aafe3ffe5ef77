// SPDX-License-Identifier: Apache-2.0
#include "cli/jail.h"

#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "cli/errors.h"
#include "cli/exit_codes.h"

namespace proctape {

MaybeFailure EnterJail(const JailRequest& request) {
  const JailedCommand* command = FindJailed(request.command);
  if (command == nullptr || !command->jailed) {
    return Failure(FailureKind::kInternal, "no jail is stated for it (cli/jail_commands.cc)");
  }
  // What the libc would read from the file system later, read now: the time
  // zone (local times in the views).
  ::tzset();
  if (command->landlock) {
    const int abi = LandlockAbi();
    if (abi < 1) {
      if (std::getenv("PROCTAPE_VERBOSE") != nullptr) {
        Warn("Landlock is not available in this kernel: " + request.command +
             " runs without its file-system jail" + (SeccompAvailable() ? " (seccomp only)" : ""));
      }
    } else if (MaybeFailure failed = InstallLandlock(request, abi)) {
      return failed;
    }
  }
  if (!SeccompAvailable()) {
    if (std::getenv("PROCTAPE_VERBOSE") != nullptr) {
      Warn("seccomp is not available here (no seccomp in this kernel, or qemu-user): " +
           request.command + " runs without its system-call jail");
    }
  } else if (MaybeFailure failed = InstallSeccomp()) {
    return failed;
  }
  if (std::getenv("PROCTAPE_JAIL_PROBE") != nullptr) {
    std::fflush(stdout);
    std::fprintf(stderr, "proctape: jail probe: %s\n", ProbeSandbox().c_str());
  }
  return std::nullopt;
}

int Jail(const JailRequest& request) {
  MaybeFailure failed = EnterJail(request);
  if (!failed) return kExitOk;
  return Fail(kExitInternal, request.command + ": cannot enter its jail: " + failed->message);
}

}  // namespace proctape
