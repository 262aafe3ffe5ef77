// SPDX-License-Identifier: Apache-2.0
// Subcommands of the proctape binary. Each Register* adds one subcommand to
// the app; when it runs it stores its exit status in *exit_code.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace proctape {

void RegisterResolve(CLI::App& app, int* exit_code, std::vector<std::string> command_line);
void RegisterFingerprint(CLI::App& app, int* exit_code, std::vector<std::string> command_line);
void RegisterLiveness(CLI::App& app, int* exit_code, std::vector<std::string> command_line);
// `command_line` is proctape's own argv, stored in the snapshot's header.
void RegisterVerify(CLI::App& app, int* exit_code);
void RegisterReplay(CLI::App& app, int* exit_code);
// Kernel events around a recorded check, judged by an oracle
// (`docs/explore.md`).
void RegisterExplore(CLI::App& app, int* exit_code);
void RegisterMinimize(CLI::App& app, int* exit_code);
void RegisterSql(CLI::App& app, int* exit_code);
void RegisterCapture(CLI::App& app, int* exit_code, std::vector<std::string> command_line);
void RegisterCorpus(CLI::App& app, int* exit_code);
void RegisterLab(CLI::App& app, int* exit_code, std::vector<std::string> command_line);
// The analyze layer: views over snapshot files and the ownership planner.
void RegisterShow(CLI::App& app, int* exit_code);
void RegisterTree(CLI::App& app, int* exit_code);
void RegisterDiff(CLI::App& app, int* exit_code);
void RegisterExplain(CLI::App& app, int* exit_code);
void RegisterExport(CLI::App& app, int* exit_code);
void RegisterOwnership(CLI::App& app, int* exit_code);

}  // namespace proctape
