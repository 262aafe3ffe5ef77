// SPDX-License-Identifier: Apache-2.0
#include "cli/command_io.h"

#include <utility>

#include "cli/errors.h"
#include "cli/exit_codes.h"
#include "cli/inputs.h"
#include "cli/jail.h"

namespace proctape {

MaybeFailure UndeclaredIo(const CommandIo& io) {
  const JailedCommand* entry = FindJailed(io.command);
  const std::string where = io.command + ": its jail (cli/jail_commands.cc) ";
  if (entry == nullptr || !entry->jailed)
    return Failure(FailureKind::kInternal, where + "is not stated");
  auto declared = [entry](const std::string& name) {
    for (std::string_view input : entry->inputs) {
      if (!input.empty() && input == name) return true;
    }
    return false;
  };
  for (const std::vector<InputPath>* list : {&io.inputs, &io.reads_beside}) {
    for (const InputPath& input : *list) {
      if (!declared(input.option)) {
        return Failure(FailureKind::kInternal, where + "declares no input " + input.option);
      }
    }
  }
  if (io.output && io.output_option != entry->output) {
    return Failure(FailureKind::kInternal, where + "declares no output " + io.output_option);
  }
  if (!io.creates_in.empty() && !entry->creates_in) {
    return Failure(FailureKind::kInternal, where + "declares no directory it makes files in");
  }
  return std::nullopt;
}

int EnterCommand(const CommandIo& io, std::unique_ptr<OutputFile>* output) {
  if (MaybeFailure undeclared = UndeclaredIo(io)) return Fail(*undeclared);
  std::vector<std::pair<std::string, std::vector<std::string>>> stdin_readers;
  std::vector<std::string> reads, beside;
  for (const InputPath& input : io.inputs) {
    if (input.dash_is_stdin) stdin_readers.push_back({input.option, {input.path}});
    reads.push_back(input.path);
  }
  // Every file the command reads is held against its outputs.
  std::vector<InputPath> read = io.inputs;
  for (const InputPath& input : io.reads_beside) {
    read.push_back(input);
    beside.push_back(input.path);
  }
  if (MaybeFailure twice = StdinOnce(stdin_readers)) return Fail(*twice);
  if (int refused = RefuseStandardStreams(read); refused != kExitOk) return refused;
  std::unique_ptr<OutputFile> opened;
  if (io.output) {
    int exit_code = kExitOk;
    opened = OpenOutput(*io.output, io.output_option, read, &exit_code);
    if (!opened) return exit_code;
  }
  const int jailed = Jail({io.command, std::move(reads), {opened.get()}, io.creates_in, beside});
  if (output != nullptr) *output = std::move(opened);
  return jailed;
}

}  // namespace proctape
