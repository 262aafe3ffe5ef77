// SPDX-License-Identifier: Apache-2.0
// The resolution of `docs/resolver.md`: attempts and retries under one deadline
// and byte budget, inspection of the root's descendants (step 5), confirmation
// of the single match (steps 6-7). The scan and the graph (steps 2-4) are in
// resolver_scan.cc, liveness in liveness.cc, the root's fingerprint in
// fingerprint.cc.
#include "core/resolver.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/mutant.h"
#include "core/proc_parse.h"
#include "core/resolver_internal.h"

namespace proctape {
namespace {

using resolver::AddSaturating;
using resolver::Diagnosis;
using resolver::FileVerdict;
using resolver::Make;
using resolver::Meter;
using resolver::NearMisses;
using resolver::Node;
using resolver::Snapshot;
using resolver::Vanished;
using resolver::Where;

// `docs/resolver.md`, "The eight steps", step 8: gone, or state Z, X or x, is
// dead (the mutant that drops the rule takes Z for alive: core/mutant.h).
bool Dead(char state) {
  if (mutant::Drops(mutant::kZombieAlive)) return state == 'X' || state == 'x';
  return resolver::DeadState(state);
}

class Resolution {
 public:
  Resolution(Evidence& evidence, const Request& request)
      : ev_(evidence),
        req_(request),
        b_(request.bounds),
        meter_(evidence, request.bounds),
        expected_cmdline_(JoinNul(request.argv)) {}

  Verdict Run() {
    if (auto invalid = resolver::ValidateRequest(req_)) return *invalid;
    std::int64_t start = ev_.NowNs();
    meter_.Start(start);
    for (;;) {
      // Never reached with a clock that advances by the retry interval (see
      // kMaxAttempts); a clock that stands still ends here.
      if (attempts_ == kMaxAttempts) return Finish(NoMatch());
      ++attempts_;
      std::int64_t attempt_start = attempts_ == 1 ? start : ev_.NowNs();
      retry_ = Diagnosis{};
      near_.Clear();
      confirming_ = nullptr;
      if (std::optional<Verdict> final_verdict = Attempt()) {
        Identify(&*final_verdict);
        if (final_verdict->status == Status::kDeadline) {
          return Finish(DeadlineDuringAttempt(*final_verdict));
        }
        return Finish(std::move(*final_verdict));
      }
      retry_.near_misses = near_;
      completed_ = retry_;
      std::int64_t next = AddSaturating(attempt_start, b_.retry_ns);
      if (next > meter_.deadline()) return Finish(NoMatch());
      ev_.SleepUntil(next);
    }
  }

 private:
  // A verdict names its subject by identity (docs/resolver.md, "The verdict
  // names processes by their identity"): a subject whose stat this
  // attempt's scan read gets that start tick, unless the verdict already
  // holds the one observed since (ROOT_RESTARTED, PID_REUSED).
  void Identify(Verdict* v) const {
    if (v->subject_pid == 0 || v->subject_start_ticks) return;
    if (const Node* n = snap_.Find(v->subject_pid)) v->subject_start_ticks = n->start_ticks;
  }

  Verdict Finish(Verdict v) const {
    v.attempts = attempts_;
    v.bytes_read = meter_.bytes_read();
    return v;
  }

  // The deadline passed during an attempt (docs/resolver.md, "Retries,
  // deadline and budget"): while the only match was being confirmed, what
  // was found is said; after N attempts completed without a match, the
  // last completed attempt's diagnosis is kept; in the first attempt,
  // DEADLINE alone.
  Verdict DeadlineDuringAttempt(const Verdict& deadline) {
    if (confirming_ != nullptr) {
      Miss(*confirming_, confirm_stage_);
      return resolver::DeadlineWhileConfirming(*confirming_, confirm_stage_, near_, attempts_,
                                               completed_.has_value(), deadline);
    }
    if (completed_) {
      return resolver::DeadlineAfterCompletedAttempts(*completed_, attempts_, deadline);
    }
    return deadline;
  }

  Verdict NoMatch() const { return resolver::NoMatchVerdict(retry_, attempts_); }

  // A near miss whose argv differs: its cmdline's first bytes are kept (and
  // copied only when it is listed).
  void MissArgv(const Node& node, std::string_view cmdline, bool cut) {
    if (!near_.Keeps(NearMiss::Rule::kArgv, node.pid)) return near_.Omit();
    NearMiss m{node.pid, node.start_ticks, NearMiss::Rule::kArgv, {}, false, 0};
    m.argv = std::string(cmdline.substr(0, kNearMissArgvBytes));
    m.argv_cut = cut || cmdline.size() > kNearMissArgvBytes;
    near_.Add(std::move(m));
  }
  void Miss(const Node& node, NearMiss::Rule rule, std::uint32_t token_entries = 0) {
    near_.Add(NearMiss{node.pid, node.start_ticks, rule, {}, false, token_entries});
  }

  // `docs/resolver.md`, "The eight steps", step 5: argv exact, exactly one
  // environment entry carrying the token. Returns a final verdict, or sets
  // *match, or says in *vanished why the process vanished during inspection
  // (empty: it did not).
  std::optional<Verdict> Inspect(const Node& node, bool* match, std::string* vanished) {
    const std::int64_t pid = node.pid;
    *match = false;
    vanished->clear();
    ReadResult cmd;
    if (auto v = meter_.ReadRequired(pid, ProcFile::kCmdline, b_.cmdline_bytes, &cmd)) return v;
    if (!cmd.ok()) return *vanished = "vanished during inspection", std::nullopt;
    // A cmdline longer than the bound cannot equal the expected argv, which
    // ValidateRequest proved fits within it: not a match, and nothing more is read.
    if (cmd.truncated) return MissArgv(node, cmd.data, true), std::nullopt;
    // "argv exactly equal to ...", "without trimming or text normalization":
    // the kernel writes argv as NUL-terminated strings, so the cmdline must
    // be the expected argv joined with NUL and NUL-terminated, byte for byte
    // (the same bytes without the final NUL are not that argv).
    if (cmd.data != expected_cmdline_) return MissArgv(node, cmd.data, false), std::nullopt;
    ReadResult env;
    if (auto v = meter_.ReadRequired(pid, ProcFile::kEnviron, b_.environ_bytes, &env)) return v;
    if (!env.ok()) return *vanished = "vanished during inspection", std::nullopt;
    if (env.truncated) {
      return FileVerdict(Status::kFileBound, pid, ProcFile::kEnviron, env,
                         Where(pid, ProcFile::kEnviron) + " is larger than " +
                             std::to_string(b_.environ_bytes) +
                             " bytes: the token cannot be checked");
    }
    if (env.data.empty()) {
      if (auto v = ExitedWithEmptyEnviron(node, vanished)) return v;
      if (!vanished->empty()) return std::nullopt;
    }
    std::size_t with_key = 0;
    std::size_t carrying = 0;
    for (std::string_view entry : SplitNul(env.data)) {
      std::size_t eq = entry.find('=');
      if (eq == std::string_view::npos || entry.substr(0, eq) != req_.token_var) continue;
      ++with_key;
      const std::string_view value = entry.substr(eq + 1);
      if (mutant::Drops(mutant::kTokenSubstring) ? value.find(req_.token) != std::string_view::npos
                                                 : value == req_.token) {
        ++carrying;
      }
    }
    if (with_key == 1 && carrying == 1) {
      *match = true;
    } else if (carrying > 0) {
      return FileVerdict(Status::kTokenMismatch, pid, ProcFile::kEnviron, env,
                         Where(pid, ProcFile::kEnviron) + " holds " + std::to_string(with_key) +
                             " entries named " + req_.token_var + ", not exactly one");
    } else {
      Miss(node, NearMiss::Rule::kToken, static_cast<std::uint32_t>(with_key));
      if (retry_.pid == 0) {
        retry_.pid = pid;
        retry_.start_ticks = node.start_ticks;
        retry_.stale_token = true;
        retry_.detail = "pid " + std::to_string(pid) + " matches argv but carries another token";
      }
    }
    return std::nullopt;
  }

  // `docs/resolver.md`, "Retries, deadline and budget": an owned process
  // vanishing during inspection retries from a fresh snapshot. An environ that
  // reads empty after an exact cmdline may be the process exiting between the
  // two reads (a process whose memory is gone shows an empty environ; a
  // zombie's reads empty for root), not a process without a token: stat is
  // re-read to tell. Gone, dead (Z, X, x) or another start time (its pid
  // reused) is a vanished process, retried; a live one really carries no token.
  // Unreadable or malformed fails closed.
  std::optional<Verdict> ExitedWithEmptyEnviron(const Node& node, std::string* vanished) {
    ReadResult r;
    if (auto v = meter_.ReadRequired(node.pid, ProcFile::kStat, b_.stat_bytes, &r)) return v;
    const std::string empty = "vanished during inspection (environ empty, then stat ";
    if (!r.ok()) {
      *vanished = empty + "errno " + std::to_string(r.err) + ")";
      return std::nullopt;
    }
    StatView f;
    if (auto v = meter_.ParseRequiredStat(node.pid, r, &f)) return v;
    if (Dead(f.state)) {
      *vanished = empty + "state " + f.state + ")";
    } else if (f.start_ticks != node.start_ticks && !mutant::Drops(mutant::kNoStartTickOnReread)) {
      *vanished = empty + "start tick " + std::to_string(f.start_ticks) + ", not " +
                  std::to_string(node.start_ticks) + ")";
    }
    return std::nullopt;
  }

  std::optional<Verdict> Attempt() {
    Snapshot& snap = snap_;
    if (auto v = Scan(meter_, &snap)) return v;
    std::vector<bool> under_root;
    if (auto v = Graph(snap, req_.root_pid, b_.max_depth, &under_root)) return v;

    const Node* root = snap.Find(req_.root_pid);
    if (root == nullptr) {
      return Make(Status::kMissingRoot, req_.root_pid,
                  "root pid " + std::to_string(req_.root_pid) + " is not in the snapshot");
    }
    if (root->start_ticks != req_.root_start_ticks) {
      Verdict v = Make(Status::kRootRestarted, root->pid,
                       "root pid " + std::to_string(root->pid) + " started at tick " +
                           std::to_string(root->start_ticks) + ", not the expected " +
                           std::to_string(req_.root_start_ticks));
      v.subject_start_ticks = root->start_ticks;
      v.expected_ticks = req_.root_start_ticks;
      return v;
    }
    // `docs/resolver.md`, "One attempt", step 2: the resolution stops on a
    // missing root. A dead one (a zombie not yet reaped) is missing: its
    // children are reparented away, and waiting out the deadline would find
    // nothing.
    if (Dead(root->state)) {
      Verdict v = Make(Status::kMissingRoot, root->pid,
                       "root pid " + std::to_string(root->pid) + " is dead (state " +
                           std::string(1, root->state) + "): nothing it started is beneath it");
      v.subject_start_ticks = root->start_ticks;
      return v;
    }

    std::vector<const Node*> matches;
    for (std::size_t i = 0; i < snap.nodes.size(); ++i) {
      if (!under_root[i]) continue;
      bool match = false;
      std::string vanished;
      if (auto v = Inspect(snap.nodes[i], &match, &vanished)) return v;
      if (!vanished.empty()) {
        Miss(snap.nodes[i], NearMiss::Rule::kVanished);
        return Retry(snap.nodes[i].pid, vanished);
      }
      if (match) matches.push_back(&snap.nodes[i]);
    }
    if (matches.empty()) {
      if (retry_.pid == 0) retry_.detail = "no process beneath the root matches";
      return std::nullopt;
    }
    if (matches.size() > 1 && !mutant::Drops(mutant::kFirstOfSeveral)) {
      Verdict v = Make(Status::kMultipleMatches, matches[0]->pid,
                       std::to_string(matches.size()) + " processes beneath the root match");
      for (const Node* m : matches) v.matches.push_back(m->pid);
      return v;
    }
    return Confirm(snap, *matches[0]);
  }

  std::optional<Verdict> Retry(std::int64_t pid, const std::string& why) {
    retry_ = Diagnosis{};
    retry_.pid = pid;
    if (const Node* n = snap_.Find(pid)) retry_.start_ticks = n->start_ticks;
    retry_.detail = "pid " + std::to_string(pid) + " " + why;
    return std::nullopt;
  }

  // `docs/resolver.md`, "The eight steps", steps 6-8: executable identity, then
  // re-read stat of the candidate and every ancestor through the root. Step 7:
  // stat is re-read for the candidate and every ancestor up to the root, and
  // every pid, parent pid and start time must be those of the snapshot — the
  // root's parent pid included (a reparented root is ANCESTRY_CHANGED).
  std::optional<Verdict> Confirm(const Snapshot& snap, const Node& match) {
    confirming_ = &match;
    confirm_stage_ = NearMiss::Rule::kExecutable;
    Identity exe = ev_.ExeIdentity(match.pid);
    if (auto v = meter_.CheckDeadline()) return v;
    if (!exe.ok()) {
      if (Vanished(exe.err)) {
        Miss(match, NearMiss::Rule::kVanished);
        return Retry(match.pid, "vanished before its executable was read");
      }
      Verdict v = Make(Status::kUnreadable, match.pid,
                       Where(match.pid, ProcFile::kExe) + " is unreadable (errno " +
                           std::to_string(exe.err) + ")");
      v.file = static_cast<int>(ProcFile::kExe);
      v.err = exe.err;
      return v;
    }
    if (!(exe == req_.exe) && !mutant::Drops(mutant::kNoExeCheck)) {
      Verdict v = Make(Status::kExeMismatch, match.pid,
                       Where(match.pid, ProcFile::kExe) + " is " + std::to_string(exe.dev) + ":" +
                           std::to_string(exe.ino) + ", not the attested " +
                           std::to_string(req_.exe.dev) + ":" + std::to_string(req_.exe.ino));
      v.file = static_cast<int>(ProcFile::kExe);
      return v;
    }
    confirm_stage_ = NearMiss::Rule::kAncestry;
    for (const Node* n = &match;; n = snap.Find(n->ppid)) {
      bool is_root = n->pid == req_.root_pid;
      ReadResult r;
      if (auto v = meter_.ReadRequired(n->pid, ProcFile::kStat, b_.stat_bytes, &r)) return v;
      if (!r.ok()) {
        if (is_root) {
          return Make(Status::kMissingRoot, n->pid,
                      "root pid " + std::to_string(n->pid) + " vanished during inspection");
        }
        Miss(match, n == &match ? NearMiss::Rule::kVanished : NearMiss::Rule::kAncestry);
        return Retry(n->pid, "vanished before its ancestry was re-read");
      }
      StatView f;
      if (auto v = meter_.ParseRequiredStat(n->pid, r, &f)) return v;
      if (f.start_ticks != n->start_ticks && !mutant::Drops(mutant::kNoStartTickOnReread)) {
        Verdict v = FileVerdict(
            is_root ? Status::kRootRestarted : Status::kPidReused, n->pid, ProcFile::kStat, r,
            "pid " + std::to_string(n->pid) + " now started at tick " +
                std::to_string(f.start_ticks) + ", not " + std::to_string(n->start_ticks));
        v.subject_start_ticks = f.start_ticks;
        v.expected_ticks = n->start_ticks;
        return v;
      }
      if (f.ppid != n->ppid) {
        return FileVerdict(Status::kAncestryChanged, n->pid, ProcFile::kStat, r,
                           "pid " + std::to_string(n->pid) + " now has parent " +
                               std::to_string(f.ppid) + ", not " + std::to_string(n->ppid));
      }
      if (n == &match && Dead(f.state)) {
        Miss(match, NearMiss::Rule::kVanished);
        return Retry(n->pid, std::string("is dead (state ") + f.state + ")");
      }
      if (is_root && Dead(f.state)) {
        Verdict v = FileVerdict(Status::kMissingRoot, n->pid, ProcFile::kStat, r,
                                "root pid " + std::to_string(n->pid) +
                                    " died during inspection "
                                    "(state " +
                                    std::string(1, f.state) + ")");
        v.subject_start_ticks = f.start_ticks;
        return v;
      }
      if (is_root || mutant::Drops(mutant::kNoAncestryReread)) break;
    }
    Verdict v = Make(Status::kResolved, match.pid,
                     "pid " + std::to_string(match.pid) + " started at tick " +
                         std::to_string(match.start_ticks));
    v.start_ticks = match.start_ticks;
    return v;
  }

  Evidence& ev_;
  const Request& req_;
  const Bounds& b_;
  Meter meter_;
  const std::string expected_cmdline_;  // the expected argv, NUL-terminated elements
  std::uint32_t attempts_ = 0;
  Diagnosis retry_;                     // why the current attempt found no match
  std::optional<Diagnosis> completed_;  // the last attempt that completed without a verdict
  NearMisses near_;                     // the current attempt's
  const Node* confirming_ = nullptr;    // the only match, while steps 6-7 confirm it
  NearMiss::Rule confirm_stage_ = NearMiss::Rule::kExecutable;  // the rule being checked
  Snapshot snap_;  // the current attempt's; reused so attempts do not reallocate it
};

}  // namespace

// PROCTAPE_RESOLVE_AS: the name a mutant is compiled under (core/mutant.h).
#ifndef PROCTAPE_RESOLVE_AS
#define PROCTAPE_RESOLVE_AS Resolve
#endif
Verdict PROCTAPE_RESOLVE_AS(Evidence& evidence, const Request& request) {
  return Resolution(evidence, request).Run();
}

}  // namespace proctape
