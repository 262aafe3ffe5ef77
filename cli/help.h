// SPDX-License-Identifier: Apache-2.0
// The top level of the command line: `proctape --help` (the commands in
// groups, one line each, one screen), `proctape help [COMMAND|exit-codes]`,
// `proctape --version`, an unknown command named as such, and usage errors
// that point to the help of the command they belong to (docs/cli.md).
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace proctape {

// Option lists without parser noise: a value's name (FILE, PID, N), its
// default where one is shown, "(required)"; descriptions reflowed to 80
// columns (help_format.cc, as Reflow below).
std::shared_ptr<CLI::Formatter> MakeFormatter();
// The name of an option's value as its help shows it: "FILE", "PID", "N",
// "VALUE" for an untyped string, "json|dot|proc-dir" for a set of choices;
// "" for a flag or a positional (named by itself).
std::string ValueName(const CLI::Option* opt);

// `text` wrapped to `width` columns: lines that are not indented are one
// paragraph, filled; a blank line ends it; an indented line starts a block
// (a list item) whose wrapped lines hang at its next line's deeper indent
// ("  json      the whole file ..." goes on under "the"). Words are never cut.
std::string Reflow(const std::string& text, std::size_t width);

// A top-level command's one line in `proctape --help` ("" for a command the
// table does not know).
std::string CommandSummary(const std::string& name);

// Puts every registered command in its group (the table in help.cc); a
// command the table does not know is a programming error caught by a test
// (`proctape help` lists it under "Other").
void GroupCommands(CLI::App& app);

// `proctape help [TOPIC]`.
void RegisterHelp(CLI::App& app, int* exit_code);

// The whole top-level help text.
std::string TopHelp(const CLI::App& app);
// `proctape --version`: one line, "proctape 0.1.0 (format 1, reads 1..1)",
// the version, the format version written and those read, then
// ", portable" in the portable build. `--version --json`: the same as one
// JSON document, {"version", "format": {"writes", "reads_oldest",
// "reads_newest"}, "portable"}.
std::string VersionText();
std::string VersionJson();

// Handles what CLI11 should not: no arguments, --help/-h, --version, an
// unknown top-level option or command. Returns the exit status when it
// handled the command line, nullopt when CLI11 should parse it.
std::optional<int> TopLevel(const CLI::App& app, const std::vector<std::string>& argv);

// A parse error of `argv`'s command, as one line naming that command's help;
// as JSON on standard error when the command line asked for --json. Returns 2.
int UsageError(const CLI::App& app, const std::vector<std::string>& argv, const std::string& what);

}  // namespace proctape
