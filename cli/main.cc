// proctape: snapshot and replay of Linux process identity. Parses the command
// line and hands over to one subcommand; prints "proctape: <error>" on misuse.
#include <CLI/CLI.hpp>
#include <google/protobuf/stubs/common.h>

#include "cli/commands.h"
#include "cli/exit_codes.h"

int main(int argc, char** argv) {
  CLI::App app{"proctape: find, record and replay the identity of Linux processes.\n"
               "Run 'proctape COMMAND --help' for one command."};
  app.require_subcommand(1);
  int exit_code = proctape::kExitOk;
  proctape::RegisterFingerprint(app, &exit_code, {argv, argv + argc});
  proctape::RegisterResolve(app, &exit_code, {argv, argv + argc});
  proctape::RegisterLiveness(app, &exit_code, {argv, argv + argc});
  proctape::RegisterCapture(app, &exit_code, {argv, argv + argc});
  proctape::RegisterVerify(app, &exit_code);
  proctape::RegisterReplay(app, &exit_code);
  proctape::RegisterCorpus(app, &exit_code);
  proctape::RegisterLab(app, &exit_code, {argv, argv + argc});
  proctape::RegisterShow(app, &exit_code);
  proctape::RegisterTree(app, &exit_code);
  proctape::RegisterDiff(app, &exit_code);
  proctape::RegisterExplain(app, &exit_code);
  proctape::RegisterExport(app, &exit_code);
  proctape::RegisterOwnership(app, &exit_code);
  app.footer(proctape::ExitCodeHelp());
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "proctape: %s (see 'proctape --help')\n", e.what());
    return proctape::kExitUsage;
  }
  // Frees protobuf's global tables, so leak checkers see a clean exit.
  google::protobuf::ShutdownProtobufLibrary();
  return exit_code;
}
