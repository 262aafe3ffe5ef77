// The one mechanism that keeps a recording's token out of every view.
//
// A recording keeps the token its resolutions looked for: the request's
// `token`, the environ entry kept verbatim (`PROCTAPE_TOKEN=<token>`), and,
// because they are evidence, the sandbox's own argv and environ that hold it.
// A replay needs all of that, so the file keeps it. A view does not: every
// view (show, tree, diff, explain, replay, export --format dot and proc-dir)
// passes the bytes it is about to show through a TokenMask, which replaces
// each occurrence of each token by '*' of the token's length. The length
// stays visible, the value never is. `export --format json` is the one
// lossless output, and the one that holds the token (docs/export.md).
//
// Masking happens on what is shown, after the view has parsed what it reads
// (a stat is parsed before its comm is masked), so a token that also occurs
// in a number or a name does not change what the view finds; it is only not
// printed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <google/protobuf/message.h>

#include "format/reader.h"

namespace proctape {

class TokenMask {
 public:
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

  void Add(std::string_view token);
  void Add(const TokenMask& other);
  bool empty() const { return tokens_.empty(); }
  std::size_t size() const { return tokens_.size(); }
  // Does `text` hold a token, in any form Masked replaces?
  bool Holds(std::string_view text) const;

  // `text` with every occurrence of every token replaced by '*' of the
  // token's length. A token is found as raw bytes and as the views print raw
  // bytes (EscapeBytes, and QuoteBytes' \x22 for a quote), so a report's
  // escaped text is masked too; longer tokens first.
  std::string Masked(std::string_view text) const;
  void Mask(std::string* text) const;
  // Every string and bytes field of `message` and of the messages it holds
  // (protobuf reflection): a report about to be printed, or a record about
  // to be exported.
  void Mask(google::protobuf::Message* message) const;

 private:
  struct Needle {
    std::string text;  // a form of the token as it may appear
    std::size_t length = 0;  // the token's own length: the stars that replace it
  };
  void Rebuild();

  std::vector<std::string> tokens_;
  std::vector<Needle> needles_;  // longest first
};

}  // namespace proctape
