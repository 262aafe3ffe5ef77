// SPDX-License-Identifier: Apache-2.0
// The source tree the unit tests were built from (PROCTAPE_SOURCE_DIR, given
// by tests/CMakeLists.txt): test data and golden files are read, and golden
// files rewritten (PROCTAPE_UPDATE_GOLDEN=1), there, whatever directory the
// tests run in. Not __FILE__: under ccache's base_dir it is relative to the
// build directory.
#pragma once

#include <filesystem>

#include "tests/unit/source_dir.h"

#ifndef PROCTAPE_SOURCE_DIR
#error "PROCTAPE_SOURCE_DIR must name the repository root"
#endif

namespace proctape::test {

inline std::filesystem::path SourceDir() { return PROCTAPE_SOURCE_DIR; }

}  // namespace proctape::test
