// SPDX-License-Identifier: Apache-2.0
#include "cli/errors.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <new>
#include <vector>

#include <unistd.h>

#include "analyze/process_table.h"
#include "cli/exit_codes.h"
#include "core/proc_parse.h"
#include "fs/interrupt.h"
#include "proto/convert.h"

namespace proctape {
namespace {

struct Mode {
  std::string command;
  bool json = false;
  bool failure_said = false;  // Fail printed a failure
  std::string finding;        // Finding: what the report found
  // Under --json, the failures said so far, each its ErrorReport line: held
  // until the command ends (SayHeldFailures), so that a warning or note
  // given after a failure still comes before it, and the last line of
  // standard error is the failure.
  std::vector<std::string> held;
};

Mode& ErrorModeOf() {
  static Mode mode;
  return mode;
}

std::string OneLine(std::string message) {
  while (!message.empty() && message.back() == '\n') message.pop_back();
  for (char& c : message) {
    if (c == '\n') c = ' ';
  }
  return message;
}

// "CMD: WHAT (see 'proctape CMD --help')".
std::string AsUsageError(const std::string& command, const std::string& what) {
  if (command.empty()) return what + " (see 'proctape --help')";
  return command + ": " + what + " (see 'proctape " + command + " --help')";
}

// The held failures, in the order said, on standard error. Rendered when
// said, so that this needs no protobuf (it runs at exit too, after main has
// shut protobuf down).
void SayHeldFailures() {
  Mode& mode = ErrorModeOf();
  for (const std::string& line : mode.held) std::fputs(line.c_str(), stderr);
  mode.held.clear();
  std::fflush(stderr);
}

// `message` as it is, on standard error in the error mode (under --json:
// held until the command ends, see Mode::held).
int Say(int status, const std::string& message) {
  Mode& mode = ErrorModeOf();
  mode.failure_said = true;
  if (mode.json) {
    v1::ErrorReport report;
    report.set_command(mode.command);
    report.set_error(OneLine(message));
    report.set_exit_status(status);
    mode.held.push_back(ToJson(report) + "\n");
    // Every way out says them: main's Finish and FinishStandardOutput, and
    // exit for a path that returns without them (a parse error).
    static const bool at_exit = std::atexit(SayHeldFailures) == 0;
    (void)at_exit;
  } else {
    std::fprintf(stderr, "proctape: %s\n", OneLine(message).c_str());
  }
  return status;
}

}  // namespace

void SetErrorMode(const std::string& command, bool json) {
  SayHeldFailures();
  ErrorModeOf() = Mode{command, json, false, {}, {}};
  // Out of memory is said as FailEscaped says it, by the handler
  // (fs/interrupt.h): status 1, its outputs removed, no unwinding.
  const std::string oom =
      "out of memory (a limit on proctape's memory, ulimit -v or a "
      "cgroup's, that the input needs more than)";
  if (json) {
    v1::ErrorReport report;
    report.set_command(command);
    report.set_error(command.empty() ? oom : command + ": " + oom);
    report.set_exit_status(kExitInternal);
    SetOutOfMemoryNotice(ToJson(report) + "\n");
  } else {
    SetOutOfMemoryNotice("proctape: " + (command.empty() ? oom : command + ": " + oom) + "\n");
  }
  if (!json) return;
  // Under --json a command a signal ends says so in JSON too: its failure,
  // with the status a shell gives it (128 + N), written by the handler
  // (fs/interrupt.h). A command that defers the first signal (capture)
  // fails with it itself.
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    v1::ErrorReport report;
    report.set_command(command);
    report.set_error("interrupted by " + SignalName(sig) +
                     ": ended before it finished; nothing it had begun is left");
    report.set_exit_status(ExitInterrupted(sig));
    SetInterruptNotice(sig, ToJson(report) + "\n");
  }
}

bool JsonErrors() { return ErrorModeOf().json; }

int UsageError(const std::string& message) { return Fail(kExitUsage, message); }

int FailInCommand(int status, const std::string& message) {
  const std::string& command = ErrorModeOf().command;
  return Say(status, command.empty() ? message : command + ": " + message);
}

int Fail(int status, const std::string& raw) {
  const std::string message =
      status == kExitUsage ? AsUsageError(ErrorModeOf().command, OneLine(raw)) : raw;
  return Say(status, message);
}

int FailEscaped(const std::exception& e) {
  const std::string& command = ErrorModeOf().command;
  // A view past what it may hold (docs/format.md section 7, "What the views
  // hold"): refused as too large, as the reader refuses a file.
  if (dynamic_cast<const ViewTooLarge*>(&e) != nullptr) {
    return Fail(kExitTooLarge, command.empty() ? e.what() : command + ": " + e.what());
  }
  const std::string what = dynamic_cast<const std::bad_alloc*>(&e) != nullptr
                               ? std::string("out of memory (") + e.what() + ")"
                               : std::string(e.what());
  return Fail(kExitInternal, command.empty() ? what : command + ": " + what);
}

int Finish(int status) {
  Mode& mode = ErrorModeOf();
  if (status == kExitOk || mode.failure_said || (!mode.json && status != kExitUsage)) {
    SayHeldFailures();
    return status;
  }
  const std::string what = mode.finding.empty() ? ExitCodeMeaning(status) : mode.finding;
  // Said as found, not as a usage error: Fail's usage form is not wanted.
  const std::string line = "exit " + std::to_string(status) + ": " + what +
                           ": the report on standard output says what was found";
  Say(status, line);
  SayHeldFailures();
  return status;
}

int Finding(int status, const std::string& what) {
  ErrorModeOf().finding = what;
  return status;
}

namespace {

// The errno of the first write to standard output that failed, kept by the
// stream WatchStandardOutput installs (a command's own fflush may meet the
// failure long before main looks).
int first_stdout_error = 0;
// The stream WatchStandardOutput replaced: std::cout (CLI11's help) still
// writes through it.
std::FILE* plain_stdout = nullptr;

ssize_t WriteStandardOutput(void*, const char* data, size_t size) {
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::write(STDOUT_FILENO, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (first_stdout_error == 0) first_stdout_error = n < 0 ? errno : EIO;
      return done > 0 ? static_cast<ssize_t>(done) : -1;
    }
    done += static_cast<size_t>(n);
  }
  return static_cast<ssize_t>(done);
}

}  // namespace

void WatchStandardOutput() {
  cookie_io_functions_t io{};
  io.write = WriteStandardOutput;
  std::FILE* watched = ::fopencookie(nullptr, "w", io);
  if (watched == nullptr)
    return;  // the plain stream: a failure is still found, its reason maybe not
  // Buffered as the stream it replaces: by line on a terminal, else whole.
  std::setvbuf(watched, nullptr, ::isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, BUFSIZ);
  plain_stdout = stdout;
  stdout = watched;
}

int FinishStandardOutput(int status) {
  std::cout.flush();
  bool failed = std::cout.fail();
  int err = 0;
  for (std::FILE* stream : {stdout, plain_stdout}) {
    if (stream == nullptr) continue;
    errno = 0;
    if (std::fflush(stream) != 0) {
      failed = true;
      if (err == 0) err = errno;
    }
    if (std::ferror(stream)) failed = true;
  }
  if (!failed) {
    SayHeldFailures();
    return status;
  }
  if (first_stdout_error != 0) err = first_stdout_error;
  // A failure a command's own fflush met left only the stream's flag: an
  // empty write asks the descriptor why (a full device says ENOSPC).
  if (err == 0 && ::write(STDOUT_FILENO, "", 0) < 0) err = errno;
  std::string why = "standard output: cannot write";
  if (err != 0) why += std::string(": ") + std::strerror(err);
  std::clearerr(stdout);
  const int io = Fail(kExitIo, why);
  SayHeldFailures();
  return status > io ? status : io;
}

std::string AboutPath(std::string_view option, std::string_view path, std::string_view what) {
  // An output of '-' is standard output, which its message names: the one
  // wording of standard output's failures, -o typed or not.
  if (path == "-" && what.substr(0, 15) == "standard output") return std::string(what);
  // A refusal of '-' itself names it: "--junit '-' (standard output) cannot be written here".
  if (path == "-" && what.substr(0, 3) == "'-'")
    return std::string(option) + " " + std::string(what);
  const std::string shown = EscapeBytes(path, 4096);
  // A library names the file it speaks of first ("PATH: WHAT"), or a file
  // in the directory it was given ("DIR/MANIFEST: WHAT"): said once here.
  if (!shown.empty() && what.substr(0, shown.size()) == shown && what.size() > shown.size()) {
    std::string_view rest = what.substr(shown.size());
    const std::size_t inside = rest.find_first_not_of('/');
    if (rest.substr(0, 2) == ": ") {
      what = rest.substr(2);
    } else if (option.empty()) {
      return std::string(what);  // PATH/NAME: WHAT is already the positional form
    } else if (inside != std::string_view::npos && (inside > 0 || shown.back() == '/')) {
      what = rest.substr(inside);
    }
  }
  if (option.empty()) return shown + ": " + std::string(what);
  return std::string(option) + " '" + shown + "': " + std::string(what);
}

int FailAbout(int status, std::string_view option, std::string_view path, std::string_view what) {
  return Fail(status, AboutPath(option, path, what));
}

int Fail(const Failure& failure) { return Fail(ExitCodeFor(failure.kind), failure.message); }

int FailAbout(std::string_view option, std::string_view path, const Failure& failure) {
  return FailAbout(ExitCodeFor(failure.kind), option, path, failure.message);
}

void Warn(const std::string& message) {
  if (ErrorModeOf().json) {
    v1::ErrorReport report;
    report.set_command(ErrorModeOf().command);
    report.set_warning(OneLine(message));
    std::fprintf(stderr, "%s\n", ToJson(report).c_str());
  } else {
    std::fprintf(stderr, "proctape: warning: %s\n", OneLine(message).c_str());
  }
}

void Note(const std::string& message) {
  if (ErrorModeOf().json) {
    v1::ErrorReport report;
    report.set_command(ErrorModeOf().command);
    report.set_note(OneLine(message));
    std::fprintf(stderr, "%s\n", ToJson(report).c_str());
  } else {
    std::fprintf(stderr, "proctape: note: %s\n", OneLine(message).c_str());
  }
}

}  // namespace proctape
