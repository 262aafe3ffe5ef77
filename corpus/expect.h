// The expected outcome of one recorded resolution, as one line of a corpus
// manifest (docs/corpus.md, "Expect lines"):
//
//   resolve:   STATUS                       a Verdict.Status name, not RESOLVED
//              RESOLVED pid=N start=T       the identity it resolved to
//   liveness:  ALIVE | DEAD | ERROR REASON  REASON a Verdict.Status name
//
// Only the status and the identity are pinned: a verdict whose detail wording
// changes still meets its expectation. Every place that shows a verdict in
// this form (corpus add, check, list) uses ExpectText.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/failure.h"
#include "proctape.pb.h"

namespace proctape {

std::string ExpectText(const v1::Verdict& verdict);
std::string ExpectText(const v1::LivenessVerdict& verdict);
// The replayed verdict of `result`, resolve or liveness.
std::string ReplayedExpect(const v1::ReplayResult& result);
// The verdict recorded in the file for `result`.
std::string RecordedExpect(const v1::ReplayResult& result);

// Empty when `expect` is a well-formed expect line; else why not, one line.
std::string ExpectSyntaxError(std::string_view expect);
// Whether a well-formed expect line is one of a liveness check.
bool IsLivenessExpect(std::string_view expect);

// An --expect option for `result`'s resolution: a full expect line, or a bare
// RESOLVED or ERROR whose identity or reason is taken from the replay (which
// must then give that status). Returns the expect line, or nullopt with
// *failure (kUsage, one line) set.
std::optional<std::string> ExpectFromOption(std::string_view option, const v1::ReplayResult& result,
                                            Failure* failure);

// A replay in one phrase for a drift line: its expect text, or for DIVERGED
// "DIVERGED at observation K (recorded CALL, made CALL)".
std::string ReplayPhrase(const v1::ReplayResult& result);

}  // namespace proctape
