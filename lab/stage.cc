// SPDX-License-Identifier: Apache-2.0
#include "lab/stage.h"

#include <random>

namespace proctape::lab {
namespace {

using VStatus = v1::Verdict;
using LStatus = v1::LivenessVerdict;

std::string StatusText(const v1::Resolution& r) {
  if (r.has_verdict()) {
    std::string s = VStatus::Status_Name(r.verdict().status());
    if (r.verdict().status() == VStatus::RESOLVED) s += " pid " + std::to_string(r.verdict().pid());
    return s;
  }
  const v1::LivenessVerdict& v = r.liveness_verdict();
  std::string s = LStatus::Status_Name(v.status());
  if (v.status() == LStatus::ERROR) s += " " + VStatus::Status_Name(v.reason());
  return s;
}

}  // namespace

std::string RandomHex(std::size_t bytes) {
  std::random_device rd;
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < bytes; ++i) {
    unsigned v = rd() & 0xff;
    out += kHex[v >> 4];
    out += kHex[v & 0xf];
  }
  return out;
}

// Check k is a resolve with `status` (and, when RESOLVED, `pid`).
std::string ExpectResolve(const std::vector<v1::Resolution>& rs, std::size_t k,
                          VStatus::Status status, std::int64_t pid) {
  if (k >= rs.size() || !rs[k].has_verdict()) return "check " + std::to_string(k) + " is missing";
  const v1::Verdict& v = rs[k].verdict();
  if (v.status() == status && (status != VStatus::RESOLVED || v.pid() == pid)) return "";
  std::string want = VStatus::Status_Name(status);
  if (status == VStatus::RESOLVED) want += " pid " + std::to_string(pid);
  return "check " + std::to_string(k) + " wanted " + want + ", got " + StatusText(rs[k]);
}

std::string ExpectLiveness(const std::vector<v1::Resolution>& rs, std::size_t k,
                           LStatus::Status status, VStatus::Status reason) {
  if (k >= rs.size() || !rs[k].has_liveness_verdict())
    return "check " + std::to_string(k) + " is missing";
  const v1::LivenessVerdict& v = rs[k].liveness_verdict();
  if (v.status() == status && (status != LStatus::ERROR || v.reason() == reason)) return "";
  std::string want = LStatus::Status_Name(status);
  if (status == LStatus::ERROR) want += " " + VStatus::Status_Name(reason);
  return "check " + std::to_string(k) + " wanted " + want + ", got " + StatusText(rs[k]);
}

// Check k is a resolve that ended at the deadline without a match: NO_MATCH,
// whether the deadline passed between attempts or during one after others
// had completed (docs/resolver.md); DEADLINE alone would mean no attempt
// completed in the whole interval, which is not what a scenario stages.
std::string ExpectDeadline(const std::vector<v1::Resolution>& rs, std::size_t k) {
  return ExpectResolve(rs, k, VStatus::NO_MATCH);
}

std::string Both(const std::string& a, const std::string& b) { return a.empty() ? b : a; }

}  // namespace proctape::lab
