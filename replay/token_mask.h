// SPDX-License-Identifier: Apache-2.0
// The one mechanism that keeps a recording's token out of every view.
//
// A recording keeps the token its resolutions looked for: the request's
// `token`, the environ entry kept verbatim (`PROCTAPE_TOKEN=<token>`), and,
// because they are evidence, the sandbox's own argv and environ that hold it.
// A replay needs all of that, so the file keeps it. A view does not: every
// view (show, tree, diff, explain, replay, export --format dot, proc-dir,
// sqlite and csv, sql) passes the host's bytes it is about to show through a
// TokenMask. `export --format json` is the one lossless output, and the one
// that holds the token (docs/export.md).
//
// The rule (docs/security.md "The token in outputs"): every byte of a text
// that lies in a window of kMinRun consecutive bytes occurring in a token
// (or in the token as EscapeBytes and QuoteBytes print it) becomes '*'. So
// the whole token is stars of its length, and so is any piece of it of
// kMinRun bytes or more that a cut, a comm's 15 bytes or a file name left:
// no piece longer than kMinRun - 1 bytes survives. A token shorter than
// kMinRun is not masked at all (too short to tell from ordinary text):
// `resolve` and `lab` refuse one, and a file that holds one says so
// (short_tokens()).
//
// The cost is linear in the text whatever the number of tokens: one set of
// kMinRun-byte windows over all tokens, built once (as tokens are added).
//
// Masking happens on the host's bytes before a view embeds them in its own
// sentences, and after the view has parsed what it reads (a stat is parsed
// before its comm is masked), so a token that also occurs in a number or a
// name does not change what the view finds; it is only not printed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <google/protobuf/message.h>

#include "format/reader.h"

namespace proctape {

class TokenMask {
 public:
  // The shortest run of a token's bytes that is masked, and the shortest
  // token masked at all (docs/security.md "The token in outputs").
  static constexpr std::size_t kMinRun = 8;

  // The tokens of `snapshot`:
  //   - the token of every recorded resolve request;
  //   - the value of every kept environ entry (Header.redaction.kept_entries,
  //     VAR=VALUE: a recording keeps its token entries only);
  //   - the value of `--token VALUE` and `--token=VALUE` in the header's
  //     command line (a recording cut before its resolution chunk still
  //     names its token there).
  // Empty values are not tokens.
  static TokenMask Of(const Snapshot& snapshot);
  // The same of a file read without keeping it whole: its header and its
  // resolutions (a reader of the stream, format/snapshot_stream.h).
  static TokenMask Of(const v1::Header& header, const std::vector<v1::Resolution>& resolutions);

  // Adds `token`; false when it was known already (or is empty).
  bool Add(std::string_view token);
  void Add(const TokenMask& other);
  // No token to mask (none, or only tokens shorter than kMinRun).
  bool empty() const { return grams_.size() == 0; }
  // The distinct tokens added, short ones included.
  std::size_t size() const { return tokens_.size(); }
  // The distinct tokens shorter than kMinRun: not masked.
  std::size_t short_tokens() const { return short_tokens_; }
  // Does `text` hold a run the mask replaces?
  bool Holds(std::string_view text) const;

  // `text` with every byte of every window of kMinRun bytes found in a token
  // (raw, as EscapeBytes prints it, or as QuoteBytes with \x22) replaced by
  // '*'. Linear in `text`.
  std::string Masked(std::string_view text) const;
  void Mask(std::string* text) const;
  // Host bytes as a view prints them: masked first, then escaped and cut at
  // `max` (EscapeBytes): a cut never leaves a piece the mask would have
  // found. A file name in a message is one (the user's, but it may hold a
  // piece of the file's token).
  std::string Shown(std::string_view bytes, std::size_t max = 4096) const;
  // Every string and bytes field of `message` and of the messages it holds
  // (protobuf reflection): host bytes about to be printed, or a record about
  // to be exported.
  void Mask(google::protobuf::Message* message) const;

 private:
  // An open-addressing set of 8-byte windows (as integers): a few bytes per
  // window, whatever the number of tokens.
  class GramSet {
   public:
    void Insert(std::uint64_t gram);
    bool Contains(std::uint64_t gram) const;
    std::size_t size() const { return size_; }

   private:
    void Grow();
    std::vector<std::uint64_t> slots_;  // 0: empty (the gram 0 is has_zero_)
    // A bit per 2-byte prefix of a gram held: most windows of a text are
    // ruled out by one bit, before the gram is hashed (8 KB, from the first
    // Insert).
    std::vector<std::uint64_t> prefixes_;
    std::size_t size_ = 0;
    bool has_zero_ = false;
  };
  void AddForm(std::string_view form);
  // The first window at or after `from` found in a token, or npos.
  std::size_t FindWindow(std::string_view text, std::size_t from) const;

  std::unordered_set<std::string> tokens_;
  std::size_t short_tokens_ = 0;
  GramSet grams_;
};

}  // namespace proctape
