// SPDX-License-Identifier: Apache-2.0
// The replay of a file as its users see it: `proctape replay` (the tape and
// the frame model), `corpus check` and the library's Replay
// (include/proctape/files.h) call these, and show nothing else of a replay.
//
// Each recorded check is replayed by the identical resolver
// (replay/replay.h, replay/frame_evidence.h) and its result passed through
// the file's TokenMask (replay/token_mask.h) before it is returned: a
// verdict's evidence quoting an environ entry, a detail, a call naming a
// path. No caller masks by hand, so none can forget to (docs/replay.md,
// "One replay of a file").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/resolver.h"
#include "format/reader.h"
#include "proctape.pb.h"
#include "replay/frame_evidence.h"
#include "replay/replay.h"
#include "replay/token_mask.h"

namespace proctape {

// Every recorded check of `snapshot` replayed against its tape, `overrides`
// applied to its resolutions, in file order; masked.
std::vector<v1::ReplayResult> ReplayTape(const Snapshot& snapshot,
                                         const RequestOverrides& overrides = {});

// Recorded check `index` of `snapshot` replayed against its tape, as
// ReplayTape replays each, masked with `mask` (TokenMask::Of(snapshot));
// `watch` (or null) sees its calls: the one replay whose outcome a view that
// tells it (`proctape explain`) reports.
v1::ReplayResult ReplayTapeCheck(const Snapshot& snapshot, std::size_t index,
                                 const RequestOverrides& overrides, const TokenMask& mask,
                                 ReplayWatch* watch = nullptr);

// One run of the frame model as it is shown, masked: the run (its verdicts'
// evidence, details and states), its --json summary and its lines.
struct FrameReplay {
  FrameRun run;
  v1::FrameRunSummary summary;
  std::string text;  // DescribeFrameRun
};

// Every recorded check of `snapshot` re-run on its frames (`overrides`
// applied to its resolutions), in file order; masked.
std::vector<FrameReplay> ReplayFrames(const Snapshot& snapshot, const RequestOverrides& overrides);

// `request` (the file records none: a plain capture) resolved on the frames
// of `snapshot` from `start_ns`; masked with the file's tokens (a token the
// request names is the caller's own words, and is not masked).
FrameReplay ReplayRequestOnFrames(const Snapshot& snapshot, const Request& request,
                                  std::int64_t start_ns);

}  // namespace proctape
