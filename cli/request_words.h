// SPDX-License-Identifier: Apache-2.0
// The request words an operator types (docs/cli/commands.md, "Values that
// cannot mean anything"): resolve's --token, --token-var and --argv, and the
// same options of replay, which replace the recorded ones. Both commands
// check them with the resolver's own rule (core/resolver.h,
// CheckRequestWords) before any read: what the resolver would refuse as
// INVALID_REQUEST is refused on the command line, exit 2, never run, polled
// or replayed into a divergence.
#pragma once

#include <string>
#include <vector>

namespace proctape {

// False, after the one usage line naming the option
// (`--token: the invocation token is empty (INVALID_REQUEST)`, exit 2, in
// *exit_code), when a given word (null: not given) is invalid.
bool RequestWordsValid(const std::string* token, const std::string* token_var,
                       const std::vector<std::string>* argv, int* exit_code);

}  // namespace proctape
