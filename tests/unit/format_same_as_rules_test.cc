// SPDX-License-Identifier: Apache-2.0
// docs/format.md section 9a, "Tapes: only what changed": version 2's "same
// as observation K". A reference names the last earlier observation of the
// same call, holds no result of its own, and is read as that result; the
// reader keeps the tape compact on request. Each rule both ways: a file
// obeying it reads, a file breaking it is refused with the documented kind,
// chunk and byte offset.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "format/file_format.h"
#include "format/reader.h"
#include "proctape.pb.h"
#include "tests/unit/format_bytes.h"
#include "tests/unit/format_structure_fixture.h"

namespace proctape {
namespace {

using namespace proctape::test;

// ReadFile(pid, stat, bound 4096) returning `data`, or (same_as != 0) a
// reference with no result of its own.
v1::Observation StatRead(std::uint64_t index, std::int64_t pid, const std::string& data,
                         std::uint64_t same_as = 0) {
  v1::Observation o;
  o.set_index(index);
  o.mutable_read_file()->set_pid(pid);
  o.mutable_read_file()->set_file(v1::PROC_FILE_STAT);
  o.mutable_read_file()->mutable_result()->set_bound(4096);
  if (same_as == 0) {
    o.mutable_read_file()->mutable_result()->set_data(data);
  } else {
    o.set_same_as(same_as);
  }
  return o;
}

v1::Observation Listing(std::uint64_t index, std::vector<std::string> names,
                        std::uint64_t same_as = 0) {
  v1::Observation o;
  o.set_index(index);
  o.mutable_list_pids()->set_bound(1000);
  if (same_as == 0) {
    for (const auto& n : names) o.mutable_list_pids()->add_names(n);
  } else {
    o.set_same_as(same_as);
  }
  return o;
}

v1::Observation Now(std::uint64_t index, std::uint64_t same_as = 0) {
  v1::Observation o;
  o.set_index(index);
  o.mutable_now()->set_result_ns(1000 + static_cast<std::int64_t>(index));
  o.set_same_as(same_as);
  return o;
}

v1::Chunk Of(std::vector<v1::Observation> observations) {
  v1::Chunk c;
  for (auto& o : observations) *c.mutable_observations()->add_observations() = std::move(o);
  return c;
}

// `b` as a version 1 file: its preamble and header say 1.
Built Version1(const std::vector<v1::Chunk>& body) {
  Built b = Build(body, std::nullopt, true, HeaderBody(1));
  b.bytes.replace(8, 4, Le32(1));
  return b;
}

class FormatSameAsRulesTest : public FormatStructureRulesTest {
 protected:
  Read ReadCompact(const std::string& bytes) {
    Spit(Path("f.ptape"), bytes);
    Read r;
    ReadKeep keep;
    keep.compact_tape = true;
    r.error = ReadSnapshot(Path("f.ptape"), &r.snapshot, keep);
    return r;
  }
};

TEST_F(FormatSameAsRulesTest, SameAsReadsAsTheLastResultOfTheSameCall) {
  // Observation 2 is observation 0's result again; observation 4 (in the
  // next chunk) is observation 2's; 5 is the listing of 3.
  Built b = Build(
      {Of({StatRead(0, 7, "7 (a) S 1"), Now(1), StatRead(2, 7, "", 2), Listing(3, {"1", "7"})}),
       Of({StatRead(4, 7, "", 2), Listing(5, {}, 2)})});
  Read r = ReadBytes(b.bytes);
  ASSERT_TRUE(Reads(r));
  ASSERT_EQ(r.snapshot.observations.size(), 6u);
  for (std::size_t i : {2u, 4u}) {
    const v1::Observation& o = r.snapshot.observations[i];
    EXPECT_EQ(o.same_as(), 0u) << i;
    EXPECT_EQ(o.read_file().pid(), 7) << i;
    EXPECT_EQ(o.read_file().result().data(), "7 (a) S 1") << i;
    EXPECT_EQ(o.read_file().result().bound(), 4096u) << i;
  }
  EXPECT_EQ(r.snapshot.observations[5].list_pids().names_size(), 2);
  EXPECT_EQ(r.snapshot.observations[5].same_as(), 0u);
}

// "Across the whole file": neither a resolution nor a frame between two
// observations starts the table of last results anew.
TEST_F(FormatSameAsRulesTest, SameAsReachesAcrossResolutionsAndFrames) {
  Built b = Build({Of({StatRead(0, 7, "7 (a) S 1")}), Resolution(0, 1), FramePart(0, true),
                   Of({Listing(1, {"7"}), StatRead(2, 7, "", 2)}), Resolution(1, 2)});
  Read r = ReadBytes(b.bytes);
  ASSERT_TRUE(Reads(r));
  ASSERT_EQ(r.snapshot.observations.size(), 3u);
  EXPECT_EQ(r.snapshot.observations[2].read_file().result().data(), "7 (a) S 1");
  EXPECT_EQ(r.snapshot.observations[2].same_as(), 0u);
}

TEST_F(FormatSameAsRulesTest, SameAsInAVersion1FileIsCorrupt) {
  const std::vector<v1::Chunk> body = {Of({StatRead(0, 7, "7 (a) S 1"), StatRead(1, 7, "", 1)})};
  ASSERT_TRUE(Reads(ReadBytes(Build(body).bytes)));
  Built b = Version1(body);
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 1,
                      "a 'same as' reference in a version 1 file (observation 1)"));
  // The same observations written whole read in version 1.
  Built whole = Version1({Of({StatRead(0, 7, "7 (a) S 1"), StatRead(1, 7, "7 (a) S 1")})});
  EXPECT_TRUE(Reads(ReadBytes(whole.bytes)));
}

TEST_F(FormatSameAsRulesTest, SameAsBeforeTheFirstObservationIsCorrupt) {
  Built b = Build({Of({StatRead(0, 7, "7 (a) S 1"), StatRead(1, 7, "", 2)})});
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 1,
                      "'same as' 2 observations back, before the first (observation 1)"));
}

TEST_F(FormatSameAsRulesTest, SameAsAnotherCallIsCorrupt) {
  // Observation 1 reads pid 8: observation 0 (pid 7) is another call.
  Built b = Build({Of({StatRead(0, 7, "7 (a) S 1"), StatRead(1, 8, "", 1)})});
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 1,
                      "'same as' observation 0, which is not the last earlier observation of "
                      "the same call (observation 1)"));
  // Another bound is another call too.
  v1::Observation other = StatRead(1, 7, "", 1);
  other.mutable_read_file()->mutable_result()->set_bound(100);
  b = Build({Of({StatRead(0, 7, "7 (a) S 1"), other})});
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 1, "not the last earlier observation"));
}

TEST_F(FormatSameAsRulesTest, SameAsAnOlderObservationOfTheCallIsCorrupt) {
  // Observation 1 is the last of the call: 2 must name it, not 0.
  Built b = Build({Of({StatRead(0, 7, "7 (a) S 1"), StatRead(1, 7, "7 (a) S 2")}),
                   Of({StatRead(2, 7, "", 2)})});
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 2,
                      "'same as' observation 0, which is not the last earlier observation of "
                      "the same call (observation 2)"));
  b = Build({Of({StatRead(0, 7, "7 (a) S 1"), StatRead(1, 7, "7 (a) S 2")}),
             Of({StatRead(2, 7, "", 1)})});
  Read r = ReadBytes(b.bytes);
  ASSERT_TRUE(Reads(r));
  EXPECT_EQ(r.snapshot.observations[2].read_file().result().data(), "7 (a) S 2");
}

TEST_F(FormatSameAsRulesTest, SameAsBesideAResultOfItsOwnIsCorrupt) {
  v1::Observation both = StatRead(1, 7, "", 1);
  both.mutable_read_file()->mutable_result()->set_err(2);
  Built b = Build({Of({StatRead(0, 7, "7 (a) S 1"), both})});
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 1,
                      "a 'same as' reference beside a result of its own (observation 1)"));
  v1::Observation names = Listing(1, {}, 1);
  names.mutable_list_pids()->add_names(std::string("9"));
  b = Build({Of({Listing(0, {"1"}), names})});
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 1, "beside a result of its own"));
}

TEST_F(FormatSameAsRulesTest, SameAsOnAClockReadingIsCorrupt) {
  Built b = Build({Of({Now(0), Now(1, 1)})});
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 1,
                      "a 'same as' reference on a call that returns no result of its own "
                      "(observation 1)"));
  // A sleep, and an observation that makes no call, have none either.
  v1::Observation sleep;
  sleep.set_index(1);
  sleep.mutable_sleep_until()->set_until_ns(5);
  sleep.set_same_as(1);
  v1::Observation none;
  none.set_index(1);
  none.set_same_as(1);
  for (const v1::Observation& o : {sleep, none}) {
    b = Build({Of({Now(0), o})});
    EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 1, "on a call that returns no result of its own"));
  }
}

TEST_F(FormatSameAsRulesTest, SameAsCopiesAreBoundedBeforeAnyIsMade) {
  // One result of 15 MiB, referred to 69 times: 69 x 15 MiB passes
  // kMaxSameAsCopyBytes (1 GiB) in a file of a few KB.
  const std::string big(15u << 20, 's');
  std::vector<v1::Observation> refs;
  const std::uint64_t n = kMaxSameAsCopyBytes / big.size() + 1;
  for (std::uint64_t i = 1; i <= n; ++i) refs.push_back(StatRead(i, 7, "", 1));
  Built b = Build({Of({StatRead(0, 7, big)}), Of(refs)});
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 2, "'same as' references copy more than 1073741824",
                      FormatErrorKind::kTooLarge));
}

TEST_F(FormatSameAsRulesTest, CompactTapeStoresEachDistinctResultOnce) {
  Built b = Build({Of({StatRead(0, 7, "7 (a) S 1"), StatRead(1, 8, "8 (b) S 1"), Now(2),
                       StatRead(3, 7, "", 3), StatRead(4, 8, "8 (b) R 1")}),
                   Of({StatRead(5, 7, "", 2)})});
  Read r = ReadCompact(b.bytes);
  ASSERT_TRUE(Reads(r));
  EXPECT_TRUE(r.snapshot.observations.empty());
  ASSERT_EQ(r.snapshot.tape.size(), 6u);
  // 7's one result, 8's two.
  EXPECT_EQ(r.snapshot.tape.distinct_results(), 3u);
  const Tape& t = r.snapshot.tape;
  EXPECT_EQ(&t.file_result(t.call(0)), &t.file_result(t.call(3)));
  EXPECT_EQ(&t.file_result(t.call(0)), &t.file_result(t.call(5)));
  EXPECT_EQ(t.file_result(t.call(4)).data, "8 (b) R 1");
  // Rebuilt, each observation is the one the plain reader returns.
  Read plain = ReadBytes(b.bytes);
  ASSERT_TRUE(Reads(plain));
  for (std::size_t i = 0; i < t.size(); ++i) {
    v1::Observation want = plain.snapshot.observations[i];
    want.clear_mono_ns();
    EXPECT_EQ(t.Observation(i).SerializeAsString(), want.SerializeAsString()) << i;
  }
}

TEST_F(FormatSameAsRulesTest, CompactTapeSharesEqualResultsOfAVersion1File) {
  Built b = Version1({Of(
      {StatRead(0, 7, "7 (a) S 1"), StatRead(1, 7, "7 (a) S 1"), StatRead(2, 7, "7 (a) S 2")})});
  Read r = ReadCompact(b.bytes);
  ASSERT_TRUE(Reads(r));
  ASSERT_EQ(r.snapshot.tape.size(), 3u);
  EXPECT_EQ(r.snapshot.tape.distinct_results(), 2u);
}

}  // namespace
}  // namespace proctape
