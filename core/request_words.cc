// SPDX-License-Identifier: Apache-2.0
// The request's words, checked before anything is read (core/resolver.h):
// the one check resolve, the recorder and the CLI share.
#include <string>
#include <vector>

#include "core/proc_parse.h"
#include "core/resolver.h"
#include "core/resolver_internal.h"

namespace proctape {

RequestWordsProblem CheckRequestWords(const std::string* token, const std::string* token_var,
                                      const std::vector<std::string>* argv,
                                      std::uint64_t cmdline_bytes) {
  if (token != nullptr && token->empty()) return {"token", "the invocation token is empty"};
  if (token_var != nullptr && (token_var->empty() || token_var->find('=') != std::string::npos ||
                               token_var->find('\0') != std::string::npos)) {
    return {"token_var", "the token variable name is empty or holds '=' or NUL"};
  }
  if (argv != nullptr) {
    if (argv->empty()) return {"argv", "the expected argv is empty"};
    for (const std::string& arg : *argv) {
      // Its bytes would be those of two elements of a real argv.
      if (arg.find('\0') != std::string::npos)
        return {"argv", "an expected argv element holds NUL"};
    }
    if (JoinNul(*argv).size() > cmdline_bytes) {
      return {"argv", "the expected argv is longer than the cmdline bound"};
    }
  }
  return {};
}

namespace resolver {

std::optional<Verdict> ValidateRequest(const Request& req) {
  const Bounds& b = req.bounds;
  auto bad = [&](const std::string& why) {
    return std::optional<Verdict>(Make(Status::kInvalidRequest, 0, why));
  };
  if (req.root_pid < 2 || static_cast<std::uint64_t>(req.root_pid) > kMaxPid) {
    return bad("root pid " + std::to_string(req.root_pid) + " is outside 2..2147483647");
  }
  const RequestWordsProblem words =
      CheckRequestWords(&req.token, &req.token_var, &req.argv, b.cmdline_bytes);
  if (!words.field.empty()) return bad(words.why);
  if (!req.exe.ok()) return bad("the expected executable has no attested identity");
  // A retry interval of 0 would retry without the clock advancing: under a
  // virtual clock (tests, replay) the loop would never end. The limits of
  // core/resolver.h bound the attempts whatever a file says.
  if (b.retry_ns < kMinRetryNs) {
    return bad("the retry interval " + std::to_string(b.retry_ns) + " ns is under " +
               std::to_string(kMinRetryNs) + " ns");
  }
  if (b.deadline_ns < 0) return bad("the deadline is negative");
  if (b.deadline_ns > kMaxDeadlineNs) {
    return bad("the deadline " + std::to_string(b.deadline_ns) + " ns is over " +
               std::to_string(kMaxDeadlineNs) + " ns (an hour)");
  }
  return std::nullopt;
}

}  // namespace resolver
}  // namespace proctape
