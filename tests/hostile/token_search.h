// SPDX-License-Identifier: Apache-2.0
// Pieces of a token in bytes an output holds: any `piece`-character run of
// the token (12 by default) as text, as hex (either case, at either
// alignment) or as base64 (at any alignment). For the harness (run_all.sh
// searches every output of every command on the token shapes) and the tests
// that will assert none is left (docs/export.md's lossless `export --format
// json` excepted: it holds the token by design).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace proctape::hostile {

// What holds a piece of `token` in `bytes` ("text b3d2c58e6a1f", "hex of
// ...", "base64 of ..."), or "" when nothing does. A token shorter than
// `piece` has no piece: a shorter run is no evidence of it.
std::string FindTokenPiece(std::string_view bytes, const std::string& token,
                           std::size_t piece = 12);

// What a fixed-string search must look for to find every piece
// FindTokenPiece finds (run_all.sh: one `grep -aiF -f` pass per output):
// each piece as text and as hex (matched case-folded: either case, and hex
// alignment does not matter to a substring), and the base64 characters that
// depend on the piece alone at each of the three byte alignments, in the
// standard and URL-safe alphabets (every mix of them). Case folding makes
// the search a superset of FindTokenPiece's; none when `token` has no piece.
std::vector<std::string> TokenPatterns(const std::string& token, std::size_t piece = 12);

}  // namespace proctape::hostile
