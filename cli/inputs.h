// SPDX-License-Identifier: Apache-2.0
// The files a command reads (docs/cli/commands.md, "Inputs"): every option
// or argument that names a file to read takes '-' for standard input, and
// standard input can be read once per command line. A command that takes
// several FILEs handles each in the order given.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "fs/inputs.h"

namespace proctape {

// The usage error when standard input is named more than once among
// `inputs` (each: how the input is named in help, "FILE" or "--baseline",
// and the values given to it) -- as '-', or by a path that
// IsStandardInputStream -- else nothing. A second read of standard input
// would find it at its end.
[[nodiscard]] MaybeFailure StdinOnce(
    const std::vector<std::pair<std::string, std::vector<std::string>>>& inputs);

// One JSON document for the reports of several inputs: the one report
// itself when there is one, else {"files": [...]} of them in order
// (VerifyReports, ShowReports, CorpusAddResults); with `always_list`, the
// list whatever its length (explore --shard: a shard holds any number).
std::string JsonList(const std::vector<std::string>& reports, bool always_list = false);

// The larger of two exit statuses: several files give the largest of theirs
// (0 only when every file gave 0).
inline int Worst(int a, int b) { return a > b ? a : b; }

}  // namespace proctape
