// SPDX-License-Identifier: Apache-2.0
// The library's record policy (include/proctape/live.h, api/record.h) on the
// in-memory host: RESOLVED with kOnFailure leaves nothing; any other verdict,
// or kAlways, leaves a .ptape that reads back and replays to its verdict; a
// refused path stops before any work; the library registers no interrupt
// handler; different requests resolve on several threads at once.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "api/convert.h"
#include "api/record.h"
#include "capture/live_record.h"
#include "proctape/proctape.h"
#include "proto/convert.h"
#include "tests/unit/fake_host.h"

namespace proctape {
namespace {

using test::FakeHost;

class ApiRecordTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "proctape-api-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // The typical host's fingerprint, as TakeFingerprint would have taken it.
  static v1::RootFingerprint TypicalFingerprint() {
    v1::RootFingerprint f;
    f.set_root_pid(test::kAppServer);
    f.set_root_start_ticks(test::kAppServerStart);
    f.set_root_comm("codex");
    f.set_exe_path("/bin/sleep");
    *f.mutable_exe_identity() = ToProto(test::kSleepExe);
    f.set_boot_id("5b1f0000-0000-4000-8000-000000000001\n");
    return f;
  }

  // ResolveRecorded on `host` with `token`, recorded to NAME per `when`.
  api::ResolveResult Run(FakeHost& host, const std::string& token, api::Record when,
                         const std::string& name = "r.ptape") {
    api::Request request;
    request.token = token;
    request.deadline_ms = 300;
    api::RecordPolicy policy{when, dir_ + "/" + name, false};
    api::Error error;
    std::unique_ptr<OutputFile> output = api::detail::OpenRecording(policy, &error);
    EXPECT_TRUE(error.ok()) << error.message;
    const v1::RootFingerprint fingerprint = TypicalFingerprint();
    Request core = api::detail::ToCore(request);
    ApplyFingerprint(fingerprint, &core);
    v1::Header header;
    FillHeader(ScanOptions{}, "/proc", {"api_record_test"}, &header);
    FrameSource frames;
    frames.pid_ns = [](std::int64_t) { return Identity{ENOENT, 0, 0}; };
    return api::detail::ResolveRecorded(host, core, fingerprint, when, std::move(output), frames,
                                        header);
  }

  std::vector<std::string> Entries() const {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(dir_)) {
      out.push_back(e.path().filename().string());
    }
    return out;
  }

  std::string dir_;
};

TEST_F(ApiRecordTest, OnFailureLeavesNothingWhenResolved) {
  FakeHost host;
  api::ResolveResult r = Run(host, test::kToken, api::Record::kOnFailure);
  ASSERT_TRUE(r.ok()) << r.error.message;
  ASSERT_TRUE(r.ran);
  EXPECT_EQ(r.verdict.status, api::Status::kResolved);
  // In the fingerprint's boot, which CheckLiveness checks against the host's.
  EXPECT_EQ(r.verdict.identity(), (api::ProcessIdentity{test::kSleep, test::kSleepStart,
                                                        TypicalFingerprint().boot_id()}));
  EXPECT_EQ(r.recording, "");
  EXPECT_TRUE(Entries().empty()) << "the temporary is removed: " << Entries().front();
}

TEST_F(ApiRecordTest, OnFailureLeavesARecordingThatReplaysToItsVerdict) {
  FakeHost host;
  api::ResolveResult r = Run(host, "not-the-token", api::Record::kOnFailure);
  ASSERT_TRUE(r.ok()) << r.error.message;
  EXPECT_EQ(r.verdict.status, api::Status::kTokenMismatch);
  ASSERT_EQ(r.recording, dir_ + "/r.ptape");
  EXPECT_EQ(Entries(), std::vector<std::string>{"r.ptape"});
  api::FileSummary file = api::ReadFile(r.recording);
  ASSERT_TRUE(file.ok()) << file.error.message;
  EXPECT_EQ(file.frames, 1u) << "one frame, taken just after the verdict";
  ASSERT_EQ(file.checks.size(), 1u);
  EXPECT_EQ(file.checks[0].verdict.status, api::Status::kTokenMismatch);
  EXPECT_EQ(file.checks[0].observations, file.observations);
  EXPECT_GT(file.observations, 0u);
  api::ReplayReport replay = api::Replay(r.recording);
  ASSERT_TRUE(replay.ok()) << replay.error.message;
  ASSERT_EQ(replay.checks.size(), 1u);
  EXPECT_EQ(replay.worst, api::ReplayOutcome::kReproduced) << replay.checks[0].description;
  EXPECT_TRUE(replay.checks[0].has_replayed);
  EXPECT_EQ(replay.checks[0].replayed.status, api::Status::kTokenMismatch);
}

TEST_F(ApiRecordTest, AlwaysRecordsAResolvedVerdictWithFramesBeforeAndAfter) {
  FakeHost host;
  api::ResolveResult r = Run(host, test::kToken, api::Record::kAlways);
  ASSERT_TRUE(r.ok()) << r.error.message;
  EXPECT_EQ(r.verdict.status, api::Status::kResolved);
  ASSERT_EQ(r.recording, dir_ + "/r.ptape");
  api::FileSummary file = api::ReadFile(r.recording);
  ASSERT_TRUE(file.ok()) << file.error.message;
  EXPECT_EQ(file.frames, 2u);
  ASSERT_EQ(file.checks.size(), 1u);
  EXPECT_EQ(file.checks[0].verdict.pid, test::kSleep);
  EXPECT_EQ(api::Replay(r.recording).worst, api::ReplayOutcome::kReproduced);
}

// The library's Replay and ReadFile show a recording as `proctape replay`
// does: the token a TOKEN_MISMATCH quotes (its kept entry beside another
// token's) is '*' of its length in every verdict and description.
TEST_F(ApiRecordTest, ReplayAndReadFileNeverHoldTheRecordingsToken) {
  FakeHost host;
  std::vector<std::string> env = test::SleepEnviron(test::kToken);
  env.push_back("PROCTAPE_TOKEN=" + test::kOldToken);
  host.AddProcess(test::kSleep, test::kSandboxShell, test::kSleepStart, "sleep",
                  {"/bin/sleep", "120"}, env, test::kSleepExe);
  api::ResolveResult r = Run(host, test::kToken, api::Record::kAlways);
  ASSERT_TRUE(r.ok()) << r.error.message;
  ASSERT_EQ(r.verdict.status, api::Status::kTokenMismatch);
  ASSERT_NE(r.verdict.evidence.find(test::kToken), std::string::npos) << "the caller's own";
  const std::string stars(test::kToken.size(), '*');
  api::ReplayReport replay = api::Replay(r.recording);
  ASSERT_TRUE(replay.ok()) << replay.error.message;
  ASSERT_EQ(replay.checks.size(), 1u);
  const api::ReplayedCheck& check = replay.checks[0];
  EXPECT_EQ(check.outcome, api::ReplayOutcome::kReproduced) << check.description;
  ASSERT_TRUE(check.has_replayed);
  for (const std::string& text :
       {check.recorded.evidence, check.replayed.evidence, check.recorded.detail,
        check.replayed.detail, check.description}) {
    EXPECT_EQ(text.find(test::kToken), std::string::npos) << text;
  }
  EXPECT_NE(check.recorded.evidence.find("PROCTAPE_TOKEN=" + stars), std::string::npos);
  api::FileSummary file = api::ReadFile(r.recording);
  ASSERT_EQ(file.checks.size(), 1u);
  EXPECT_EQ(file.checks[0].verdict.evidence.find(test::kToken), std::string::npos);
  EXPECT_NE(file.checks[0].verdict.evidence.find("PROCTAPE_TOKEN=" + stars), std::string::npos);
}

TEST_F(ApiRecordTest, NeverRecordsNothingWhateverTheVerdict) {
  FakeHost host;
  api::ResolveResult r = Run(host, "not-the-token", api::Record::kNever);
  EXPECT_EQ(r.verdict.status, api::Status::kTokenMismatch);
  EXPECT_EQ(r.recording, "");
  EXPECT_TRUE(Entries().empty());
}

TEST_F(ApiRecordTest, AnExistingRecordingIsRefusedBeforeAnyWork) {
  { std::ofstream(dir_ + "/r.ptape") << "keep me"; }
  api::Fingerprint fingerprint = api::detail::FromProto(TypicalFingerprint());
  api::Request request;
  request.token = test::kToken;
  api::LiveOptions options;
  options.proc_root = dir_ + "/no-such-proc";  // opened after the output: never reached
  api::ResolveResult r = api::Resolve(request, fingerprint,
                                      {api::Record::kOnFailure, dir_ + "/r.ptape", false}, options);
  EXPECT_EQ(r.error.code, api::ErrorCode::kRecordRefused) << r.error.message;
  EXPECT_FALSE(r.ran);
  std::ifstream in(dir_ + "/r.ptape");
  std::string kept((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(kept, "keep me");
}

// A program that uses the library keeps its own signal dispositions: the
// recording's temporary is not registered with fs/interrupt.h (whose
// first registration installs a handler for SIGINT, SIGTERM and SIGHUP).
TEST_F(ApiRecordTest, ARecordingInstallsNoSignalHandler) {
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::signal(sig, SIG_DFL);
    FakeHost host;
    api::ResolveResult r = Run(host, "not-the-token", api::Record::kOnFailure, "child.ptape");
    int bad = r.recording.empty() ? 2 : 0;
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction now {};
      ::sigaction(sig, nullptr, &now);
      if (now.sa_handler != SIG_DFL) bad = 1;
    }
    ::_exit(bad);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: a handler was installed; 2: nothing was recorded";
}

// One Evidence per call, no global state: different requests on several
// threads at once give each its own verdict and its own file.
TEST_F(ApiRecordTest, DifferentRequestsResolveOnSeveralThreadsAtOnce) {
  constexpr int kThreads = 8;
  std::vector<api::ResolveResult> results(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([this, i, &results] {
      FakeHost host;
      host.logging = false;
      const bool good = i % 2 == 0;
      results[static_cast<std::size_t>(i)] =
          Run(host, good ? test::kToken : "wrong-" + std::to_string(i), api::Record::kOnFailure,
              std::string("thread").append(std::to_string(i)).append(".ptape"));
    });
  }
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < kThreads; ++i) {
    const api::ResolveResult& r = results[static_cast<std::size_t>(i)];
    ASSERT_TRUE(r.ok()) << i << ": " << r.error.message;
    if (i % 2 == 0) {
      EXPECT_EQ(r.verdict.status, api::Status::kResolved) << i;
      EXPECT_EQ(r.recording, "") << i;
    } else {
      EXPECT_EQ(r.verdict.status, api::Status::kTokenMismatch) << i;
      EXPECT_EQ(api::Replay(r.recording).worst, api::ReplayOutcome::kReproduced) << i;
    }
  }
  EXPECT_EQ(Entries().size(), static_cast<std::size_t>(kThreads / 2));
}

}  // namespace
}  // namespace proctape
