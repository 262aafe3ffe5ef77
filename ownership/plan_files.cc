// SPDX-License-Identifier: Apache-2.0
// `proctape ownership` whole: the request checked, both files read, the plan
// and the words of its refusal.
#include "ownership/plan_files.h"

#include <cstdint>
#include <string>

#include "core/proc_parse.h"
#include "format/reader.h"

namespace proctape {
namespace {

// The words a refused plan's exit status is said by: its first problem.
std::string Refusal(const v1::OwnershipPlan& plan) {
  if (plan.outcome() == v1::OwnershipPlan::PLANNED || plan.problems().empty()) return "";
  std::string what = "the plan is REFUSED: " + DescribeProblem(plan.problems(0));
  if (plan.problems_size() > 1) {
    what += " (and " +
            Plural(static_cast<std::uint64_t>(plan.problems_size() - 1), "other problem",
                   "other problems") +
            ")";
  }
  return what;
}

}  // namespace

MaybeFailure OwnershipRequestProblem(const OwnershipRequest& request) {
  if (request.cgroup.empty() || request.cgroup[0] != '/') {
    return Failure(FailureKind::kUsage,
                   "--cgroup wants a cgroup v2 path such as /system.slice/ci.service "
                   "(the part after \"0::\" in /proc/PID/cgroup)");
  }
  for (const std::string& output : request.outputs) {
    if (output.find_first_not_of('/') == std::string::npos) {
      return Failure(FailureKind::kUsage, "--output '" + EscapeBytes(output) + "' names no file");
    }
  }
  return std::nullopt;
}

OwnershipOutcome PlanOwnershipFiles(const OwnershipFiles& files) {
  OwnershipOutcome outcome;
  Snapshot baseline, current;
  struct Read {
    const char* option;
    const std::string* path;
    Snapshot* snapshot;
  };
  for (const Read& read : {Read{"--baseline", &files.baseline, &baseline},
                           Read{"--current", &files.current, &current}}) {
    ReadKeep keep;  // the plan reads frames only (every frame of the baseline)
    keep.observations = false;
    if (MaybeFailure damage = ToFailure(ReadSnapshot(*read.path, read.snapshot, keep))) {
      outcome.failure = std::move(damage);
      outcome.failed_option = read.option;
      outcome.failed_path = *read.path;
      return outcome;
    }
  }
  OwnershipRequest request = files.request;
  request.baseline_name = files.baseline;
  request.current_name = files.current;
  outcome.plan = PlanOwnership(baseline, current, request, &outcome.warnings);
  outcome.text = DescribePlan(outcome.plan);
  outcome.refusal = Refusal(outcome.plan);
  return outcome;
}

}  // namespace proctape
