// SPDX-License-Identifier: Apache-2.0
// The source tree the live tests were built from (PROCTAPE_SOURCE_DIR): the
// shipped corpus and the golden files are read from it.
#pragma once

#include <string>

#include "tests/live/build_paths.h"

namespace proctape::live {

inline const std::string kSource = PROCTAPE_SOURCE_DIR;

}  // namespace proctape::live
