// SPDX-License-Identifier: Apache-2.0
// The edge of every library call: nothing is thrown across the API
// (include/proctape/*.h). Internal: not installed.
#pragma once

#include <exception>
#include <new>

#include "api/convert.h"

namespace proctape::api::detail {

// f() or, when it throws, a Result whose error is kInternal.
template <typename Result, typename F>
Result Guard(F&& f) noexcept {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    Result r;
    r.error.code = ErrorCode::kInternal;
    try {
      r.error.message = "out of memory";
    } catch (...) {
    }
    return r;
  } catch (const std::exception& e) {
    Result r;
    r.error.code = ErrorCode::kInternal;
    try {
      r.error.message = e.what();
    } catch (...) {
    }
    return r;
  } catch (...) {
    Result r;
    r.error.code = ErrorCode::kInternal;
    return r;
  }
}

}  // namespace proctape::api::detail
