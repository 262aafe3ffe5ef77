// SPDX-License-Identifier: Apache-2.0
#include "core/failure.h"

#include <cstring>

namespace proctape {

Failure IoFailure(const std::string& what, int errno_value) {
  return Failure(FailureKind::kIo, what + ": " + std::strerror(errno_value), errno_value);
}

}  // namespace proctape
