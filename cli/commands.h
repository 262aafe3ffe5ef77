// Subcommands of the proctape binary. Each Register* adds one subcommand to
// the app; when it runs it stores its exit status in *exit_code.
#pragma once

#include <CLI/CLI.hpp>

namespace proctape {

void RegisterResolve(CLI::App& app, int* exit_code);
void RegisterLiveness(CLI::App& app, int* exit_code);

}  // namespace proctape
