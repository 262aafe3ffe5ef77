// SPDX-License-Identifier: Apache-2.0
// `proctape ownership` whole (docs/ownership.md): a request checked, its two
// snapshot files read, the plan made (ownership/ownership.h PlanOwnership)
// and its text. Nothing here prints; the CLI enters its jail between the
// check and the plan, prints the text or the plan as JSON, says the
// warnings, then exits by the plan's verdict.
#pragma once

#include <string>
#include <vector>

#include "core/failure.h"
#include "ownership/ownership.h"
#include "ownership.pb.h"

namespace proctape {

// What makes `request` one that cannot be planned, before any file is read
// (kUsage): a --cgroup that is not an absolute cgroup v2 path, an --output
// that names no file (empty, or only slashes). Nothing: it can be.
MaybeFailure OwnershipRequestProblem(const OwnershipRequest& request);

struct OwnershipFiles {
  std::string baseline;  // the capture at bootstrap (--baseline)
  std::string current;   // the capture at cleanup time (--current)
  // baseline_name and current_name are the files' own names.
  OwnershipRequest request;
};

struct OwnershipOutcome {
  // A file that cannot be read whole: its damage's kind (kIo, kBadMagic ...
  // kTooLarge) and message, about `failed_option` ("--baseline" or
  // "--current") and its path `failed_path`; the baseline is read first.
  // Nothing else is filled.
  MaybeFailure failure;
  std::string failed_option;
  std::string failed_path;
  v1::OwnershipPlan plan;
  std::vector<std::string> warnings;  // what the planned scope makes suspicious
  std::string text;                   // DescribePlan(plan)
  // A refused plan with a problem: "the plan is REFUSED: FIRST PROBLEM (and
  // N other problems)", the words its exit status is said by; else "".
  std::string refusal;
};

// Reads both files (frames only) and plans `files.request` over them.
OwnershipOutcome PlanOwnershipFiles(const OwnershipFiles& files);

}  // namespace proctape
