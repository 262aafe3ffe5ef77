// SPDX-License-Identifier: Apache-2.0
// What the live tests of `proctape capture` (capture_*live_test.cc) share: a
// command result told in full when an expectation fails, a child that has
// exec'd its argv, and a unique argument for a sleep.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/live/sandbox.h"

namespace proctape::live {

inline std::string Explain(const CommandResult& r) {
  std::string out =
      "exit " + std::to_string(r.exit_code) + " signal " + std::to_string(r.term_signal);
  if (r.timed_out) out.append(" (timed out)");
  if (!r.error.empty()) out.append(" error: ").append(r.error);
  out.append("\nstdout: ")
      .append(r.out.size() > 2000 ? "(" + std::to_string(r.out.size()) + " bytes)" : r.out);
  out.append("\nstderr: ").append(r.err);
  return out;
}

inline std::unique_ptr<live::Child> StartAndWait(const std::vector<std::string>& argv,
                                                 const std::string& cmdline) {
  std::string error;
  auto child = live::Child::Start(argv, &error);
  EXPECT_NE(child, nullptr) << error;
  if (child && !child->WaitForCmdline(cmdline, 5000)) {
    ADD_FAILURE() << argv[0] << " " << child->pid() << " did not exec within 5 s";
    return nullptr;
  }
  return child;
}

// A unique argument for a sleep, so its cmdline is ours alone.
inline std::string UniqueSeconds() {
  unsigned long r = std::stoul(live::RandomHex(4), nullptr, 16);
  return std::to_string(100000 + r % 900000) + "." + std::to_string(1000 + (r >> 20) % 9000);
}

}  // namespace proctape::live
