// SPDX-License-Identifier: Apache-2.0
// A live command's failure about what one of its options named (a file, an
// executable): the CLI says it as it says every error about a path
// (cli/errors.h FailAbout: "--fingerprint 'FILE': WHAT"), or, when `option`
// is empty, as the failure's message alone. Its kind gives the exit status
// (cli/exit_codes.h ExitCodeFor).
#pragma once

#include <string>

#include "core/failure.h"

namespace proctape {

struct OptionFailure {
  Failure failure;     // its message says what is wrong, without the path
  std::string option;  // "--fingerprint"; empty: a failure about no path
  std::string path;    // the value the option gave
};

}  // namespace proctape
