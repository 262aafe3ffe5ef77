// SPDX-License-Identifier: Apache-2.0
// A test run once for each sandbox tool (TEST_P over SandboxKind), each time
// on a live sandbox of its own: started in SetUp with a random token
// (skipped where the tool is not installed), ended, by its pids, with the
// test (tests/live/sandbox.h). Instantiate it with
// ::testing::Values(SandboxKind::kUnshare, SandboxKind::kBwrap).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "tests/live/sandbox.h"

namespace proctape::live {

class LiveSandboxTest : public ::testing::TestWithParam<SandboxKind> {
 protected:
  // A derived SetUp calls this first, and returns when IsSkipped() or
  // HasFatalFailure().
  void SetUp() override {
    const std::string why = SandboxUnavailable(GetParam());
    if (!why.empty()) GTEST_SKIP() << why;
    std::string error;
    sandbox_ = Sandbox::Start(GetParam(), RandomHex(16), &error);
    ASSERT_NE(sandbox_, nullptr) << error;
  }
  // As the commands are given them: the root (the app-server), the sleep's
  // host pid and its start tick.
  std::string Root() const { return std::to_string(sandbox_->app_server()); }
  std::string Pid() const { return std::to_string(sandbox_->sleep_pid()); }
  std::string Start() const { return std::to_string(sandbox_->sleep_start()); }

  std::unique_ptr<Sandbox> sandbox_;
};

}  // namespace proctape::live
