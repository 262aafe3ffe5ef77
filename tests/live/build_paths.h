// SPDX-License-Identifier: Apache-2.0
// What tests/CMakeLists.txt gives every live test: PROCTAPE_BINARY, the
// built proctape CLI, and PROCTAPE_SOURCE_DIR, the source tree it was built
// from (the shipped corpus, the golden files). A file that runs the binary
// or reads the tree includes this, so that a build without them stops here
// and says which is missing.
#pragma once

#ifndef PROCTAPE_BINARY
#error "PROCTAPE_BINARY must name the built proctape CLI"
#endif
#ifndef PROCTAPE_SOURCE_DIR
#error "PROCTAPE_SOURCE_DIR must name the repository root"
#endif

#include <cstdlib>
#include <string>

namespace proctape::live {

// The proctape CLI the live tests run: PROCTAPE_TEST_BINARY when it is set,
// else PROCTAPE_BINARY. The sanitizer stage of scripts/setup.sh runs the
// release build's live tests against its AddressSanitizer build this way,
// with PROCTAPE_TEST_BINARY_SANITIZED=1: what they check is the binary, so
// the tests themselves need no sanitized build of their own.
inline const char* TestedBinary() {
  static const std::string path = [] {
    const char* given = std::getenv("PROCTAPE_TEST_BINARY");
    return std::string(given != nullptr && *given != '\0' ? given : PROCTAPE_BINARY);
  }();
  return path.c_str();
}

// Whether that binary is a sanitizer build (ASan + UBSan): it reserves
// terabytes of shadow memory (no address-space limit holds), reads its own
// /proc at startup, and valgrind cannot run it.
inline bool TestedBinarySanitized() {
#if defined(PROCTAPE_ASAN)
  return true;
#else
  const char* s = std::getenv("PROCTAPE_TEST_BINARY_SANITIZED");
  return s != nullptr && std::string(s) == "1";
#endif
}

}  // namespace proctape::live
