// SPDX-License-Identifier: Apache-2.0
// CLI11's parse errors in proctape's words (docs/cli/messages.md, "Usage
// errors"): one line naming the option or argument at fault and what is
// wrong with it, never the parser's phrasing ("The following argument was
// not expected", "1 required PID missing", "At Most 1 required but received
// 2"). main prefixes it with the command and points to its help.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace proctape {

// What is wrong with the command line `app` failed to parse with `error`.
// An unknown option is named first, whatever CLI11 threw ("--token is
// required" is not the problem of a line that misspelt --token):
//   unknown option '--frame' (did you mean '--frames'?)
//   unexpected argument 'y'
//   unknown corpus command 'nosuch' (add, check, list, rm)
//   missing --token TOKEN (the per-invocation token the sandbox exported)
//   missing PID after --root (host pid of the app-server that started the sandbox)
//   --frame-a given 2 times (it takes one value)
//   --fingerprint and --root-start cannot be given together
//   --format: 'nope' is not one of json, dot, proc-dir
std::string ParseErrorText(const CLI::App& app, const CLI::ParseError& error);

// The name of `names` at most two edits from `word`, as " (did you mean
// 'NAME'?)", or "" when none is that close.
std::string DidYouMean(const std::string& word, const std::vector<std::string>& names);

}  // namespace proctape
