// SPDX-License-Identifier: Apache-2.0
// The kernel's two layers a command runs in once it has parsed its
// arguments and opened its outputs (docs/security.md, "The jail of each
// command"), kept until the process ends; which command gets which is the
// CLI's table (cli/jail.h):
//
//   1. seccomp (libseccomp), where there is seccomp at all (not so in a
//      kernel without it, nor under qemu-user: SeccompAvailable(); then the
//      command goes on without this layer, said on standard error when
//      PROCTAPE_VERBOSE is set): kill, tkill, tgkill, rt_sigqueueinfo,
//      rt_tgsigqueueinfo, pidfd_send_signal, ptrace, process_vm_readv,
//      process_vm_writev and pidfd_getfd fail with EPERM -- "proctape never
//      signals or ptraces another process" is a fact of the kernel. Signals
//      to proctape itself stay allowed (kill, tgkill, rt_sigqueueinfo and
//      rt_tgsigqueueinfo whose first argument is its own pid, tkill of its
//      main thread), so raise() and the interrupt handlers'
//      re-raise (fs/interrupt.h) keep working.
//   2. Landlock, for the commands that read only files (JailedCommands()
//      says which): the inputs are readable (a file; a directory and what is
//      beneath it), a file read beside them only when it is a regular file
//      (its link never followed), an output's directory allows making and
//      removing entries (the temporary and its rename), a directory the
//      command makes files in after entering (explore --out) allows making,
//      writing and replacing them, and nothing else of the file system is
//      reachable -- /proc included. Where the kernel has no Landlock
//      (ABI < 1) the command goes on with seccomp alone, and says so once on
//      standard error when PROCTAPE_VERBOSE is set.
//
// Never installed by the library (include/proctape, api/) in the program
// that uses it.
#pragma once

#include <string>
#include <vector>

#include "core/failure.h"

namespace proctape {

class OutputFile;

// What layer 2 lets the command reach.
struct SandboxPaths {
  std::vector<std::string> reads;          // its inputs ("-", standard input, is skipped)
  std::vector<const OutputFile*> outputs;  // its opened outputs (null ones skipped)
  // Directories it makes files in once inside, each by the rule of
  // fs/output_file.h (explore --out); "" skipped.
  std::vector<std::string> creates_in;
  // Files it reads because of where they lie (the MANIFEST beside a FILE,
  // corpus/beside_file.h): readable when a regular file, a link never
  // followed; "" skipped.
  std::vector<std::string> reads_beside;
};

// The Landlock ABI of the running kernel (0: none).
int LandlockAbi();

// Whether seccomp filters can be installed here at all (false: a kernel
// without seccomp, or qemu-user; docs/security.md, "Under qemu-user").
bool SeccompAvailable();

// Layer 2 for `paths` under Landlock `abi` (>= 1): kInternal when the kernel
// refused a step (the command must then stop).
[[nodiscard]] MaybeFailure InstallLandlock(const SandboxPaths& paths, int abi);

// Layer 1: kInternal when the filter could not be loaded.
[[nodiscard]] MaybeFailure InstallSeccomp();

// The probe a test runs inside a command's jail (PROCTAPE_JAIL_PROBE=1):
// tries kill(getppid(), 0), ptrace(PTRACE_SEIZE) of the parent (detached at
// once should it succeed), open("/proc/1/stat"), and kill(getpid(), 0);
// the line: "kill EPERM, ptrace EPERM, proc EACCES, self 0".
std::string ProbeSandbox();

}  // namespace proctape
