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

#include "fs/output_file.h"

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

// One file or directory a command reads, as its output is checked against
// it: `option` names it in messages ("--fingerprint", "FILE", "the corpus");
// `path` is as given ("-": standard input; "": none). A live --proc is none:
// a procfs holds no file to replace, and a --proc that is no procfs is
// refused as such (cli/live_proc.h).
struct InputPath {
  std::string option;
  std::string path;
  bool dash_is_stdin = true;  // false where '-' is not standard input (--exe, --proc-root)
  // A directory the command reads beneath (--proc-root, a corpus): an output
  // inside it is one of its inputs. Any other input that is a directory (a
  // FILE given as '.') is no input the command can read: the read says so,
  // not a refusal of where the output lies.
  bool tree = false;
};

// Each of `paths` as an input `option` names ("FILE" of show a.ptape b.ptape).
std::vector<InputPath> InputsNamed(const std::string& option,
                                   const std::vector<std::string>& paths);

// The usage error when the output `path` that `option` names is one of the
// command's `inputs`, or else "" (docs/cli/outputs.md, "An output is never
// an input"; "-" is StandardOutputIsAnInput): refused whatever --force
// says, since writing it would destroy or change what the command reads.
// By identity, not by name (st_dev and st_ino, links and symbolic links
// followed): the output is the same file as an input (standard input
// included), or lies beneath an input that is a directory (the corpus's
// MANIFEST or an entry, a file in --proc-root DIR), or, a `directory_output`
// (export --format proc-dir), is a directory that holds an input. A file
// output that names a directory is none of these, whatever it holds: it is
// refused as a directory (docs/cli/outputs.md, "Refusals"). An output or
// input that does not exist yet is none of these, unless its directory is.
// The line, in the form of every error about a path:
//   --junit 'cj/MANIFEST': inside the corpus 'cj', an input of this command: refused, --force or not
std::string OutputIsAnInput(const std::string& option, const std::string& path,
                            bool directory_output, const std::vector<InputPath>& inputs);

// Standard output as an output of the command that reads `inputs`
// (docs/cli/outputs.md, "An output is never an input"): when descriptor 1
// is a regular file (`> F`, `>> F`, `1<> F`, -o -) that is the same file as
// an input (st_dev and st_ino; standard input included) or lies, by the
// name the kernel keeps for it, inside an input that is a directory, the
// usage error, else "" (a terminal, a pipe, /dev/null: never an input):
//   standard output is the same file as FILE 'x.ptape', an input of this command: refused
// OutputIsAnInput of "-" is this.
std::string StandardOutputIsAnInput(const std::vector<InputPath>& inputs);
// The usage error when an input names '-' (dash_is_stdin) and standard input
// is a terminal, else "": a .ptape is binary, and reading one from a terminal
// would wait, silent, for what no one types (docs/cli/commands.md, "Inputs").
//   FILE '-' is standard input, which is a terminal: redirect a file into it ('< FILE') or name the file
std::string StandardInputIsATerminal(const std::vector<InputPath>& inputs);
// Fail(kExitUsage, ...) when standard output is an input or standard input
// is a terminal named as one, else 0: run by every command that reads a file
// or directory, before any work.
int RefuseStandardStreams(const std::vector<InputPath>& inputs);

// What is wrong with `path` as a directory a command writes files into
// (explore --out DIR: each file then opened by OpenOutput), or "": it
// exists (no such directory: "cannot write: no such directory"), is a
// directory, links followed ("is not a directory: refused"), and this user
// may write in it ("cannot write: Permission denied"). Said with AboutPath,
// exit 10, before any work (docs/cli/outputs.md, "Refusals").
std::string DirectoryWrittenIntoProblem(const std::string& path);

// OutputFile::Open of the output `option` names ("--output", "--record",
// "--junit"), after OutputIsAnInput against `inputs`; when refused, the one line is printed in the form of every
// error about a path (cli/errors.h AboutPath: "--output 'PATH': exists:
// refused ...") and *exit_code is 2 for a usage error, 10 for every other
// refusal.
std::unique_ptr<OutputFile> OpenOutput(const OutputRequest& request, const std::string& option,
                                       const std::vector<InputPath>& inputs, int* exit_code);

}  // namespace proctape
