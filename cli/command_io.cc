// SPDX-License-Identifier: Apache-2.0
#include "cli/command_io.h"

#include <utility>

#include "cli/errors.h"
#include "cli/exit_codes.h"
#include "cli/inputs.h"
#include "cli/jail.h"

namespace proctape {

int EnterCommand(const CommandIo& io, std::unique_ptr<OutputFile>* output) {
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
