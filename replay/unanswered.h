// SPDX-License-Identifier: Apache-2.0
// What a replay does not answer although the file holds the call: bytes it
// holds only in part (docs/replay.md, "What a replay cannot answer"). Such a
// replay is DIVERGED there, with no replayed verdict, and says why.
//
// TokenQuestion: what a resolution asks of an environ, and whether bytes
// stored redacted answer it.
//
// The resolver reads a candidate's environ for one question: how many
// entries are named `token_var`, and which of them hold `token` exactly
// (docs/resolver.md, "One attempt"). A recording or a plain capture stores
// environ values redacted ('*' of the same length, keys kept), except the
// entries of RedactionPolicy.kept_entries, stored verbatim (a recording keeps
// its own token entry: docs/format.md, section 6). Stored redacted bytes
// still answer the question when
//   - the entry `token_var=token` is a kept entry: an entry that held it was
//     stored verbatim, so a redacted one does not hold it; or
//   - no entry named `token_var` was redacted (there is none, or each one is
//     a kept entry, verbatim).
// Otherwise a redacted value may be the token, and what the resolver would
// conclude from its stars is not a verdict on the evidence: a replay does not
// answer that read.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/resolver.h"
#include "proctape.pb.h"

namespace proctape {

class TokenQuestion {
 public:
  TokenQuestion(const Request& request, const v1::RedactionPolicy& redaction);

  // Whether environ bytes as stored (`redacted`: FileRead.redacted) answer it.
  bool Answers(std::string_view stored, bool redacted) const;

  // The entry `token_var=token` is kept verbatim in the file: every read
  // answers.
  bool Kept() const { return kept_; }

 private:
  std::string token_var_;
  std::vector<std::string> kept_entries_;
  bool kept_ = false;
};

// Why a call of that kind was not answered, one sentence without a file's
// name; the same words wherever a replay says it (the tape, the frames, the
// note before a frame run). Empty for UNANSWERED_NONE.
std::string UnansweredWhy(v1::Unanswered unanswered);

}  // namespace proctape
