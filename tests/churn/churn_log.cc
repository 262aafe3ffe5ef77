// SPDX-License-Identifier: Apache-2.0
#include "tests/churn/churn_log.h"

#include <set>
#include <sstream>
#include <utility>

namespace proctape::churn {
namespace {

bool Unhex(const std::string& hex, std::string* out) {
  out->clear();
  if (hex == "=" || hex == "-") return true;
  if (hex.size() % 2 != 0) return false;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    int hi = nibble(hex[i]), lo = nibble(hex[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out->push_back(static_cast<char>(hi * 16 + lo));
  }
  return true;
}

bool ParseLine(const std::string& line, ChurnLog* log) {
  std::istringstream in(line);
  std::string tag;
  in >> tag;
  if (tag == "I") {
    std::string k1, k2, k3;
    in >> k1 >> log->pid_max >> k2 >> log->churner_host_pid >> k3 >> log->churner_start;
    return !in.fail() && k1 == "pid_max" && k2 == "host_pid" && k3 == "start";
  }
  if (tag == "P") {
    Created c;
    std::string kind, comm_hex, token, argv_hex;
    int reuse = 0, dup = 0;
    in >> c.seq >> kind >> reuse >> c.ns_pid >> c.host_pid >> c.start >> comm_hex >> token >>
        argv_hex >> dup >> c.fork_ns;
    if (in.fail() || kind.size() != 1 || !Unhex(comm_hex, &c.comm)) return false;
    c.kind = kind[0];
    c.reuse = reuse != 0;
    c.dup_token = dup != 0;
    c.token = token == "-" ? "" : token;
    auto old = log->created.find(c.seq);
    if (old != log->created.end()) c.reap_ns = old->second.reap_ns;  // R came first
    log->created[c.seq] = std::move(c);
    return true;
  }
  if (tag == "R") {
    std::uint32_t seq = 0;
    int status = 0;
    std::int64_t reap_ns = 0;
    in >> seq >> status >> reap_ns;
    if (in.fail()) return false;
    Created& c = log->created[seq];  // a child that never reported stays host pid 0
    c.seq = seq;
    c.reap_ns = reap_ns;
    return true;
  }
  if (tag == "F") {
    ++log->fork_failures;
    return true;
  }
  if (tag == "E") {
    std::string k1, k2, k3, k4;
    in >> k1 >> log->forks >> k2 >> log->reaped >> k3 >> log->reuse_ok >> k4 >> log->reuse_failed;
    log->ended = !in.fail();
    return log->ended;
  }
  return false;
}

}  // namespace

bool ParseLog(const std::string& text, std::size_t* offset, ChurnLog* log, std::string* error) {
  while (*offset < text.size()) {
    std::size_t nl = text.find('\n', *offset);
    if (nl == std::string::npos) break;
    std::string line = text.substr(*offset, nl - *offset);
    if (!ParseLine(line, log)) {
      *error = "churner log: cannot parse line \"" + line + "\"";
      return false;
    }
    *offset = nl + 1;
  }
  return true;
}

ReuseCounts CountReuse(const ChurnLog& log) {
  ReuseCounts r;
  std::set<pid_t> host, ns;
  std::set<std::pair<pid_t, std::uint64_t>> identities;
  for (const auto& [seq, c] : log.created) {  // in creation order
    if (c.host_pid <= 0) continue;
    if (!host.insert(c.host_pid).second) ++r.host_pids_reused;
    if (!ns.insert(c.ns_pid).second) ++r.ns_pids_reused;
    if (!identities.insert({c.host_pid, c.start}).second) ++r.identity_collisions;
  }
  return r;
}

const char* JudgementName(Judgement j) {
  switch (j) {
    case Judgement::kCorrect: return "correct";
    case Judgement::kFailClosed: return "fail-closed";
    case Judgement::kAmbiguous: return "ambiguous identity";
    case Judgement::kWrong: return "WRONG";
  }
  return "?";
}

namespace {

std::vector<const Created*> WithIdentity(const ChurnLog& log, pid_t pid, std::uint64_t start) {
  std::vector<const Created*> out;
  for (const auto& [seq, c] : log.created)
    if (c.host_pid == pid && c.start == start) out.push_back(&c);
  return out;
}

bool ReapedBefore(const Created& c, std::int64_t t) { return c.reap_ns >= 0 && c.reap_ns < t; }

}  // namespace

Judgement JudgeResolved(const ChurnLog& log, const std::string& token, pid_t pid,
                        std::uint64_t start, std::int64_t command_start_ns, std::string* why) {
  std::vector<const Created*> same = WithIdentity(log, pid, start);
  std::ostringstream o;
  o << "RESOLVED " << pid << "@" << start << " for token "
    << (token.empty() ? std::string("(never planted)") : token) << ": ";
  const Created* match = nullptr;
  for (const Created* c : same)
    if (!token.empty() && c->token == token) match = c;
  if (match == nullptr) {
    o << (same.empty() ? "the churner never created that (pid, start tick)"
                       : "the churner's process with that (pid, start tick) has another token");
    *why = o.str();
    return Judgement::kWrong;
  }
  if (match->dup_token) {
    o << "the process carries the token entry twice (the resolver's TOKEN_MISMATCH)";
    *why = o.str();
    return Judgement::kWrong;
  }
  if (ReapedBefore(*match, command_start_ns)) {
    o << "the process was reaped before the command started";
    *why = o.str();
    return Judgement::kWrong;
  }
  if (same.size() > 1) {
    o << same.size() << " processes the churner created share that (pid, start tick)";
    *why = o.str();
    return Judgement::kAmbiguous;
  }
  return Judgement::kCorrect;
}

Judgement JudgeAlive(const ChurnLog& log, pid_t pid, std::uint64_t start,
                     std::int64_t command_start_ns, std::string* why) {
  std::vector<const Created*> same = WithIdentity(log, pid, start);
  std::ostringstream o;
  o << "ALIVE " << pid << "@" << start << ": ";
  bool alive_at_start = false;
  for (const Created* c : same)
    if (!ReapedBefore(*c, command_start_ns)) alive_at_start = true;
  if (!alive_at_start) {
    o << (same.empty() ? "the churner never created that (pid, start tick)"
                       : "reaped before the command started");
    *why = o.str();
    return Judgement::kWrong;
  }
  if (same.size() > 1) {
    o << same.size() << " processes the churner created share that (pid, start tick)";
    *why = o.str();
    return Judgement::kAmbiguous;
  }
  return Judgement::kCorrect;
}

}  // namespace proctape::churn
