// SPDX-License-Identifier: Apache-2.0
#include "cli/request_words.h"

#include "cli/errors.h"
#include "cli/exit_codes.h"
#include "core/resolver.h"

namespace proctape {

bool RequestWordsValid(const std::string* token, const std::string* token_var,
                       const std::vector<std::string>* argv, int* exit_code) {
  // The default bound: a recording's own may differ, and its replay checks
  // the request again against it.
  const RequestWordsProblem p = CheckRequestWords(token, token_var, argv, Bounds{}.cmdline_bytes);
  if (p.field.empty()) return true;
  const std::string option = p.field == "token"       ? "--token"
                             : p.field == "token_var" ? "--token-var"
                                                      : "--argv";
  *exit_code = Fail(kExitUsage, option + ": " + p.why + " (INVALID_REQUEST)");
  return false;
}

}  // namespace proctape
