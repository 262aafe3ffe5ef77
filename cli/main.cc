// SPDX-License-Identifier: Apache-2.0
// proctape: snapshot and replay of Linux process identity. Parses the command
// line and hands over to one subcommand (cli/commands.h). Usage errors are
// one line on standard error, naming the command whose help teaches it, with
// exit status 2 (docs/cli.md).
#include <CLI/CLI.hpp>
#include <google/protobuf/stubs/common.h>

#include <malloc.h>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/exit_codes.h"
#include "cli/help.h"
#include "cli/inputs.h"
#include "cli/parse_errors.h"
#include "fs/interrupt.h"

namespace {

// What every run sets up before it parses its command line.
void SetUpProcess() {
  proctape::HoldClosedStandardDescriptors();
  proctape::WatchStandardOutput();
  // Out of memory ends the process at once, its outputs removed, its line
  // said (fs/interrupt.h: never by unwinding through protobuf).
  proctape::SetOutOfMemoryNotice("proctape: out of memory\n");
  proctape::InstallOutOfMemoryHandler(proctape::kExitInternal);
  // No fast bins: a reader frees a chunk's thousands of records at once, and
  // glibc then walks every fast bin at each free of a large block (the
  // records' array): 15 % of `show`'s CPU (BENCHMARKS.md "Readers against
  // the decode floor, again").
  mallopt(M_MXFAST, 0);
}

}  // namespace

int main(int argc, char** argv) {
  SetUpProcess();
  CLI::App app{"find, record and replay the identity of Linux processes", "proctape"};
  app.formatter(proctape::MakeFormatter());
  app.set_help_flag("-h,--help", "print this help and exit");  // every command inherits it
  app.require_subcommand(0, 1);  // one command a run: a FILE named `show` is a FILE
  int exit_code = proctape::kExitOk;
  const std::vector<std::string> command_line(argv, argv + argc);
  proctape::RegisterFingerprint(app, &exit_code, command_line);
  proctape::RegisterResolve(app, &exit_code, command_line);
  proctape::RegisterLiveness(app, &exit_code, command_line);
  proctape::RegisterCapture(app, &exit_code, command_line);
  proctape::RegisterVerify(app, &exit_code);
  proctape::RegisterShow(app, &exit_code);
  proctape::RegisterTree(app, &exit_code);
  proctape::RegisterDiff(app, &exit_code);
  proctape::RegisterExplain(app, &exit_code);
  proctape::RegisterExport(app, &exit_code);
  proctape::RegisterReplay(app, &exit_code);
  proctape::RegisterExplore(app, &exit_code);
  proctape::RegisterMinimize(app, &exit_code);
  proctape::RegisterSql(app, &exit_code);
  proctape::RegisterCorpus(app, &exit_code);
  proctape::RegisterLab(app, &exit_code, command_line);
  proctape::RegisterOwnership(app, &exit_code);
  proctape::RegisterHelp(app, &exit_code);
  proctape::GroupCommands(app);

  // Before CLI11 sees it: the top level is proctape's own (a grouped list of
  // the commands that fits a screen, the version, an unknown command named).
  // Every answer ends by FinishStandardOutput: a failed write to standard
  // output is never silent, whatever printed it.
  if (std::optional<int> handled = proctape::TopLevel(app, command_line)) {
    return proctape::FinishStandardOutput(*handled);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return proctape::FinishStandardOutput(app.exit(e));
  } catch (const CLI::CallForAllHelp& e) {
    return proctape::FinishStandardOutput(app.exit(e));
  } catch (const CLI::ParseError& e) {
    return proctape::UsageError(app, command_line, proctape::ParseErrorText(app, e));
  } catch (const std::exception& e) {
    // What escaped a command (std::bad_alloc: its input needs more memory
    // than it may use), unwound: its outputs removed, its failure one line
    // with status 1, or the ErrorReport under --json (cli/errors.h).
    exit_code = proctape::FailEscaped(e);
  }
  // Under --json every failure ends in its ErrorReport (cli/errors.h).
  exit_code = proctape::Finish(proctape::FinishStandardOutput(exit_code));
  // Frees protobuf's global tables, so leak checkers see a clean exit.
  google::protobuf::ShutdownProtobufLibrary();
  return exit_code;
}
