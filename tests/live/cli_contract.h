// SPDX-License-Identifier: Apache-2.0
// The command line as the binary itself states it (docs/cli.md): the
// commands `proctape --help` lists, with the subcommands of each command whose
// help lists some (`proctape help corpus`), and what each command's `--help`
// says of its options and positionals. The contract tests enumerate from this,
// so that a command or an option added to the binary cannot escape them.
#pragma once

#include <string>
#include <vector>

namespace proctape::live {

// A command as typed: {"verify"}, {"corpus", "add"}.
using CommandWords = std::vector<std::string>;
// "corpus add".
std::string NameOf(const CommandWords& command);

// Every command `proctape --help` lists, then the subcommands of each that
// has a "Subcommands:" section in its own help, in the order listed.
std::vector<CommandWords> EveryCommand();

// `proctape COMMAND --help`, exit status and text.
struct Help {
  int exit_code = -1;
  std::string text;
};
Help HelpOf(const CommandWords& command);

// One option or positional as a help lists it:
//   "  -o,--output,--out FILE (required)"      names -o --output --out, value FILE
//   "  --token-var NAME=PROCTAPE_TOKEN"        value NAME, default PROCTAPE_TOKEN
//   "  FILE ... (required)"                    a positional, repeated: value FILE
//   "  --format json|dot|proc-dir (required)"  value json|dot|proc-dir
//   "  --json"                                 a flag: no value
struct HelpEntry {
  std::vector<std::string> names;
  std::string value;
  bool positional = false;
  bool required = false;
  // The name to type: the last long name ("--output"), or the positional's.
  std::string Name() const;
  bool Has(const std::string& name) const;
};
// The entries of the "Positionals:" and "Options:" sections of `help`
// (--help itself left out).
std::vector<HelpEntry> HelpEntries(const std::string& help);

// Value names of integer options (cli/options.h: AddSigned and AddUnsigned
// give N, PID, UID, TICKS, MS or BYTES): each is a plain decimal in a range.
bool IsIntegerValue(const std::string& value);
// Value names of a path: FILE, DIR, PATH.
bool IsPathValue(const std::string& value);

// Lines of `text` (a last line without a newline counts), and a line's width
// in columns (UTF-8 characters: an em dash is one).
std::vector<std::string> LinesOf(const std::string& text);
std::size_t Columns(const std::string& line);

}  // namespace proctape::live
