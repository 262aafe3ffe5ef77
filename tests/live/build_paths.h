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
