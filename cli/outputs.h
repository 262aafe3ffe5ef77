// SPDX-License-Identifier: Apache-2.0
// The output options of every command, and their one handling
// (docs/cli/outputs.md; the rule itself is fs/output_file.h):
//
//   -o, --output FILE  a command's main output (capture, fingerprint, export;
//                      --out is the same option, kept for scripts)
//   --record FILE      a recording made beside the command's own report
//                      (resolve, liveness, lab)
//   --junit FILE       a report beside (corpus check)
//   --force            replace an existing output; only with a file to replace
//
// Checked together, before any work: an empty value is a usage error (at
// parse time), --force without a file output is one (ForceWithoutOutput),
// and the output is opened -- checked, its temporary made -- before the
// command reads anything (OpenOutput).
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include "fs/inputs.h"
#include "fs/output_file.h"
#include "fs/output_is_input.h"

namespace proctape {

// A path option's check: an empty value names nothing ("--output: an empty
// path names no file"; `what`: "directory" for a DIR, "output" for a FILE or
// DIR).
CLI::Validator NonEmptyPath(const std::string& what = "file");

// "-o,--output,--out FILE" (`type`: FILE, DIR, ...).
CLI::Option* AddOutputOption(CLI::App* sub, std::string& target, const std::string& help,
                             const std::string& type = "FILE");
// A file written beside the command's report: `name` is "--record" or "--junit".
CLI::Option* AddSideOutputOption(CLI::App* sub, const std::string& name, std::string& target,
                                 const std::string& help);
// "--force", with `help` saying what it replaces.
CLI::Option* AddForceOption(CLI::App* sub, bool& target, const std::string& help);

// The usage error of a --force that has no file to replace, or "": `option`
// is the output's name ("-o", "--record"), `given` whether it was given, and
// `value` its value ("-" is standard output, never replaced).
std::string ForceWithoutOutput(bool force, const std::string& option, bool given,
                               const std::string& value);

// Fail(kExitUsage, ...) when standard output is an input or standard input
// is a terminal named as one, else 0: run by every command that reads a file
// or directory, before any work.
int RefuseStandardStreams(const std::vector<InputPath>& inputs);

// OutputFile::Open of the output `option` names ("--output", "--record",
// "--junit"), after OutputIsAnInput against `inputs`; when refused, the one line is printed in the form of every
// error about a path (cli/errors.h AboutPath: "--output 'PATH': exists:
// refused ...") and *exit_code is 2 for a usage error, 10 for every other
// refusal.
std::unique_ptr<OutputFile> OpenOutput(const OutputRequest& request, const std::string& option,
                                       const std::vector<InputPath>& inputs, int* exit_code);

}  // namespace proctape
