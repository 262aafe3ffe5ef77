// SPDX-License-Identifier: Apache-2.0
// Files of hostile shapes for the views (`docs/format.md`, "The frame
// model's work": no view may be quadratic in a file's shape): one recorded
// resolution on an in-memory host whose processes form
// a 60,000-deep parent chain (process k's parent is k-1) or a 60,000-wide star
// (every process a child of the root). Written by the real recording path, as
// `resolve --record` writes a file (header, a frame, the tape, a frame, the
// resolution, footer), so that every view and `replay` have work to do: the
// frames for show/tree/diff/export, the tape for replay/explain.
//
// Generated, never checked in (a few hundred KB): tests/live/views_shapes_cli_test.cc
// writes them into a temporary directory, bench/views_shape_bench.sh through
// the `shape_file` tool (bench/shape_file_main.cc).
#pragma once

#include <cstdint>
#include <string>

namespace proctape::shapes {

enum class Shape {
  kChain,  // pid 1000 the root, 1000+k's parent 1000+k-1: n deep
  kStar,   // pid 1000 the root, 1001..1000+n its children: n wide
};

// Writes the file of `shape` with `n` processes beneath the root to `path`
// (replaced if there). The resolution asks for the last process (the deepest
// of the chain, the last leaf of the star), which runs the requested sleep;
// with `checks` above 1 the file records it that many times (each copy
// claims the same tape: a file of many checks for explore's whole-run
// bound). `deadline_ns` (0: the request's default) sets the recorded
// request's deadline, with a byte budget of 2^40: a what-if run of it that
// never matches (replay --model frames --token other) retries that long.
// False with *error on failure.
bool WriteShapeFile(const std::string& path, Shape shape, std::uint32_t n, std::string* error,
                    std::uint32_t checks = 1, std::int64_t deadline_ns = 0);

}  // namespace proctape::shapes
