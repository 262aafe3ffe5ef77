// SPDX-License-Identifier: Apache-2.0
// protobuf's JSON printer, one repeated element at a time. The printer of
// protobuf 3.21 builds a tree of the whole document before it writes a byte
// when it prints default values (always_print_primitive_fields, which every
// JSON output of proctape uses): about 50 KB a process record, so a file of
// 60,000 processes took `export --format json` to 3 GB and `tree --json` to
// 900 MB. Printed piece by piece, the memory is the output's plus one
// element's tree.
#pragma once

#include <functional>
#include <map>
#include <string>

#include <google/protobuf/message.h>
#include <google/protobuf/util/json_util.h>

#include "core/failure.h"

namespace proctape {

// The options of every JSON output of proctape: proto field names, default
// values printed (an empty repeated field as `[]`).
google::protobuf::util::JsonPrintOptions JsonOptions();

// Appends `message` to *out exactly as MessageToJsonString prints it with
// `options` (compact, no whitespace added), each element of a repeated
// message field printed on its own. A failure (kInternal, the printer's
// message) when it fails (*out is then incomplete).
MaybeFailure AppendJsonPieces(const google::protobuf::Message& message,
                              const google::protobuf::util::JsonPrintOptions& options,
                              std::string* out);

// The elements of a repeated message field held outside the message (a
// document assembled from a Snapshot without copying it): appends them, each
// printed as above, joined by commas; a failure when one fails (returned by
// AppendJsonPieces as it is).
using JsonElements = std::function<MaybeFailure(std::string* out)>;
// AppendJsonPieces of `shell`, whose repeated message fields named in
// `elements` (by their proto name) are empty: each is printed with the
// elements `elements` appends.
MaybeFailure AppendJsonPieces(const google::protobuf::Message& shell,
                              const google::protobuf::util::JsonPrintOptions& options,
                              const std::map<std::string, JsonElements>& elements,
                              std::string* out);

}  // namespace proctape
