// SPDX-License-Identifier: Apache-2.0
// The library's public values (include/proctape/types.h): the same statuses
// and names as the core and the file format; every field of a verdict
// carried; arguments refused as errors, never thrown; file damage named.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "api/convert.h"
#include "core/verdict.h"
#include "proctape/proctape.h"

namespace proctape {
namespace {

TEST(ApiTypesTest, StatusesAreTheCoresWithTheSameNames) {
  for (int s = 1; s <= 20; ++s) {
    EXPECT_EQ(api::StatusName(static_cast<api::Status>(s)), StatusName(static_cast<Status>(s)))
        << s;
  }
  EXPECT_EQ(api::StatusName(api::Status::kInvalidRequest), "INVALID_REQUEST");
  EXPECT_EQ(api::LivenessName(api::Liveness::kDead), "DEAD");
}

TEST(ApiTypesTest, ErrorCodesHaveDistinctNames) {
  std::set<std::string_view> names;
  for (int c = 0; c <= static_cast<int>(api::ErrorCode::kInternal); ++c) {
    names.insert(api::ErrorCodeName(static_cast<api::ErrorCode>(c)));
  }
  EXPECT_EQ(names.size(), static_cast<std::size_t>(api::ErrorCode::kInternal) + 1);
}

TEST(ApiTypesTest, AVerdictKeepsEveryFieldAndNamesItsFile) {
  Verdict v;
  v.status = Status::kTokenMismatch;
  v.subject_pid = 4103;
  v.subject_start_ticks = 510003;
  v.expected_ticks = 7;
  v.file = static_cast<int>(ProcFile::kEnviron);
  v.err = 13;
  v.evidence = std::string("A=\0B", 4);
  v.detail = "why";
  v.attempts = 3;
  v.bytes_read = 999;
  v.matches = {5, 6};
  api::Verdict out = api::detail::FromCore(v);
  EXPECT_EQ(out.status, api::Status::kTokenMismatch);
  EXPECT_EQ(out.subject_pid, 4103);
  EXPECT_EQ(out.subject_start_ticks, 510003u);
  EXPECT_EQ(out.expected_ticks, 7u);
  EXPECT_EQ(out.file, "environ");
  EXPECT_EQ(out.err, 13);
  EXPECT_EQ(out.evidence, std::string("A=\0B", 4));
  EXPECT_EQ(out.detail, "why");
  EXPECT_EQ(out.attempts, 3u);
  EXPECT_EQ(out.bytes_read, 999u);
  EXPECT_EQ(out.matches, (std::vector<std::int64_t>{5, 6}));
  EXPECT_FALSE(out.resolved());
}

TEST(ApiTypesTest, AFingerprintWithoutItsBootIsRefused) {
  api::Fingerprint f;
  f.root_pid = 4000;
  f.root_start_ticks = 1;
  f.exe_path = "/bin/sleep";
  f.exe_ino = 5;
  api::Request request;
  request.token = "t0k3n";
  api::ResolveResult r = api::Resolve(request, f);
  EXPECT_EQ(r.error.code, api::ErrorCode::kInvalidArgument) << r.error.message;
  EXPECT_FALSE(r.ran);
}

TEST(ApiTypesTest, ADeadlineOutsideTheCliRangeIsRefused) {
  api::Fingerprint f;
  api::Request request;
  request.token = "t0k3n";
  request.deadline_ms = -1;
  EXPECT_EQ(api::Resolve(request, f).error.code, api::ErrorCode::kInvalidArgument);
  request.deadline_ms = 3'600'001;
  EXPECT_EQ(api::Resolve(request, f).error.code, api::ErrorCode::kInvalidArgument);
}

TEST(ApiTypesTest, TakeFingerprintRefusesAPidOutsideTheSeedsRange) {
  EXPECT_EQ(api::TakeFingerprint(1).error.code, api::ErrorCode::kInvalidArgument);
  EXPECT_EQ(api::TakeFingerprint(2147483648LL).error.code, api::ErrorCode::kInvalidArgument);
}

TEST(ApiTypesTest, AProcRootThatIsNotProcfsIsAnError) {
  api::LiveOptions options;
  options.proc_root = ::testing::TempDir();
  api::LivenessResult r = api::CheckLiveness({4103, 5, ""}, options);
  EXPECT_EQ(r.error.code, api::ErrorCode::kProc) << r.error.message;
}

TEST(ApiTypesTest, ReadFileNamesTheDamage) {
  const std::string dir = ::testing::TempDir();
  EXPECT_EQ(api::ReadFile(dir + "/no-such.ptape").error.code, api::ErrorCode::kIo);
  const std::string text = dir + "/api-not-a-ptape.txt";
  { std::ofstream(text) << "hello, not a recording\n"; }
  EXPECT_EQ(api::ReadFile(text).error.code, api::ErrorCode::kNotPtape);
  EXPECT_EQ(api::Replay(text).error.code, api::ErrorCode::kNotPtape);
  EXPECT_EQ(api::ReadFingerprintFile(text).error.code, api::ErrorCode::kNotPtape);
  std::filesystem::remove(text);
}

// An empty path is the caller's mistake, said as the C ABI and the Python
// package say it (docs/library.md), not a file that cannot be opened.
TEST(ApiTypesTest, AnEmptyPathIsAnInvalidArgumentAsInCAndPython) {
  for (const api::Error& e : {api::ReadFile("").error, api::Replay("").error}) {
    EXPECT_EQ(e.code, api::ErrorCode::kInvalidArgument);
    EXPECT_EQ(e.message, "path is empty");
  }
}

// A replay's description is lines for a caller to print: no final newline
// (the C example printed a blank line after each).
TEST(ApiTypesTest, AReplayDescriptionHasNoFinalNewline) {
  const api::ReplayReport report =
      api::Replay(std::string(PROCTAPE_SOURCE_DIR) + "/corpus/021e7cdf322033a4.ptape");
  ASSERT_TRUE(report.ok()) << report.error.message;
  ASSERT_FALSE(report.checks.empty());
  for (const api::ReplayedCheck& c : report.checks) {
    ASSERT_FALSE(c.description.empty());
    EXPECT_NE(c.description.back(), '\n') << c.description;
  }
}

}  // namespace
}  // namespace proctape
