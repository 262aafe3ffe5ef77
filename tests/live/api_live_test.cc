// SPDX-License-Identifier: Apache-2.0
// The library (include/proctape/proctape.h) on a real PID-namespace sandbox:
// a root fingerprinted in-process, its sandboxed sleep resolved in-process to
// the host identity /proc gives independently; on failure a .ptape that
// replays to its verdict, on RESOLVED nothing; liveness of the identity;
// several threads resolving different sandboxes at once; and nothing written
// to standard output or standard error. Every process is ended by its pid
// (sandbox.h).
#include <cctype>
#include <gtest/gtest.h>
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "proctape/proctape.h"
#include "tests/live/files.h"
#include "tests/live/sandbox.h"

namespace proctape {
namespace {

using live::Sandbox;
using live::SandboxKind;
using live::TempDir;

class ApiLiveTest : public ::testing::TestWithParam<SandboxKind> {
 protected:
  std::unique_ptr<Sandbox> Start(const std::string& token) {
    std::string why = live::SandboxUnavailable(GetParam());
    if (!why.empty()) {
      skip_ = why;
      return nullptr;
    }
    std::string error;
    auto sandbox = Sandbox::Start(GetParam(), token, &error);
    EXPECT_NE(sandbox, nullptr) << error;
    return sandbox;
  }
  static api::Fingerprint Fingerprint(const Sandbox& sandbox) {
    api::FingerprintResult f = api::TakeFingerprint(sandbox.app_server(), "/bin/sleep");
    EXPECT_TRUE(f.ok()) << f.error.message;
    return f.fingerprint;
  }
  std::string skip_;
};

std::vector<std::string> Entries(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    out.push_back(e.path().filename().string());
  }
  return out;
}

TEST_P(ApiLiveTest, ResolvesTheSandboxedSleepInProcessAndRecordsNothing) {
  auto sandbox = Start(live::RandomHex(16));
  if (!skip_.empty()) GTEST_SKIP() << skip_;
  ASSERT_NE(sandbox, nullptr);
  api::Fingerprint fingerprint = Fingerprint(*sandbox);
  EXPECT_EQ(fingerprint.root_pid, sandbox->app_server());
  ASSERT_EQ(live::ReadStat(sandbox->app_server())->start_ticks, fingerprint.root_start_ticks);
  TempDir dir("api-live");
  api::Request request;
  request.token = sandbox->token();
  api::ResolveResult r =
      api::Resolve(request, fingerprint, {api::Record::kOnFailure, dir.File("r.ptape"), false});
  ASSERT_TRUE(r.ok()) << r.error.message;
  ASSERT_EQ(r.verdict.status, api::Status::kResolved) << r.verdict.detail;
  EXPECT_EQ(
      r.verdict.identity(),
      (api::ProcessIdentity{sandbox->sleep_pid(), sandbox->sleep_start(), fingerprint.boot_id}));
  EXPECT_EQ(r.recording, "");
  EXPECT_TRUE(Entries(dir.path()).empty());

  api::LivenessResult alive = api::CheckLiveness(r.verdict.identity());
  ASSERT_TRUE(alive.ok()) << alive.error.message;
  EXPECT_EQ(alive.verdict.status, api::Liveness::kAlive) << alive.verdict.detail;
  EXPECT_FALSE(alive.verdict.boot_unchecked);
  // Bound to its boot (docs/resolver.md, "Liveness"): another boot's is
  // refused, naming both; one without a boot is checked and says so.
  api::ProcessIdentity other = r.verdict.identity();
  other.boot_id = "00000000-1111-4222-8333-444444444444";
  api::LivenessResult refused = api::CheckLiveness(other);
  EXPECT_EQ(refused.error.code, api::ErrorCode::kOtherBoot) << refused.error.message;
  EXPECT_NE(refused.error.message.find("00000000-1111-4222-8333-444444444444"), std::string::npos)
      << refused.error.message;
  std::string host_boot = fingerprint.boot_id.substr(0, fingerprint.boot_id.find('\n'));
  EXPECT_NE(refused.error.message.find(host_boot), std::string::npos) << refused.error.message;
  other.boot_id = host_boot;  // as a user copies it, without the newline
  EXPECT_EQ(api::CheckLiveness(other).verdict.status, api::Liveness::kAlive);
  for (char& c : other.boot_id) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_EQ(api::CheckLiveness(other).verdict.status, api::Liveness::kAlive);  // either case
  other.boot_id = "not-a-boot";
  EXPECT_EQ(api::CheckLiveness(other).error.code, api::ErrorCode::kInvalidArgument);
  other.boot_id.clear();
  api::LivenessResult unchecked = api::CheckLiveness(other);
  ASSERT_TRUE(unchecked.ok()) << unchecked.error.message;
  EXPECT_EQ(unchecked.verdict.status, api::Liveness::kAlive);
  EXPECT_TRUE(unchecked.verdict.boot_unchecked);
  ASSERT_TRUE(sandbox->KillSleep());
  EXPECT_EQ(api::CheckLiveness(r.verdict.identity()).verdict.status, api::Liveness::kDead);
}

TEST_P(ApiLiveTest, AWrongTokenLeavesAPtapeThatReplaysToItsVerdict) {
  auto sandbox = Start(live::RandomHex(16));
  if (!skip_.empty()) GTEST_SKIP() << skip_;
  ASSERT_NE(sandbox, nullptr);
  TempDir dir("api-live");
  api::Request request;
  request.token = "not-" + sandbox->token();
  request.deadline_ms = 300;
  api::ResolveResult r = api::Resolve(request, Fingerprint(*sandbox),
                                      {api::Record::kOnFailure, dir.File("r.ptape"), false});
  ASSERT_TRUE(r.ok()) << r.error.message;
  EXPECT_EQ(r.verdict.status, api::Status::kTokenMismatch) << r.verdict.detail;
  ASSERT_EQ(r.recording, dir.File("r.ptape"));
  EXPECT_EQ(Entries(dir.path()), std::vector<std::string>{"r.ptape"});
  api::FileSummary file = api::ReadFile(r.recording);
  ASSERT_TRUE(file.ok()) << file.error.message;
  EXPECT_EQ(file.frames, 1u);
  EXPECT_GT(file.processes, 0u);
  api::ReplayReport replay = api::Replay(r.recording);
  ASSERT_TRUE(replay.ok()) << replay.error.message;
  ASSERT_EQ(replay.checks.size(), 1u);
  EXPECT_EQ(replay.worst, api::ReplayOutcome::kReproduced) << replay.checks[0].description;
}

// Different requests on several threads at once: each its own Evidence.
TEST_P(ApiLiveTest, ThreadsResolveDifferentSandboxesAtOnce) {
  auto a = Start(live::RandomHex(16));
  if (!skip_.empty()) GTEST_SKIP() << skip_;
  auto b = Start(live::RandomHex(16));
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  const api::Fingerprint fa = Fingerprint(*a), fb = Fingerprint(*b);
  constexpr int kThreads = 6;
  std::vector<api::ResolveResult> results(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      api::Request request;
      request.token = (i % 2 ? b : a)->token();
      results[static_cast<std::size_t>(i)] = api::Resolve(request, i % 2 ? fb : fa);
    });
  }
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < kThreads; ++i) {
    const Sandbox& s = i % 2 ? *b : *a;
    const api::ResolveResult& r = results[static_cast<std::size_t>(i)];
    ASSERT_TRUE(r.ok()) << i << ": " << r.error.message;
    EXPECT_EQ(r.verdict.identity(),
              (api::ProcessIdentity{s.sleep_pid(), s.sleep_start(), fa.boot_id}))
        << i << ": " << api::StatusName(r.verdict.status) << " " << r.verdict.detail;
  }
}

// The library prints nothing, on success or on failure, recording or not.
TEST_P(ApiLiveTest, TheLibraryWritesNothingToStandardOutputOrError) {
  auto sandbox = Start(live::RandomHex(16));
  if (!skip_.empty()) GTEST_SKIP() << skip_;
  ASSERT_NE(sandbox, nullptr);
  TempDir dir("api-live");
  const std::string captured = dir.File("captured");
  int fd = ::open(captured.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  std::fflush(stdout);
  std::fflush(stderr);
  const int saved_out = ::dup(1), saved_err = ::dup(2);
  ::dup2(fd, 1);
  ::dup2(fd, 2);
  api::FingerprintResult f = api::TakeFingerprint(sandbox->app_server());
  api::Request request;
  request.token = sandbox->token();
  api::ResolveResult ok = api::Resolve(request, f.fingerprint);
  request.token = "wrong";
  request.deadline_ms = 200;
  api::ResolveResult failed =
      api::Resolve(request, f.fingerprint, {api::Record::kAlways, dir.File("r.ptape"), false});
  api::LivenessResult alive = api::CheckLiveness(ok.verdict.identity());
  api::ReplayReport replay = api::Replay(dir.File("r.ptape"));
  api::FingerprintResult none = api::TakeFingerprint(2147483647);
  std::fflush(stdout);
  std::fflush(stderr);
  ::dup2(saved_out, 1);
  ::dup2(saved_err, 2);
  ::close(saved_out);
  ::close(saved_err);
  ::close(fd);
  EXPECT_EQ(ok.verdict.status, api::Status::kResolved);
  EXPECT_NE(failed.recording, "");
  EXPECT_EQ(alive.verdict.status, api::Liveness::kAlive);
  EXPECT_EQ(replay.worst, api::ReplayOutcome::kReproduced);
  EXPECT_FALSE(none.ok());
  EXPECT_EQ(std::filesystem::file_size(captured), 0u);
}

INSTANTIATE_TEST_SUITE_P(Sandboxes, ApiLiveTest,
                         ::testing::Values(SandboxKind::kUnshare, SandboxKind::kBwrap),
                         [](const ::testing::TestParamInfo<SandboxKind>& param) {
                           return std::string(live::SandboxName(param.param));
                         });

}  // namespace
}  // namespace proctape
