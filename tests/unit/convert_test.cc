// SPDX-License-Identifier: Apache-2.0
// proto/convert.h: core types <-> schema v1, through the wire and back.
#include "proto/convert.h"

#include <gtest/gtest.h>

#include <cctype>
#include <string>

namespace proctape {
namespace {

using namespace std::string_literals;

// Through the wire format and back: what a tape stores is what is read.
template <typename Message>
Message Wire(const Message& m) {
  Message out;
  EXPECT_TRUE(out.ParseFromString(m.SerializeAsString()));
  return out;
}

Bounds OddBounds() {
  Bounds b;
  b.max_entries = 11;
  b.max_nodes = 12;
  b.max_depth = 13;
  b.stat_bytes = 14;
  b.cmdline_bytes = 15;
  b.environ_bytes = 16;
  b.byte_budget = 17;
  b.deadline_ns = 18;
  b.retry_ns = 19;
  return b;
}

void ExpectSameBounds(const Bounds& a, const Bounds& b) {
  EXPECT_EQ(a.max_entries, b.max_entries);
  EXPECT_EQ(a.max_nodes, b.max_nodes);
  EXPECT_EQ(a.max_depth, b.max_depth);
  EXPECT_EQ(a.stat_bytes, b.stat_bytes);
  EXPECT_EQ(a.cmdline_bytes, b.cmdline_bytes);
  EXPECT_EQ(a.environ_bytes, b.environ_bytes);
  EXPECT_EQ(a.byte_budget, b.byte_budget);
  EXPECT_EQ(a.deadline_ns, b.deadline_ns);
  EXPECT_EQ(a.retry_ns, b.retry_ns);
}

TEST(Convert, BoundsRoundTrip) {
  ExpectSameBounds(FromProto(Wire(ToProto(OddBounds()))), OddBounds());
  ExpectSameBounds(FromProto(Wire(ToProto(Bounds{}))), Bounds{});
}

// Schema rule: "raw /proc content is bytes, never string: names and
// environments need not be UTF-8 and may be hostile".
TEST(Convert, RequestRoundTripKeepsNonUtf8Bytes) {
  Request r;
  r.root_pid = 4000;
  r.root_start_ticks = 500000;
  r.token = "tok\xff\xfe\0x"s;
  r.token_var = "TOK\x80";
  r.argv = {"/bin/sl\xffp", ""s, "a\0b"s};
  r.exe = Identity{0, 0x803, 1311};
  r.bounds = OddBounds();

  Request back = FromProto(Wire(ToProto(r)));
  EXPECT_EQ(back.root_pid, r.root_pid);
  EXPECT_EQ(back.root_start_ticks, r.root_start_ticks);
  EXPECT_EQ(back.token, r.token);
  EXPECT_EQ(back.token_var, r.token_var);
  EXPECT_EQ(back.argv, r.argv);
  EXPECT_EQ(back.exe, r.exe);
  ExpectSameBounds(back.bounds, r.bounds);
}

TEST(Convert, VerdictRoundTripKeepsEvidenceBytes) {
  Verdict v;
  v.status = Status::kMultipleMatches;
  v.subject_pid = 4103;
  v.subject_start_ticks = 510003;
  v.expected_ticks = 510002;
  v.file = static_cast<int>(ProcFile::kEnviron);
  v.err = 13;
  v.evidence = "x) Z\n\xff\0\xfe"s;
  v.detail = "2 processes beneath the root match";
  v.attempts = 51;
  v.bytes_read = 123456789;
  v.matches = {4103, 4203};

  Verdict back = FromProto(Wire(ToProto(v)));
  EXPECT_EQ(back.status, v.status);
  EXPECT_EQ(back.subject_pid, v.subject_pid);
  EXPECT_EQ(back.subject_start_ticks, v.subject_start_ticks);
  EXPECT_EQ(back.expected_ticks, v.expected_ticks);
  EXPECT_EQ(back.file, v.file);
  EXPECT_EQ(back.err, v.err);
  EXPECT_EQ(back.evidence, v.evidence);
  EXPECT_EQ(back.detail, v.detail);
  EXPECT_EQ(back.attempts, v.attempts);
  EXPECT_EQ(back.bytes_read, v.bytes_read);
  EXPECT_EQ(back.matches, v.matches);
}

TEST(Convert, IdentityRoundTripKeepsErrno) {
  for (Identity id : {Identity{0, 0x803, 1311}, Identity{2, 0, 0}, Identity{0, UINT64_MAX, 1}}) {
    EXPECT_EQ(FromProto(Wire(ToProto(id))), id);
  }
}

// Verdict statuses and files share the schema's numbers and names.
TEST(Convert, EveryStatusHasTheSchemaEnumName) {
  for (int s = 1; s <= 20; ++s) {
    EXPECT_EQ(v1::Verdict::Status_Name(static_cast<v1::Verdict::Status>(s)),
              StatusName(static_cast<Status>(s)));
  }
  for (int s = 1; s <= 3; ++s) {
    EXPECT_EQ(v1::LivenessVerdict::Status_Name(static_cast<v1::LivenessVerdict::Status>(s)),
              LivenessName(static_cast<LivenessStatus>(s)));
  }
  for (int f = 1; f <= 6; ++f) {
    std::string name(ProcFileName(static_cast<ProcFile>(f)));
    for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_EQ(v1::ProcFile_Name(static_cast<v1::ProcFile>(f)), "PROC_FILE_" + name);
  }
}

TEST(Convert, ToJsonEmitsTheStatusName) {
  Verdict v;
  v.status = Status::kMultipleMatches;
  v.matches = {4103, 4203};
  v.evidence = "\xff\xfe";
  std::string json = ToJson(ToProto(v));
  EXPECT_NE(json.find("\"status\":\"MULTIPLE_MATCHES\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"matches\":[\"4103\",\"4203\"]"), std::string::npos) << json;
  EXPECT_NE(json.find("\"evidence\":\"//4=\""), std::string::npos) << json;  // bytes: base64
  EXPECT_EQ(json.find('\n'), std::string::npos) << json;

  LivenessVerdict reused;
  reused.status = LivenessStatus::kError;
  reused.reason = Status::kPidReused;
  std::string lj = ToJson(ToProto(reused));
  EXPECT_NE(lj.find("\"status\":\"ERROR\""), std::string::npos) << lj;
  EXPECT_NE(lj.find("\"reason\":\"PID_REUSED\""), std::string::npos) << lj;

  LivenessVerdict dead;
  dead.status = LivenessStatus::kDead;
  std::string dj = ToJson(ToProto(dead));
  EXPECT_NE(dj.find("\"status\":\"DEAD\""), std::string::npos) << dj;
  EXPECT_EQ(dj.find("PID_REUSED"), std::string::npos) << dj;
}

// A failure carries no pid: `jq -r .pid` must never yield a pid for a
// verdict that is not RESOLVED. The process it is about is subject_pid.
TEST(Convert, OnlyAResolvedVerdictHasAPid) {
  Verdict failed;
  failed.status = Status::kPidReused;
  failed.subject_pid = 4103;
  failed.subject_start_ticks = 77;
  v1::Verdict out = ToProto(failed);
  EXPECT_FALSE(out.has_pid());
  EXPECT_FALSE(out.has_start_ticks());
  EXPECT_EQ(out.subject_pid(), 4103);
  EXPECT_EQ(ToJson(out).find("\"pid\""), std::string::npos) << ToJson(out);

  Verdict resolved;
  resolved.status = Status::kResolved;
  resolved.pid = 4103;
  resolved.start_ticks = 77;
  out = ToProto(resolved);
  EXPECT_TRUE(out.has_pid());
  EXPECT_EQ(out.pid(), 4103);
  EXPECT_EQ(out.start_ticks(), 77u);
  EXPECT_EQ(out.subject_pid(), 0);
}

// Files written before subject_pid existed kept a failure's subject in pid.
TEST(Convert, UpgradeVerdictMovesAnOldFailuresPidToItsSubject) {
  v1::Verdict old;
  old.set_status(v1::Verdict::TOKEN_MISMATCH);
  old.set_pid(215);
  old.set_start_ticks(1310656);
  UpgradeVerdict(&old);
  EXPECT_FALSE(old.has_pid());
  EXPECT_FALSE(old.has_start_ticks());
  EXPECT_EQ(old.subject_pid(), 215);
  EXPECT_EQ(old.subject_start_ticks(), 1310656u);

  v1::Verdict resolved;
  resolved.set_status(v1::Verdict::RESOLVED);
  resolved.set_pid(215);
  resolved.set_start_ticks(9);
  v1::Verdict copy = resolved;
  UpgradeVerdict(&copy);
  EXPECT_EQ(copy.SerializeAsString(), resolved.SerializeAsString());
}

}  // namespace
}  // namespace proctape

namespace proctape {
namespace {

// export --format json past protobuf's serialization limit: an error, never an
// empty document (once, `export --format json` did). The limit is injected
// small here.
TEST(Convert, JsonOfAMessageOverTheSerializationLimitIsAnError) {
  v1::Header header;
  header.mutable_host()->set_hostname(std::string(100, 'h'));
  std::string out = "stale";
  MaybeFailure failed = ToJsonChecked(header, &out, header.ByteSizeLong() - 1);
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->kind, FailureKind::kTooLarge);
  EXPECT_TRUE(out.empty());
  EXPECT_NE(failed->message.find("over protobuf's limit"), std::string::npos) << failed->message;
  failed = ToJsonChecked(header, &out, header.ByteSizeLong());
  ASSERT_FALSE(failed) << failed->message;
  EXPECT_EQ(out, ToJson(header));
  EXPECT_EQ(kMaxSerializedBytes, static_cast<std::uint64_t>(INT32_MAX));
}

}  // namespace
}  // namespace proctape
