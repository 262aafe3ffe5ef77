// SPDX-License-Identifier: Apache-2.0
// What the command-line contract tests (commands_*cli_test.cc) share: the
// built binary they run (PROCTAPE_BINARY) and two recordings of the shipped
// corpus to run it on. The tests live in proctape::live.
#pragma once

#include <string>

#include "tests/live/build_paths.h"
#include "tests/live/source_dir.h"

namespace proctape::live {

// Two recordings of the shipped corpus (docs/corpus.md): lab pid-reuse and
// lab hostile-comm, both in an unshare sandbox.
inline const std::string kPidReuse = kSource + "/corpus/021e7cdf322033a4.ptape";
inline const std::string kHostileComm = kSource + "/corpus/d40fb836ad433348.ptape";

}  // namespace proctape::live
