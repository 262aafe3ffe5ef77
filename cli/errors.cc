#include "cli/errors.h"

#include <csignal>
#include <cstdio>

#include "cli/exit_codes.h"
#include "core/proc_parse.h"
#include "format/interrupt.h"
#include "proto/convert.h"

namespace proctape {
namespace {

struct Mode {
  std::string command;
  bool json = false;
  bool failure_said = false;  // Fail printed a failure
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

}  // namespace

void SetErrorMode(const std::string& command, bool json) {
  ErrorModeOf() = Mode{command, json};
  if (!json) return;
  // Under --json a command a signal ends says so in JSON too: its failure,
  // with the status a shell gives it (128 + N), written by the handler
  // (format/interrupt.h). A command that defers the first signal (capture)
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

int Fail(int status, const std::string& raw) {
  Mode& mode = ErrorModeOf();
  mode.failure_said = true;
  const std::string message = status == kExitUsage ? AsUsageError(mode.command, OneLine(raw)) : raw;
  if (mode.json) {
    v1::ErrorReport report;
    report.set_command(mode.command);
    report.set_error(OneLine(message));
    report.set_exit_status(status);
    std::fprintf(stderr, "%s\n", ToJson(report).c_str());
  } else {
    std::fprintf(stderr, "proctape: %s\n", OneLine(message).c_str());
  }
  return status;
}

int Finish(int status) {
  const Mode& mode = ErrorModeOf();
  if (!mode.json || status == kExitOk || mode.failure_said) return status;
  return Fail(status, "exit " + std::to_string(status) + ", " + ExitCodeMeaning(status) +
                          ": the report on standard output says what was found");
}

std::string AboutPath(std::string_view option, std::string_view path, std::string_view what) {
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
