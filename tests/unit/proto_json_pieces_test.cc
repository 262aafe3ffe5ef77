// SPDX-License-Identifier: Apache-2.0
// proto/json_pieces.h prints a message exactly as protobuf's printer does,
// piece by piece (docs/export.md): long repeated scalar fields in slices too,
// so that 16 M pids of a verdict (3 KB on disk) do not make the printer build
// a tree of gigabytes.
#include <gtest/gtest.h>

#include <string>

#include "proctape.pb.h"
#include "proto/json_pieces.h"

namespace proctape {
namespace {

std::string Whole(const google::protobuf::Message& m) {
  std::string out;
  EXPECT_TRUE(google::protobuf::util::MessageToJsonString(m, &out, JsonOptions()).ok());
  return out;
}

std::string Pieces(const google::protobuf::Message& m) {
  std::string out;
  const MaybeFailure failed = AppendJsonPieces(m, JsonOptions(), &out);
  EXPECT_FALSE(failed) << failed->message;
  return out;
}

TEST(JsonPieces, LongRepeatedScalarsPrintInSlicesExactlyAsTheWhole) {
  for (const int n : {0, 1, 4095, 4096, 4097, 10000}) {
    v1::Verdict v;
    v.set_detail("d \"q\" [x]");
    for (int i = 0; i < n; ++i) v.add_matches(i * 7 - 3);  // int64: printed as strings
    EXPECT_EQ(Pieces(v), Whole(v)) << n;
    v1::Resolution nested;  // the verdict within a resolution: printed apart too
    *nested.mutable_verdict() = v;
    nested.mutable_verdict()->set_detail("{\"x\":[1]}");
    nested.mutable_resolve()->set_token("t");
    EXPECT_EQ(Pieces(nested), Whole(nested)) << n;
    v1::ResolutionRequest r;
    for (int i = 0; i < n; ++i) r.add_argv(std::string("a\0]\"", 4) + std::to_string(i));  // bytes
    EXPECT_EQ(Pieces(r), Whole(r)) << n;
    v1::Observation o;
    for (int i = 0; i < n; ++i) o.mutable_list_pids()->add_names(std::to_string(i));
    EXPECT_EQ(Pieces(o), Whole(o)) << n;
  }
}

}  // namespace
}  // namespace proctape
