// SPDX-License-Identifier: Apache-2.0
// What a command reads and writes, declared once, and the one way every
// command but `lab` enters its work (docs/security.md, "The jail of each
// command"; docs/cli/outputs.md). What a CommandIo may name is its
// command's entry in the jail table, which --print-jail prints
// (cli/jail.h JailedCommand; UndeclaredIo). EnterCommand does, in the order
// the jail depends on:
//   1. standard input named at most once among the inputs (StdinOnce);
//   2. standard output that is an input, or a terminal read as '-', refused
//      (RefuseStandardStreams);
//   3. the output opened: checked against the inputs, its temporary made
//      (OpenOutput), so that nothing is read before it is known to be
//      writable;
//   4. the jail of `command` (its JailedCommands() entry): the inputs
//      readable, the output's directory writable, nothing else.
// Each failure is one line on standard error and its exit status.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/outputs.h"
#include "fs/output_file.h"

namespace proctape {

struct CommandIo {
  CommandIo(std::string command_name, std::vector<InputPath> read,
            std::optional<OutputRequest> written = std::nullopt)
      : command(std::move(command_name)), inputs(std::move(read)), output(std::move(written)) {}

  std::string command;                  // "verify", "corpus check"
  std::vector<InputPath> inputs;        // every file and directory it reads, as named
  std::optional<OutputRequest> output;  // its one output, when one is given
  std::string output_option = "--output";
  std::vector<std::string> creates_in;  // directories it makes files in once jailed
  // Files read for where they lie (the MANIFEST beside a FILE): inputs too,
  // so no output and no standard output may be one of them.
  std::vector<InputPath> reads_beside;
};

// What `io` names that its command's JailedCommands() entry does not
// declare (an input's name, its output option, a directory it makes files
// in), as an internal failure; nothing when the two agree. EnterCommand
// refuses such a command before step 1, so what --print-jail states is what
// runs.
[[nodiscard]] MaybeFailure UndeclaredIo(const CommandIo& io);

// Steps 1-4 above, after UndeclaredIo: kExitOk inside the jail, with *output the opened output
// (null when io.output is unset; `output` may be null then), or the status
// of the first failure, already said.
int EnterCommand(const CommandIo& io, std::unique_ptr<OutputFile>* output = nullptr);

}  // namespace proctape
