// SPDX-License-Identifier: Apache-2.0
// Replay of recorded resolutions: the identical resolver (or liveness) code
// runs against the tape of a snapshot file, and the outcome says whether the
// recorded verdict reproduced.
//   REPRODUCED      same verdict, every recorded observation consumed;
//   VERDICT_CHANGED the resolver decides differently on the same evidence
//                   (it asked only for what the tape holds, and stopped with
//                   another verdict);
//   DIVERGED        it asked for something the tape does not hold, or left
//                   recorded observations unasked: the report names the
//                   observation index, the recorded call and the call made.
//                   When the tape could not answer a call, the result holds
//                   no replayed verdict (replay never invents evidence); when
//                   the resolver stopped early on recorded answers, it does.
//                   A call the tape holds whose answer it holds only in part
//                   (an environ stored redacted where the request needs a
//                   value) is not answered either: `unanswered` says why
//                   (replay/unanswered.h, docs/replay.md).
// Nothing live is read; the clock is the recorded one.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/resolver.h"
#include "format/reader.h"
#include "proctape.pb.h"
#include "replay/tape_evidence.h"

namespace proctape {

// Changes to a recorded request, for what-if replays.
struct RequestOverrides {
  std::optional<std::int64_t> root_pid;
  std::optional<std::uint64_t> root_start_ticks;
  std::optional<std::string> token;
  std::optional<std::string> token_var;
  std::optional<std::vector<std::string>> argv;
  std::optional<Identity> exe;
  bool any() const { return root_pid || root_start_ticks || token || token_var || argv || exe; }
  void Apply(Request* request) const;
};

// Whether `overrides` change the recorded request: a value equal to the
// recorded one changes nothing (the root, start tick and executable of a
// `--fingerprint` that is the recorded fingerprint), but a start time given
// to a recording that fingerprinted its root on the tape does (the root is
// then not read there).
bool RequestChanged(const v1::ResolutionRequest& recorded, const RequestOverrides& overrides);

// A replay told call by call (`proctape explain`, analyze/explain.h): the
// view watches the one replay whose result it reports, so that what it tells
// of the resolution can never differ from what `proctape replay` says of it
// (docs/replay.md, "One replay of a file").
struct ReplayWatch {
  // In: the Evidence the resolver is run against, made of the replay's
  // `tape`; it must pass every call to `tape` unchanged (it may keep them).
  std::function<Evidence&(TapeEvidence& tape)> watch;
  // Out: the request as the resolver ran it (the root's start tick read
  // from the fingerprint on the tape in), set before the resolver's first
  // call (`watch`'s Evidence may read it from then on), and that
  // fingerprint's verdict when the replay took one.
  Request request;
  std::optional<Verdict> fingerprint;
};

// Runs the recorded resolution `index` of `snapshot` against its tape
// (through `watch`, when not null).
// Unmasked: its verdicts may quote the recording's token. Whatever is shown
// or returned to a user goes through ReplayTape (replay/replay_file.h).
v1::ReplayResult ReplayResolution(const Snapshot& snapshot, std::size_t index,
                                  const RequestOverrides& overrides, ReplayWatch* watch = nullptr);

// The worst outcome of several: DIVERGED over VERDICT_CHANGED over REPRODUCED.
v1::ReplayResult::Outcome WorstOutcome(const std::vector<v1::ReplayResult>& results);

// `proctape replay FILE --json`: every replay of a file in one document,
// under the file's base name `file_name` (shown escaped, as explain shows it).
v1::ReplayReport TapeReplayReport(const std::string& file_name,
                                  const std::vector<v1::ReplayResult>& results);

// One human line (and a second for a divergence) per result, from its
// summary (the form --json prints, every host byte escaped).
std::string DescribeReplay(const v1::ReplayResult& result);
std::string DescribeReplay(const v1::ReplaySummary& result);

}  // namespace proctape
