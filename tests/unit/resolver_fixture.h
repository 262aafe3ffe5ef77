// What the resolver tests (resolver_*_test.cc) share beyond fake_host.h: the
// in-memory host's clock at the start and the attempts a 5 s retry loop makes.
#pragma once

#include <cstdint>

namespace proctape::test {

inline constexpr std::int64_t kT0 = 1'000'000'000;  // MemoryEvidence's initial clock
inline constexpr std::uint32_t kAttemptsIn5s = 51;  // attempts at t = 0, 0.1 s, ..., 5.0 s

}  // namespace proctape::test
