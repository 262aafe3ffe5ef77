// SPDX-License-Identifier: Apache-2.0
// What every fuzz target shares: a scratch directory of its own, removed at
// exit, and the bytes of an input as a file the real code can open.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace proctape::fuzz {

// A directory made once per process (mkdtemp under $TMPDIR, else /dev/shm
// when it exists, else /tmp: a tmpfs keeps the per-input files off the disk)
// and removed with everything in it at exit. Aborts when it cannot be made:
// a target without one would test nothing.
const std::string& ScratchDir();

// The input as a file: one memfd (made once, rewritten per input), named by
// its /proc/self/fd path, so the reader opens, stats and reads it as it does
// a regular file. Aborts when memfd fails.
std::string InputAsFile(const std::uint8_t* data, std::size_t size);

// Removes `path` and everything beneath it; links are removed, never
// followed. Quiet: a fuzz target cleans up as far as it can.
void RemoveTree(const std::string& path);

// Keeps a result's size where the optimizer cannot see it unused, so the
// work that made it is not optimized away.
void Keep(std::size_t n);

// A failed invariant of a target: prints `what` and aborts, which libFuzzer
// reports as a crash (and the regression runner as a failed test).
[[noreturn]] void Broken(const std::string& what);

}  // namespace proctape::fuzz
