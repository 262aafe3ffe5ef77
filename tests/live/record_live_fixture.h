// SPDX-License-Identifier: Apache-2.0
// What the live tests of `proctape resolve --record` and `proctape liveness
// --record` (record_*live_test.cc) share: RecordLiveTest, a real PID-namespace
// sandbox (sandbox.h) whose environment holds a secret (kSecretVar) that no
// process of ours but the sandbox's has, and a directory for the recordings.
// record_live_test.cc instantiates every RecordLiveTest, in both sandboxes.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <memory>
#include <optional>
#include <string>

#include "tests/live/files.h"
#include "tests/live/sandbox.h"

namespace proctape::live {

inline constexpr char kSecretVar[] = "PROCTAPE_RECORD_TEST_SECRET";

class RecordLiveTest : public ::testing::TestWithParam<SandboxKind> {
 protected:
  void SetUp() override {
    std::string why = live::SandboxUnavailable(GetParam());
    if (!why.empty()) GTEST_SKIP() << why;
    ASSERT_FALSE(dir_.path().empty());
    // The secret is in the environment the sandbox tool is exec'd with (and so
    // in its shell's and the sleep's), and in no other process of ours: it is
    // unset again before proctape runs. (setenv does not change the test's own
    // /proc/self/environ, which is the block it was exec'd with.)
    secret_ = live::RandomHex(32);
    ASSERT_EQ(::setenv(kSecretVar, secret_.c_str(), 1), 0);
    std::string error;
    sandbox_ = Sandbox::Start(GetParam(), live::RandomHex(16), &error);
    ::unsetenv(kSecretVar);
    ASSERT_NE(sandbox_, nullptr) << error;
    std::optional<std::string> env = live::ReadProc(sandbox_->sleep_pid(), "environ");
    ASSERT_TRUE(env.has_value());
    ASSERT_NE(env->find(std::string(kSecretVar) + "=" + secret_), std::string::npos)
        << "the sandbox's sleep did not inherit the secret";
  }

  std::string Root() const { return std::to_string(sandbox_->app_server()); }
  std::string Pid() const { return std::to_string(sandbox_->sleep_pid()); }
  std::string Start() const { return std::to_string(sandbox_->sleep_start()); }
  std::string TokenEntry() const { return "PROCTAPE_TOKEN=" + sandbox_->token(); }

  TempDir dir_;
  std::string secret_;
  std::unique_ptr<Sandbox> sandbox_;
};

}  // namespace proctape::live
