// SPDX-License-Identifier: Apache-2.0
#include "replay/unanswered.h"

#include <algorithm>

#include "core/proc_parse.h"

namespace proctape {

TokenQuestion::TokenQuestion(const Request& request, const v1::RedactionPolicy& redaction)
    : token_var_(request.token_var),
      kept_entries_(redaction.kept_entries().begin(), redaction.kept_entries().end()) {
  const std::string entry = request.token_var + "=" + request.token;
  kept_ = std::find(kept_entries_.begin(), kept_entries_.end(), entry) != kept_entries_.end();
}

bool TokenQuestion::Answers(std::string_view stored, bool redacted) const {
  if (!redacted || kept_) return true;
  for (std::string_view entry : SplitNul(stored)) {
    const std::size_t eq = entry.find('=');
    if (eq == std::string_view::npos || entry.substr(0, eq) != token_var_) continue;
    // An entry of the name stored as read only if it is a kept one.
    if (std::find(kept_entries_.begin(), kept_entries_.end(), entry) == kept_entries_.end()) {
      return false;
    }
  }
  return true;
}

std::string UnansweredWhy(v1::Unanswered unanswered) {
  switch (unanswered) {
    case v1::UNANSWERED_REDACTED:
      return "environ values are stored redacted ('*' of the same length) and the token entry "
             "asked is not kept verbatim: whether a process carries that token cannot be told "
             "(capture with --env keep to replay a token check)";
    case v1::UNANSWERED_NOT_RECORDED:
      return "the frame's record of that process holds no read of that file";
    case v1::UNANSWERED_PAST_BOUND:
      return "the frame's read of that file was cut at a smaller bound than the one asked: "
             "the bytes past it were never seen";
    default: break;
  }
  return "";
}

}  // namespace proctape
