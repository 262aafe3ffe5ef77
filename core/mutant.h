// SPDX-License-Identifier: Apache-2.0
// Test-only resolver mutants (`docs/explore.md`, "In the corpus and in CI"):
// the compile-time switch that drops one rule of `docs/resolver.md`, "The
// eight steps", so that `explore` can be shown to catch
// a resolver that breaks it (tests/mutants/).
//
// Test builds compile core/resolver.cc and core/liveness.cc once more per
// mutant, with PROCTAPE_MUTANT=N (the rule dropped) and PROCTAPE_RESOLVE_AS /
// PROCTAPE_LIVENESS_AS (the names they are compiled under). Production
// builds define none of them: every Drops() is a constant false, the
// branches it guards are compiled out, and the files are the resolver.
#pragma once

namespace proctape::mutant {

enum Rule : int {
  kNone = 0,
  kNoAncestryReread = 1,     // step 7: the candidate's ancestors are not re-read
  kNoStartTickOnReread = 2,  // step 7: a re-read's start tick is not compared
  kNoExeCheck = 3,           // step 6: the executable identity is not compared
  kTokenSubstring = 4,       // step 5: a token variable whose value holds the token matches
  kZombieAlive = 5,          // step 8: state Z is taken for alive
  kFirstOfSeveral = 6,       // step 6: of several matches, the first is taken
};
inline constexpr int kRules = 6;

#ifdef PROCTAPE_MUTANT
static constexpr Rule kDropped = static_cast<Rule>(PROCTAPE_MUTANT);
#else
static constexpr Rule kDropped = kNone;
#endif

// True only in the mutant that drops `rule` (internal linkage: each file
// compiled as a mutant has its own).
static constexpr bool Drops(Rule rule) { return kDropped == rule; }

}  // namespace proctape::mutant
