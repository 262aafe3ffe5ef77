// SPDX-License-Identifier: Apache-2.0
// One JSON document, read by a real parser: protobuf's, into a
// google.protobuf.Value, which accepts exactly one JSON text and nothing
// after it (docs/cli/json.md: one document per invocation).
#pragma once

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <string>

namespace proctape::live {

struct JsonDocument {
  bool ok = false;
  std::string why;  // the parser's complaint when not ok
  google::protobuf::Value value;
};

// The whole of `text` as one JSON document (one trailing newline allowed).
inline JsonDocument ParseJsonDocument(const std::string& text) {
  JsonDocument d;
  auto status = google::protobuf::util::JsonStringToMessage(text, &d.value);
  d.ok = status.ok();
  d.why = status.ToString();
  return d;
}

}  // namespace proctape::live
