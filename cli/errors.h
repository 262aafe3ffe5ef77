// How a command says it failed: one line on standard error, "proctape:
// MESSAGE", or, when the command line asked for --json, one JSON object on
// standard error ({"command":..., "error":..., "exit_status":N}: ErrorReport
// of proto/proctape.proto), so that a script reading JSON gets JSON on both
// paths. The exit status is the caller's to return.
#pragma once

#include <string>
#include <vector>

namespace proctape {

// Set once by main from the command line: the command's name ("corpus
// check") and whether --json was given to it.
void SetErrorMode(const std::string& command, bool json);
bool JsonErrors();

// Prints `message` (one line; a trailing newline is not needed) in the
// error mode and returns `status`.
int Fail(int status, const std::string& message);
// A warning: "proctape: warning: MESSAGE" (JSON mode: {"warning": ...}).
void Warn(const std::string& message);
// A note on how to read the output: "proctape: note: MESSAGE" (JSON mode:
// {"note": ...}).
void Note(const std::string& message);

}  // namespace proctape
