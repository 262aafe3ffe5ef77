// SPDX-License-Identifier: Apache-2.0
#include "tests/mutants/mutants.h"

namespace proctape {

// Defined by core/resolver.cc and core/liveness.cc compiled as mutant N
// (tests/mutants/CMakeLists.txt).
#define PROCTAPE_DECLARE_MUTANT(n)                                             \
  Verdict ResolveMutant##n(Evidence& evidence, const Request& request);        \
  LivenessVerdict CheckLivenessMutant##n(Evidence& evidence, std::int64_t pid, \
                                         std::uint64_t start_ticks, std::uint64_t stat_bytes);
PROCTAPE_DECLARE_MUTANT(1)
PROCTAPE_DECLARE_MUTANT(2)
PROCTAPE_DECLARE_MUTANT(3)
PROCTAPE_DECLARE_MUTANT(4)
PROCTAPE_DECLARE_MUTANT(5)
PROCTAPE_DECLARE_MUTANT(6)
#undef PROCTAPE_DECLARE_MUTANT

namespace mutant {
namespace {

using LivenessImpl = LivenessVerdict (*)(Evidence&, std::int64_t, std::uint64_t, std::uint64_t);

Mutant Make(Rule rule, const char* name, const char* dropped,
            Verdict (*resolve)(Evidence&, const Request&), LivenessImpl liveness) {
  Mutant m;
  m.rule = rule;
  m.name = name;
  m.dropped = dropped;
  m.checker.resolve = resolve;
  m.checker.liveness = [liveness](Evidence& ev, std::int64_t pid, std::uint64_t start) {
    return liveness(ev, pid, start, 4096);  // CheckLiveness's default bound
  };
  return m;
}

}  // namespace

const std::vector<Mutant>& Resolvers() {
  static const std::vector<Mutant> all = [] {
    std::vector<Mutant> v;
    Mutant real;
    real.name = "real";
    real.dropped = "none (the resolver as shipped)";
    v.push_back(real);
    v.push_back(Make(kNoAncestryReread, "no-ancestry-reread",
                     "step 7: the candidate's ancestors are not re-read", ResolveMutant1,
                     CheckLivenessMutant1));
    v.push_back(Make(kNoStartTickOnReread, "no-start-tick-on-reread",
                     "step 7: a re-read's start tick is not compared", ResolveMutant2,
                     CheckLivenessMutant2));
    v.push_back(Make(kNoExeCheck, "no-exe-check", "step 6: the executable identity is not compared",
                     ResolveMutant3, CheckLivenessMutant3));
    v.push_back(Make(kTokenSubstring, "token-substring",
                     "step 5: a token value that holds the token matches", ResolveMutant4,
                     CheckLivenessMutant4));
    v.push_back(Make(kZombieAlive, "zombie-alive", "step 8: state Z is taken for alive",
                     ResolveMutant5, CheckLivenessMutant5));
    v.push_back(Make(kFirstOfSeveral, "first-of-several",
                     "step 6: of several matches, the first is taken", ResolveMutant6,
                     CheckLivenessMutant6));
    return v;
  }();
  return all;
}

}  // namespace mutant
}  // namespace proctape
