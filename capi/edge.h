// SPDX-License-Identifier: Apache-2.0
// The C ABI's edge (include/proctape.h): C++ values to the C structs and
// back, and the guard that turns any exception into PROCTAPE_E_INTERNAL.
// Internal: not installed.
#pragma once

#include <cstddef>
#include <string>

#include "proctape.h"
#include "proctape/proctape.h"

namespace proctape::capi {

// Copies `s` into `dst` (capacity `n` >= 1), truncated, NUL-terminated.
void CopyText(char* dst, std::size_t n, const std::string& s) noexcept;
template <std::size_t N>
void CopyText(char (&dst)[N], const std::string& s) noexcept {
  CopyText(dst, N, s);
}

// Sets *err (when not null) and returns the status.
proctape_status Report(proctape_error* err, proctape_status status,
                       const std::string& message) noexcept;
proctape_status Report(proctape_error* err, const api::Error& error) noexcept;

api::LiveOptions ToOptions(const proctape_options* options);
void FromVerdict(const api::Verdict& in, proctape_verdict* out) noexcept;
void FromLiveness(const api::LivenessVerdict& in, proctape_liveness_verdict* out) noexcept;
void FromFingerprint(const api::Fingerprint& in, proctape_fingerprint* out) noexcept;
api::Fingerprint ToFingerprint(const proctape_fingerprint& in);

// f() or, when it throws, PROCTAPE_E_INTERNAL reported in *err.
template <typename F>
proctape_status Edge(proctape_error* err, F&& f) noexcept {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return Report(err, PROCTAPE_E_INTERNAL, "out of memory");
  } catch (const std::exception& e) {
    return Report(err, PROCTAPE_E_INTERNAL, e.what());
  } catch (...) {
    return Report(err, PROCTAPE_E_INTERNAL, "an unknown exception");
  }
}

}  // namespace proctape::capi
