// SPDX-License-Identifier: Apache-2.0
// The hostile shapes (tests/hostile/README.md): small files, each under
// 1 MiB on disk, that make a reader hold or do much more than their size
// through a feature of the format (docs/format.md sections 4, 7 and 9a) or
// of a command (explore, minimize, the frame model, the token mask). Each
// shape is built by hand (tests/hostile/file_builder.h), so it can be a file
// the writer refuses to write, and takes key=value parameters (its size).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tests/hostile/file_builder.h"

namespace proctape::hostile {

// key=value parameters of a shape: its defaults, overridden by the caller's.
class Params {
 public:
  // Parses "k=v k=v ..." (the defaults) then each of `given`; false with
  // *error on a word that is not key=value or a key not in the defaults.
  bool Parse(const std::string& defaults, const std::vector<std::string>& given,
             std::string* error);
  // The same, `given` as one string of words ("k=v k=v").
  bool Parse(const std::string& defaults, const std::string& given, std::string* error);
  std::uint64_t Num(const std::string& key) const;  // throws if not a number
  const std::string& Text(const std::string& key) const;

 private:
  std::map<std::string, std::string> values_;
};

// What a shape built, beside its bytes.
struct Built {
  FileBuilder file;
  std::string token;     // the token its recordings look for ("": none)
  std::int64_t pid = 0;  // a process of its frames (ownership --self)
  // Text holding pieces of the token, for the MANIFEST of its corpus
  // (shows, scenario): docs/corpus.md values that outputs print.
  std::string manifest_text;
};

struct Shape {
  std::string name;
  std::string stresses;  // one line: what it stresses, and through which commands
  std::string defaults;  // "k=v ...": the size hostile_file writes by default, under 1 MiB
  std::string small;     // a size every reader reads quickly (the unit test)
  // What `proctape verify` says of the small size: 0 intact, or the status
  // of the refusal the shape means (15 corrupt, 16 too-large).
  int verify_status = 0;
  std::function<void(const Params&, Built*)> build;
};

// Every shape, in the order of tests/hostile/README.md.
const std::vector<Shape>& AllShapes();
// The shape named `name`, or null.
const Shape* FindShape(const std::string& name);

// The shapes of each family (shapes_*.cc), which AllShapes joins.
std::vector<Shape> ReferenceShapes();  // logical size: the previous frame, blobs
std::vector<Shape> TapeShapes();       // logical size: "same as observation K"
std::vector<Shape> CountShapes();      // counts at their limits, many chunks, checks, tokens
std::vector<Shape> WorkShapes();       // explore, minimize, the frame model, clocks
std::vector<Shape> TokenShapes();      // pieces of the token where a view prints host bytes
std::vector<Shape> EncodingShapes();   // the protobuf encoding: nesting, edge values, repeats

}  // namespace proctape::hostile
