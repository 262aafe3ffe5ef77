// SPDX-License-Identifier: Apache-2.0
#include "analyze/explain.h"

#include <optional>
#include <string>
#include <utility>

#include "analyze/explain_resolve.h"
#include "analyze/explain_watch.h"
#include "core/proc_parse.h"
#include "core/resolver.h"
#include "proto/convert.h"
#include "proto/summary.h"
#include "replay/replay.h"
#include "replay/replay_file.h"
#include "replay/tape_evidence.h"
#include "replay/unanswered.h"
#include "replay/token_mask.h"

namespace proctape {

using explain::Seen;
using explain::StatOf;

namespace {

// The sentence of a DIVERGED `replay` whose tape did not hold a call: the
// call, the observation, and what the tape holds there (or why the answer
// it holds does not answer: replay/unanswered.h).
std::string UnheldText(const v1::ReplayResult& replay) {
  const std::string at = " at observation " + std::to_string(replay.divergence_index());
  if (replay.has_unanswered()) {
    return "the tape holds " + replay.made_call() + at +
           ", not its whole answer: " + UnansweredWhy(replay.unanswered());
  }
  return "the tape does not hold what the resolver asked next: " + replay.made_call() + at +
         (replay.recorded_call() == "end of tape" ? ", past its end"
                                                  : ", where it holds " + replay.recorded_call());
}

}  // namespace

v1::ExplainCheck ExplainRecordedCheck(const Snapshot& snapshot, std::size_t index) {
  const v1::Resolution& recorded = snapshot.resolutions.at(index);
  // The replay reads the token; what is told never shows it (replay/token_mask.h).
  const TokenMask mask = TokenMask::Of(snapshot);
  v1::ExplainCheck out;
  out.set_index(Count32(index));

  // The one replay `proctape replay` reports (replay/replay_file.h), watched:
  // its outcome and verdict are told, never another run's. A liveness
  // check's read, or the root's fingerprint read on the tape, is the first
  // call; a Resolve's calls are told attempt by attempt as they are made.
  const bool liveness = recorded.has_liveness();
  const bool fingerprinted = !liveness && recorded.resolve().fingerprint_on_tape();
  ReplayWatch run;
  explain::ResolveTeller teller(run.request, mask, &out);
  std::optional<Seen> first;
  std::optional<explain::WatchingEvidence> watching;
  run.watch = [&](TapeEvidence& tape) -> Evidence& {
    return watching.emplace(tape, [&](Seen call) {
      if ((liveness || fingerprinted) && !first) {
        first = std::move(call);
      } else if (!liveness) {
        teller.Take(std::move(call));
      }
    });
  };
  const v1::ReplayResult replay = ReplayTapeCheck(snapshot, index, RequestOverrides{}, mask, &run);
  out.set_replay(replay.outcome());
  out.set_observations(Count32(replay.consumed()));
  out.set_recorded_observations(Count32(replay.recorded_count()));
  // Past a divergence the tape answered nothing: what the resolver concluded
  // from the failures fed to it is no verdict, and no attempt's outcome.
  std::optional<explain::Unheld> unheld;
  if (watching->unheld() != nullptr)
    unheld = explain::Unheld{UnheldText(replay), watching->unheld()};

  if (liveness) {
    out.set_kind(v1::ExplainCheck::LIVENESS);
    *out.mutable_liveness() = ToSummary(recorded.liveness());
    if (replay.has_replayed_liveness()) {
      *out.mutable_liveness_verdict() = ToSummary(replay.replayed_liveness());
    }
    if (first && first->op == Seen::Op::kRead) {
      *out.mutable_liveness_read() = StatOf(first->pid, first->read.view());
    }
  } else {
    out.set_kind(v1::ExplainCheck::RESOLVE);
    *out.mutable_resolve() = ToSummary(recorded.resolve(), snapshot.header.host().boot_id());
    // The fingerprint read on the tape, when the replay took one, comes first.
    if (fingerprinted) {
      out.set_fingerprinted(true);
      if (first) *out.mutable_fingerprint() = StatOf(first->pid, first->read.view());
    }
    const v1::Verdict verdict = replay.has_replayed() ? replay.replayed() : v1::Verdict();
    if (replay.has_replayed()) *out.mutable_verdict() = ToSummary(verdict);
    if (run.fingerprint && !run.fingerprint->resolved() && !unheld) {
      out.set_ended_by("the root's fingerprint failed: no attempt was made");
    } else {
      teller.Finish(verdict, unheld ? &*unheld : nullptr);
    }
  }

  switch (replay.outcome()) {
    case v1::ReplayResult::VERDICT_CHANGED:
      out.set_replay_detail("the recorded verdict differs: this is what the resolver decides now");
      break;
    case v1::ReplayResult::DIVERGED:
      out.set_replay_detail("at observation " + std::to_string(replay.divergence_index()) +
                            " the tape holds " + replay.recorded_call() + ", the resolver made " +
                            replay.made_call() + ": the explanation stops there");
      break;
    default: break;
  }
  mask.Mask(&out);
  return out;
}

v1::Explanation Explain(const Snapshot& snapshot, const std::string& file_name,
                        std::optional<std::size_t> only) {
  v1::Explanation out;
  out.set_file(TokenMask::Of(snapshot).Shown(file_name));  // a name may hold a piece of it
  out.set_recorded_checks(Count32(snapshot.resolutions.size()));
  const std::string& version = snapshot.header.tool_version();
  constexpr std::string_view kDerived = " (derived by ";
  if (const std::size_t at = version.rfind(kDerived);
      at != std::string::npos && !version.empty() && version.back() == ')') {
    out.set_derived_by(EscapeBytes(
        version.substr(at + kDerived.size(), version.size() - at - kDerived.size() - 1), 64));
    const auto& words = snapshot.header.command_line();
    int i = 0;
    while (i < words.size() && words[i] != "--derived") ++i;
    for (++i; i < words.size(); ++i) {
      if (words[i] != "no event" && words[i] != "no event (the baseline)") {
        out.add_derived_events(EscapeBytes(words[i], 4096));
      }
    }
  }
  for (std::size_t i = 0; i < snapshot.resolutions.size(); ++i) {
    if (only && *only != i) continue;
    *out.add_checks() = ExplainRecordedCheck(snapshot, i);
  }
  return out;
}

}  // namespace proctape
