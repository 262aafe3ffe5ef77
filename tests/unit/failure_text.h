// SPDX-License-Identifier: Apache-2.0
// An outcome as a test compares it (core/failure.h): "" when it succeeded,
// else its message, so that a failed expectation prints why.
#pragma once

#include <string>

#include "core/failure.h"

namespace proctape {

inline std::string Why(const MaybeFailure& outcome) { return outcome ? outcome->message : ""; }

}  // namespace proctape
