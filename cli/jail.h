// SPDX-License-Identifier: Apache-2.0
// The jail every command but `lab` enters once it has parsed its arguments
// and opened its outputs (docs/security.md): the kernel's two layers
// (sandbox/sandbox.h, seccomp for every such command, Landlock for those
// that read only files), chosen by the one table of what each command reads
// and writes (JailedCommands(), which `--print-jail` prints). Where the
// kernel offers a layer not, the command goes on without it, said on
// standard error when PROCTAPE_VERBOSE is set.
//
// The CLI's alone: the library (include/proctape, api/) never installs a jail
// in the program that uses it.
#pragma once

#include <array>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/failure.h"
#include "sandbox/sandbox.h"

namespace proctape {

struct JailRequest : SandboxPaths {
  JailRequest(std::string command_name, std::vector<std::string> inputs,
              std::vector<const OutputFile*> opened, std::vector<std::string> made_in = {},
              std::vector<std::string> beside = {})
      : SandboxPaths{std::move(inputs), std::move(opened), std::move(made_in), std::move(beside)},
        command(std::move(command_name)) {}

  std::string command;  // "verify", "corpus check": its JailedCommands() entry
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
  std::array<std::string_view, 2> inputs = {};  // "" past the last
  std::string_view output = {};
  bool creates_in = false;
};

// Every command, `lab` last.
std::span<const JailedCommand> JailedCommands();
// The entry of `command` ("corpus check"), or null.
const JailedCommand* FindJailed(std::string_view command);

// Enters the jail of request.command (its JailedCommands() entry; one not
// there, or lab, is an internal error). A Failure (one line) when a layer
// that the kernel offers could not be installed (the command must then stop:
// exit 1). With PROCTAPE_JAIL_PROBE set, prints one line to standard error
// once inside (ProbeSandbox).
MaybeFailure EnterJail(const JailRequest& request);

// EnterJail, or the one error line and kExitInternal; 0 when entered.
int Jail(const JailRequest& request);

// What is enforced, per command (`proctape --print-jail`): the refused
// calls, this kernel's Landlock ABI, then one line per command:
//   "  NAME: LAYERS; reads READS; writes WRITES" ("writes nothing")
std::string DescribeJail();

}  // namespace proctape
