// SPDX-License-Identifier: Apache-2.0
// The resolver mutants (core/mutant.h; `docs/explore.md`, "In the corpus and
// in CI"): the real resolver and liveness check compiled once more per rule
// of `docs/resolver.md` each
// one drops. Test builds only: nothing here is in the proctape binary.
#pragma once

#include <string>
#include <vector>

#include "core/mutant.h"
#include "explore/search.h"

namespace proctape::mutant {

struct Mutant {
  Rule rule = kNone;    // kNone: the real resolver
  std::string name;     // "no-ancestry-reread"
  std::string dropped;  // the rule of docs/resolver.md it drops, in a few words
  explore::Checker checker;
};

// The real resolver first (rule kNone, empty checker), then the mutants in
// the order of core/mutant.h's rules.
const std::vector<Mutant>& Resolvers();

}  // namespace proctape::mutant
