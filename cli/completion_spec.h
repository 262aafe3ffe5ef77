// SPDX-License-Identifier: Apache-2.0
// `proctape help --completion-spec` (hidden): the command line's shape, read
// from the CLI11 definitions the binary parses with, for the generators that
// write the bash and zsh completions (packaging/completion/) and the man
// pages (packaging/man/) at build time. Both are made from this text, so
// they cannot drift from the commands.
//
// One fact a line, fields separated by a tab:
//   command  PATH                    a command: "fingerprint", "corpus add"
//   summary  PATH  TEXT              its one line: `proctape --help`'s, or the
//                                    first sentence of its description
//   option   PATH  NAME  KIND        one name of an option: "--out", "-o"
//   positional PATH KIND             the command takes positional arguments
// KIND says what a value is, from the name help shows for it:
//   flag (no value), file (FILE), dir (DIR), path (PATH: a file or a
//   directory), choice:a,b,c (one of these), command (a command's name),
//   value (anything else: a number, a token, a name).
// Commands come before their options; a command with subcommands ("corpus")
// is listed with its options, then each subcommand.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace proctape {

std::string CompletionSpec(const CLI::App& app);

}  // namespace proctape
