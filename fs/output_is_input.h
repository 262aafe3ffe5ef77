// SPDX-License-Identifier: Apache-2.0
// Where a command may write, held against what it reads, by identity
// (st_dev and st_ino), never by name (docs/cli/outputs.md, "An output is
// never an input", "Refusals"). Each rule says nothing when the path is
// fine, else why not, for the caller to say about the path.
#pragma once

#include <string>
#include <vector>

#include "core/failure.h"
#include "fs/inputs.h"

namespace proctape {

// The usage error (kUsage) when the output `path` that `option` names is
// one of the command's `inputs`, or nothing (docs/cli/outputs.md, "An output
// is never an input"; "-" is StandardOutputIsAnInput): refused whatever --force
// says, since writing it would destroy or change what the command reads.
// By identity, not by name (st_dev and st_ino, links and symbolic links
// followed): the output is the same file as an input (standard input
// included), or lies beneath an input that is a directory (the corpus's
// MANIFEST or an entry, a file in --proc-root DIR), or, a `directory_output`
// (export --format proc-dir), is a directory that holds an input. A file
// output that names a directory is none of these, whatever it holds: it is
// refused as a directory (docs/cli/outputs.md, "Refusals"). An output or
// input that does not exist yet is none of these, unless its directory is.
// The message says what the output is, for the caller to say about the path
// (cli/errors.h AboutPath):
//   inside the corpus 'cj', an input of this command: refused, --force or not
[[nodiscard]] MaybeFailure OutputIsAnInput(const std::string& path, bool directory_output,
                                           const std::vector<InputPath>& inputs);

// Standard output as an output of the command that reads `inputs`
// (docs/cli/outputs.md, "An output is never an input"): when descriptor 1
// is a regular file (`> F`, `>> F`, `1<> F`, -o -) that is the same file as
// an input (st_dev and st_ino; standard input included) or lies, by the
// name the kernel keeps for it, inside an input that is a directory, the
// usage error (kUsage), else nothing (a terminal, a pipe, /dev/null: never
// an input):
//   standard output is the same file as FILE 'x.ptape', an input of this command: refused
// OutputIsAnInput of "-" is this.
[[nodiscard]] MaybeFailure StandardOutputIsAnInput(const std::vector<InputPath>& inputs);
// The usage error (kUsage) when an input names '-' (dash_is_stdin) and
// standard input is a terminal, else nothing: a .ptape is binary, and reading one from a terminal
// would wait, silent, for what no one types (docs/cli/commands.md, "Inputs").
//   FILE '-' is standard input, which is a terminal: redirect a file into it ('< FILE') or name the file
[[nodiscard]] MaybeFailure StandardInputIsATerminal(const std::vector<InputPath>& inputs);

// What is wrong with `path` as a directory a command writes files into
// (explore --out DIR: each file then opened by OpenOutput; kIo), or nothing: it
// exists (no such directory: "cannot write: no such directory"), is a
// directory, links followed ("is not a directory: refused"), and this user
// may write in it ("cannot write: Permission denied"). Said with AboutPath,
// exit 10, before any work (docs/cli/outputs.md, "Refusals"). "-" names no
// directory: kUsage, "'-' (standard output) cannot be written here: name a
// directory", said after the option as every output's '-' is.
[[nodiscard]] MaybeFailure DirectoryWrittenIntoProblem(const std::string& path);

}  // namespace proctape
