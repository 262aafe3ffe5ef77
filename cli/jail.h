// SPDX-License-Identifier: Apache-2.0
// The jail every command but `lab` enters once it has parsed its arguments
// and opened its outputs (docs/security.md). Two layers, both enforced by the
// kernel and kept until the process ends:
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
// The CLI's alone: the library (include/proctape, api/) never installs a jail
// in the program that uses it.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace proctape {

class OutputFile;

struct JailRequest {
  JailRequest(std::string command_name, std::vector<std::string> inputs,
              std::vector<const OutputFile*> opened, std::vector<std::string> made_in = {},
              std::vector<std::string> beside = {})
      : command(std::move(command_name)),
        reads(std::move(inputs)),
        outputs(std::move(opened)),
        creates_in(std::move(made_in)),
        reads_beside(std::move(beside)) {}

  std::string command;                     // "verify", "corpus check": its JailedCommands() entry
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

// One command's jail, as `--print-jail` states it and EnterJail enforces it
// (docs/security.md, "The jail of each command").
struct JailedCommand {
  const char* name;   // "verify", "corpus check"
  bool jailed;        // false: lab alone
  bool landlock;      // layer 2: it reads only files
  const char* reads;  // what it reads, in words
  // The options that write and what each writes, in words, each option
  // named as it is given ("-o FILE ..., --db FILE"); "" writes nothing.
  const char* writes;
  // What the command's CommandIo (cli/command_io.h) may name, which
  // EnterCommand holds it to: how each input is named ("FILE",
  // "--fingerprint", "the corpus"), the option of its one output ("" none),
  // and whether it makes files in a directory once inside. The words above
  // name each of them (a unit test checks it), so --print-jail cannot say
  // less than what runs.
  std::vector<std::string_view> inputs = {};
  std::string_view output = {};
  bool creates_in = false;
};

// Every command, `lab` last.
const std::vector<JailedCommand>& JailedCommands();
// The entry of `command` ("corpus check"), or null.
const JailedCommand* FindJailed(std::string_view command);

// Enters the jail of request.command (its JailedCommands() entry; one not
// there, or lab, is an internal error). False, with *error one line, when a
// layer that the kernel offers could not be installed (the command must
// then stop: exit 1). With PROCTAPE_JAIL_PROBE set, prints one line to
// standard error once inside (ProbeJail).
bool EnterJail(const JailRequest& request, std::string* error);

// EnterJail, or the one error line and kExitInternal; 0 when entered.
int Jail(const JailRequest& request);

// The probe a test runs inside a command's jail (PROCTAPE_JAIL_PROBE=1):
// tries kill(getppid(), 0), ptrace(PTRACE_SEIZE) of the parent (detached at
// once should it succeed), open("/proc/1/stat"), and kill(getpid(), 0);
// the line: "proctape: jail probe: kill EPERM, ptrace EPERM, proc EACCES, self 0".
std::string ProbeJail();

// What is enforced, per command (`proctape --print-jail`): the refused
// calls, this kernel's Landlock ABI, then one line per command:
//   "  NAME: LAYERS; reads READS; writes WRITES" ("writes nothing")
std::string DescribeJail();

// The Landlock ABI of the running kernel (0: none).
int LandlockAbi();

// Whether seccomp filters can be installed here at all (false: a kernel
// without seccomp, or qemu-user; docs/security.md, "Under qemu-user").
bool SeccompAvailable();

}  // namespace proctape
