// How a command says it failed: one line on standard error, "proctape:
// MESSAGE", or, when the command line asked for --json, one JSON object on
// standard error ({"command":..., "error":..., "exit_status":N}: ErrorReport
// of proto/proctape.proto), so that a script reading JSON gets JSON on both
// paths. The exit status is the caller's to return.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace proctape {

// Set once by main from the command line: the command's name ("corpus
// check") and whether --json was given to it.
void SetErrorMode(const std::string& command, bool json);
bool JsonErrors();

// Prints `message` (one line; a trailing newline is not needed) in the
// error mode and returns `status`. A usage error (status 2, kExitUsage) is
// said in the one form every usage error has, parse errors and those found
// when the command runs alike (docs/cli/messages.md):
//   proctape: CMD: MESSAGE (see 'proctape CMD --help')
//   proctape: MESSAGE (see 'proctape --help')      (no command known)
// so `message` says only what is wrong: no command name, no pointer to help.
int Fail(int status, const std::string& message);
// Fail(kExitUsage, message): the line is not one proctape can run.
int UsageError(const std::string& message);
// The status a command ends with, once it has run (main). Under --json a
// failure is one ErrorReport on standard error whatever the command printed
// on standard output (docs/cli.md §3): a nonzero status that no Fail said
// (a verdict, a drift, a refused plan, a damaged file: the report on
// standard output is the finding) is said here, by its status's meaning.
int Finish(int status);
// An error about a file or directory the user named, in one form for
// every input and output (docs/cli/messages.md, "Errors about an input"):
//   PATH: WHAT              a positional FILE or DIR (`option` empty)
//   OPTION 'PATH': WHAT     a path an option brought:
//     --fingerprint 'fp.ptape': cannot open: No such file or directory
// PATH escaped as host text is (EscapeBytes). WHAT says what is wrong; a
// library's message that begins with the path as it names it ("PATH: WHAT",
// "PATH/MANIFEST: WHAT") is given whole, and that naming is replaced.
std::string AboutPath(std::string_view option, std::string_view path, std::string_view what);
// Fail(status, AboutPath(option, path, what)).
int FailAbout(int status, std::string_view option, std::string_view path, std::string_view what);
// A warning: "proctape: warning: MESSAGE" (JSON mode: {"warning": ...}).
void Warn(const std::string& message);
// A note on how to read the output: "proctape: note: MESSAGE" (JSON mode:
// {"note": ...}).
void Note(const std::string& message);

}  // namespace proctape
