// SPDX-License-Identifier: Apache-2.0
// What `proctape explore` prints of a run (explore/explore_recording.h): the
// text summary, and the --json document (ExploreReport, proto/explore.proto),
// the same numbers. The file's name, the files written and --out are masked
// with the run's tokens (replay/token_mask.h); both end in a newline.
#pragma once

#include <string>

#include "explore/explore_recording.h"

namespace proctape::explore {

std::string ExploreText(const ExploreRun& run);
std::string ExploreJson(const ExploreRun& run);

}  // namespace proctape::explore
