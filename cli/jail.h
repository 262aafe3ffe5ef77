// The jail every command but `lab` enters once it has parsed its arguments
// and opened its outputs (docs/security.md). Two layers, both enforced by the
// kernel and kept until the process ends:
//
//   1. seccomp (libseccomp): kill, tkill, tgkill, rt_sigqueueinfo,
//      rt_tgsigqueueinfo, pidfd_send_signal, ptrace, process_vm_readv,
//      process_vm_writev and pidfd_getfd fail with EPERM -- "proctape never
//      signals or ptraces another process" is a fact of the kernel. Signals
//      to proctape itself stay allowed (kill, tgkill, rt_sigqueueinfo and
//      rt_tgsigqueueinfo whose first argument is its own pid, tkill of its
//      main thread), so raise() and the interrupt handlers'
//      re-raise (format/interrupt.h) keep working.
//   2. Landlock, for the commands that read only files (verify, show, tree,
//      diff, explain, export, replay, explore, minimize, sql, corpus check):
//      the inputs are readable
//      (a file; a directory and what is beneath it), an output's directory
//      allows making and removing entries (the temporary and its rename),
//      and nothing else of the file system is reachable -- /proc included.
//      Where the kernel has no Landlock (ABI < 1) the command goes on with
//      seccomp alone, and says so once on standard error when PROCTAPE_VERBOSE
//      is set.
//
// The CLI's alone: the library (include/proctape, api/) never installs a jail
// in the program that uses it.
#pragma once

#include <string>
#include <vector>

namespace proctape {

class OutputFile;

struct JailRequest {
  std::string command;               // "verify", "corpus check": for messages
  bool files_only = false;           // layer 2: the command reads only files
  std::vector<std::string> reads;    // its inputs ("-", standard input, is skipped)
  std::vector<const OutputFile*> outputs;  // its opened outputs (null ones skipped)
};

// Enters the jail. False, with *error one line, when a layer that the kernel
// offers could not be installed (the command must then stop: exit 1). With
// PROCTAPE_JAIL_PROBE set, prints one line to standard error once inside
// (ProbeJail).
bool EnterJail(const JailRequest& request, std::string* error);

// EnterJail, or the one error line and kExitInternal; 0 when entered.
int Jail(const JailRequest& request);

// The probe a test runs inside a command's jail (PROCTAPE_JAIL_PROBE=1):
// tries kill(getppid(), 0), ptrace(PTRACE_SEIZE) of the parent (detached at
// once should it succeed), open("/proc/1/stat"), and kill(getpid(), 0);
// the line: "proctape: jail probe: kill EPERM, ptrace EPERM, proc EACCES, self 0".
std::string ProbeJail();

// What is enforced, per command (`proctape --print-jail`).
std::string DescribeJail();

// The Landlock ABI of the running kernel (0: none).
int LandlockAbi();

}  // namespace proctape
