// SPDX-License-Identifier: Apache-2.0
// How a command says it failed: one line on standard error, "proctape:
// MESSAGE", or, when the command line asked for --json, one JSON object on
// standard error ({"command":..., "error":..., "exit_status":N}: ErrorReport
// of proto/proctape.proto), so that a script reading JSON gets JSON on both
// paths. The exit status is the caller's to return.
#pragma once

#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "core/failure.h"

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
// Under --json the ErrorReport is held and said when the command ends
// (Finish, FinishStandardOutput, or exit), after every warning and note,
// so that the last line of standard error is a failure (docs/cli/json.md);
// in text each line is said at once.
int Fail(int status, const std::string& message);
// "CMD: MESSAGE" with `status`, never a pointer to the command's help: a
// failure of what the user wrote in another language (SQL an engine
// refused), not of how proctape was called.
int FailInCommand(int status, const std::string& message);
// Fail(kExitUsage, message): the line is not one proctape can run.
int UsageError(const std::string& message);
// The status a command ends with, once it has run (main). Under --json a
// failure is one ErrorReport on standard error whatever the command printed
// on standard output (docs/cli.md §3): a nonzero status that no Fail said
// (a verdict, a drift, a refused plan, a damaged file: the report on
// standard output is the finding) is said here, by its status's meaning.
// That line is "exit N: WHAT: the report on standard output says ..." in
// the plain form (a finding is no usage error: no command before it, no
// pointer to help after), WHAT the words the command gave by Finding, else
// its status's meaning (ExitCodeMeaning). A status 2 no Fail said (a refused
// plan) is said so in text mode too: every exit 2 has its one line.
int Finish(int status);
// What the report a command printed found, in a few words ("1 entry
// unreadable, 0 drifted"), for Finish to say; returns `status`.
int Finding(int status, const std::string& what);
// The status a command ends with once standard output is flushed: when a
// write to it failed (a full disk, /dev/full, a closed descriptor), what
// the command printed is lost, which is said in one line (the words of
// export's -o -: "standard output: cannot write: No space left on device")
// and the status is at least 10 (kExitIo; a worse status the command gave
// stays: the larger wins). Run by main for every command, help and the
// top level's answers included.
int FinishStandardOutput(int status);
// Installed by main before anything is printed: standard output as a
// stream that keeps why its first failed write failed, for
// FinishStandardOutput to say (glibc's own keeps only a flag).
void WatchStandardOutput();
// What escaped a command as an exception (main catches it, the command's
// RAII having removed what it had begun), said as every failure is, with
// kExitInternal (1, "proctape itself failed"): std::bad_alloc as
//   proctape: CMD: out of memory (std::bad_alloc)
// (a limit on its memory, ulimit -v or a cgroup's, that the input needs more
// than), any other std::exception as "CMD: WHAT". Returns 1; a view past
// what it may hold (ViewTooLarge, analyze/process_table.h) is kExitTooLarge
// (16) instead, "CMD: frame I: ... past L bytes (the views' limit ...)".
int FailEscaped(const std::exception& e);
// An error about a file or directory the user named, in one form for
// every input and output (docs/cli/messages.md, "Errors about an input"):
//   PATH: WHAT              a positional FILE or DIR (`option` empty)
//   OPTION 'PATH': WHAT     a path an option brought:
//     --fingerprint 'fp.ptape': cannot open: No such file or directory
// PATH escaped as host text is (EscapeBytes); an output's '-' whose WHAT
// begins "standard output" is WHAT alone ("standard output: cannot write:
// No space left on device"), and one whose WHAT begins "'-'" (a refusal of
// '-' itself) is "OPTION WHAT" ("--junit '-' (standard output) cannot be
// written here: name a file"). WHAT says what is wrong; a
// library's message that begins with the path as it names it ("PATH: WHAT",
// "PATH/MANIFEST: WHAT") is given whole, and that naming is replaced.
std::string AboutPath(std::string_view option, std::string_view path, std::string_view what);
// Fail(status, AboutPath(option, path, what)).
int FailAbout(int status, std::string_view option, std::string_view path, std::string_view what);
// A library's failure (core/failure.h), with the status its kind has
// (cli/exit_codes.h ExitCodeFor): Fail, or FailAbout the path it concerns.
int Fail(const Failure& failure);
int FailAbout(std::string_view option, std::string_view path, const Failure& failure);
// A warning: "proctape: warning: MESSAGE" (JSON mode: {"warning": ...},
// said at once: before any failure, which is held).
void Warn(const std::string& message);
// A note on how to read the output: "proctape: note: MESSAGE" (JSON mode:
// {"note": ...}).
void Note(const std::string& message);

}  // namespace proctape
