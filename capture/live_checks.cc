// SPDX-License-Identifier: Apache-2.0
#include "capture/live_checks.h"

#include <cctype>
#include <utility>

#include "core/redact.h"
#include "proto/convert.h"

namespace proctape {

std::string TokenEntry(const Request& request) {
  std::string entry = request.token_var;
  entry.append("=").append(request.token);
  return entry;
}

LiveCheck ResolveCheck(Request* request, std::string exe_path, bool fingerprint_root,
                       Verdict* verdict, const v1::RootFingerprint* taken_before) {
  std::optional<v1::RootFingerprint> before_turn;
  if (taken_before != nullptr) before_turn = *taken_before;
  return [=, exe_path = std::move(exe_path)](Evidence& evidence, v1::Resolution* r) {
    *verdict = Verdict{};
    bool fingerprinted = true;
    if (fingerprint_root) {
      Verdict fingerprint = FingerprintRoot(evidence, request->root_pid);
      fingerprinted = fingerprint.resolved();
      if (fingerprinted)
        request->root_start_ticks = fingerprint.start_ticks;
      else
        *verdict = fingerprint;
    }
    if (fingerprinted) *verdict = Resolve(evidence, *request);
    // Late only where a start tick was read late and used: not when the
    // fingerprint itself failed, nor for a request refused before any read.
    verdict->late_fingerprint =
        fingerprint_root && fingerprinted && verdict->status != Status::kInvalidRequest;
    // An environ excerpt in the verdict is a secret like any other environ
    // bytes: redacted as the tape is.
    if (verdict->file == static_cast<int>(ProcFile::kEnviron)) {
      verdict->evidence = RedactEnviron(verdict->evidence, {TokenEntry(*request)});
    }
    *r->mutable_resolve() = ToProto(*request);
    r->mutable_resolve()->set_exe_path(exe_path);
    r->mutable_resolve()->set_fingerprint_on_tape(fingerprint_root);
    if (before_turn) *r->mutable_resolve()->mutable_fingerprint() = *before_turn;
    *r->mutable_verdict() = ToProto(*verdict);
  };
}

std::string ParseBootId(std::string_view given, Failure* failure) {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!given.empty() && blank(given.front())) given.remove_prefix(1);
  while (!given.empty() && blank(given.back())) given.remove_suffix(1);
  std::string out;
  bool shaped = given.size() == 36;
  for (std::size_t i = 0; shaped && i < given.size(); ++i) {
    const char c = given[i];
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? c != '-' : !std::isxdigit(static_cast<unsigned char>(c))) shaped = false;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  if (!shaped) {
    *failure = Failure(FailureKind::kUsage,
                       "not a boot id: 36 characters, 8-4-4-4-12 hexadecimal digits, as "
                       "/proc/sys/kernel/random/boot_id holds");
    return "";
  }
  return out + "\n";
}

LiveCheck LivenessCheck(const BootIdentity& identity, LivenessVerdict* verdict) {
  return [=](Evidence& evidence, v1::Resolution* r) {
    r->mutable_liveness()->set_pid(identity.pid);
    r->mutable_liveness()->set_start_ticks(identity.start_ticks);
    r->mutable_liveness()->set_boot_id(identity.boot_id);
    *verdict = CheckLiveness(evidence, identity.pid, identity.start_ticks);
    verdict->boot_unchecked = identity.boot_id.empty();
    *r->mutable_liveness_verdict() = ToProto(*verdict);
  };
}

}  // namespace proctape
