// SPDX-License-Identifier: Apache-2.0
// What the loader stores of a file that may hold a recording's token: every
// occurrence masked as every view masks it ('*' of its length,
// replay/token_mask.h), in text and in raw bytes alike. The tokens the
// header names are known before any record; a request's own token, known
// only at its resolution (after the frames), masks the rows loaded before
// it afterwards, by SQL (MaskLate).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "proctape.pb.h"
#include "replay/token_mask.h"

namespace proctape::sql {

class RowMask {
 public:
  // The tokens `header` names (its kept entries, --token on its command line).
  void Begin(const v1::Header& header) { mask_ = TokenMask::Of(header, {}); }
  // A request seen: its token, which the header may not have named.
  void Request(const std::string& token) { request_tokens_.push_back(token); }

  // `text` masked: the host's bytes before they are escaped and cut.
  std::string Masked(std::string_view text) const { return mask_.Masked(text); }
  // `raw` masked into `slot` only when it holds a token (a BLOB bound
  // without a copy: `slot` outlives the row).
  std::string_view MaskedBytes(std::string_view raw, std::string* slot) const {
    if (!mask_.Holds(raw)) return raw;
    *slot = mask_.Masked(raw);
    return *slot;
  }

  // Once the file is read: the rows of file `file_id` masked again when a
  // request's token was new. "" or SQLite's message.
  std::string MaskLate(sqlite3* db, std::int64_t file_id);
  // The tokens known so far.
  const TokenMask& tokens() const { return mask_; }

 private:
  TokenMask mask_;  // the tokens known so far
  std::vector<std::string> request_tokens_;
};

}  // namespace proctape::sql
