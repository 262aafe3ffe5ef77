// SPDX-License-Identifier: Apache-2.0
// Regression inputs made by code, not kept as files: the hostile classes
// tests/fuzz/regressions/README.md lists, built from the repository's data
// (tests/data/replay/resolved.ptape) or from nothing, for the target that takes
// them. Big ones (a 60,000-deep parent chain) are generated here rather than
// checked in.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace proctape::fuzz {

struct NamedInput {
  std::string name;
  std::string bytes;
};

// The generated inputs of `target` ("reader", "replay", ...; none for a
// target without any). `source_dir` is the repository's root. Aborts when a
// file it starts from cannot be read.
std::vector<NamedInput> GeneratedInputs(const std::string& target, const std::string& source_dir);

}  // namespace proctape::fuzz
