// SPDX-License-Identifier: Apache-2.0
// proctape as a library: #include <proctape/proctape.h>, link proctape::proctape
// (CMake: find_package(proctape)) or `pkg-config --static --libs proctape`.
// docs/library.md.
#pragma once

#include "proctape/files.h"
#include "proctape/live.h"
#include "proctape/types.h"
