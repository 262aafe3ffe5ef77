// Seed 000's resolution: attempts and retries under one deadline and byte
// budget, inspection of the root's descendants (step 5), confirmation of the
// single match (steps 6-7). The scan and the graph (steps 2-4) are in
// resolver_scan.cc, liveness in liveness.cc, the root's fingerprint in fingerprint.cc.
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
using resolver::FileVerdict;
using resolver::Make;
using resolver::Meter;
using resolver::Node;
using resolver::Snapshot;
using resolver::Vanished;
using resolver::Where;

// Seed 000, step 8: "A missing process or state Z, X, or x is dead" (the
// mutant that drops the rule takes Z for alive: core/mutant.h).
bool Dead(char state) {
  if (mutant::Drops(mutant::kZombieAlive)) return state == 'X' || state == 'x';
  return resolver::DeadState(state);
}

// Why an attempt ended without a final verdict; the last one explains NO_MATCH.
struct RetryReason {
  std::string detail;
  std::int64_t pid = 0;
  bool stale_token = false;  // an argv match carried another invocation's token
};

class Resolution {
 public:
  Resolution(Evidence& evidence, const Request& request)
      : ev_(evidence),
        req_(request),
        b_(request.bounds),
        meter_(evidence, request.bounds),
        expected_cmdline_(JoinNul(request.argv)) {}

  Verdict Run() {
    if (auto invalid = Validate()) return *invalid;
    std::int64_t start = ev_.NowNs();
    meter_.Start(start);
    for (;;) {
      // Never reached with a clock that advances by the retry interval (see
      // kMaxAttempts); a clock that stands still ends here.
      if (attempts_ == kMaxAttempts) return Finish(NoMatch());
      ++attempts_;
      std::int64_t attempt_start = attempts_ == 1 ? start : ev_.NowNs();
      retry_ = RetryReason{};
      if (std::optional<Verdict> final_verdict = Attempt()) {
        if (final_verdict->status == Status::kDeadline && completed_) {
          return Finish(DeadlineAfterCompletedAttempts(*final_verdict));
        }
        return Finish(std::move(*final_verdict));
      }
      completed_ = retry_;
      std::int64_t next = AddSaturating(attempt_start, b_.retry_ns);
      if (next > meter_.deadline()) return Finish(NoMatch());
      ev_.SleepUntil(next);
    }
  }

 private:
  std::optional<Verdict> Validate() const {
    auto bad = [&](const std::string& why) {
      Verdict v = Make(Status::kInvalidRequest, 0, why);
      return std::optional<Verdict>(v);
    };
    if (req_.root_pid < 2 || static_cast<std::uint64_t>(req_.root_pid) > kMaxPid) {
      return bad("root pid " + std::to_string(req_.root_pid) + " is outside 2..2147483647");
    }
    const RequestWordsProblem words =
        CheckRequestWords(&req_.token, &req_.token_var, &req_.argv, b_.cmdline_bytes);
    if (!words.field.empty()) return bad(words.why);
    if (!req_.exe.ok()) return bad("the expected executable has no attested identity");
    // A retry interval of 0 would retry without the clock advancing: under a
    // virtual clock (tests, replay) the loop would never end. The limits of
    // core/resolver.h bound the attempts whatever a file says.
    if (b_.retry_ns < kMinRetryNs) {
      return bad("the retry interval " + std::to_string(b_.retry_ns) + " ns is under " +
                 std::to_string(kMinRetryNs) + " ns");
    }
    if (b_.deadline_ns < 0) return bad("the deadline is negative");
    if (b_.deadline_ns > kMaxDeadlineNs) {
      return bad("the deadline " + std::to_string(b_.deadline_ns) + " ns is over " +
                 std::to_string(kMaxDeadlineNs) + " ns (an hour)");
    }
    return std::nullopt;
  }

  Verdict Finish(Verdict v) const {
    v.attempts = attempts_;
    v.bytes_read = meter_.bytes_read();
    return v;
  }

  // Seed 000: "Zero matches or an owned process disappearing during
  // inspection retries from a fresh snapshot every 100 ms for at most 5
  // seconds." The deadline passed during attempt N+1 after N attempts
  // completed without a match: the search was the retry loop, and the deadline ended
  // it as it ends it between attempts. The verdict keeps the diagnosis of
  // the last completed attempt (NO_MATCH, or TOKEN_MISMATCH for a match
  // carrying another token), its detail naming the deadline. DEADLINE alone
  // is for a deadline that passed before any attempt completed.
  Verdict DeadlineAfterCompletedAttempts(const Verdict& deadline) const {
    Status status = completed_->stale_token ? Status::kTokenMismatch : Status::kNoMatch;
    return Make(status, completed_->pid,
                "no match by the deadline after " + std::to_string(attempts_ - 1) +
                    " completed attempts: the deadline passed during attempt " +
                    std::to_string(attempts_) + " (DEADLINE: " + deadline.detail +
                    "); last completed attempt: " + completed_->detail);
  }

  Verdict NoMatch() const {
    Status status = retry_.stale_token ? Status::kTokenMismatch : Status::kNoMatch;
    return Make(status, retry_.pid,
                "no match by the deadline after " + std::to_string(attempts_) +
                    " attempts; last attempt: " + retry_.detail);
  }

  // Seed 000, step 5: argv exact, exactly one environment entry carrying the
  // token. Returns a final verdict, or sets *match, or says in *vanished why
  // the process vanished during inspection (empty: it did not).
  std::optional<Verdict> Inspect(const Node& node, bool* match, std::string* vanished) {
    const std::int64_t pid = node.pid;
    *match = false;
    vanished->clear();
    ReadResult cmd;
    if (auto v = meter_.ReadRequired(pid, ProcFile::kCmdline, b_.cmdline_bytes, &cmd)) return v;
    if (!cmd.ok()) return *vanished = "vanished during inspection", std::nullopt;
    // A cmdline longer than the bound cannot equal the expected argv, which
    // Validate() proved fits within it: not a match, and nothing more is read.
    if (cmd.truncated) return std::nullopt;
    // "argv exactly equal to ...", "without trimming or text normalization":
    // the kernel writes argv as NUL-terminated strings, so the cmdline must
    // be the expected argv joined with NUL and NUL-terminated, byte for byte
    // (the same bytes without the final NUL are not that argv).
    if (cmd.data != expected_cmdline_) return std::nullopt;
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
    } else if (retry_.pid == 0) {
      retry_.pid = pid;
      retry_.stale_token = true;
      retry_.detail = "pid " + std::to_string(pid) + " matches argv but carries another token";
    }
    return std::nullopt;
  }

  // Seed 000: "an owned process disappearing during inspection retries from
  // a fresh snapshot". An environ that reads empty after an exact cmdline may
  // be the process exiting between the two reads (a process whose memory is
  // gone shows an empty environ; a zombie's reads empty for root), not a
  // process without a token: stat is re-read to tell. Gone, dead (Z, X, x)
  // or another start time (its pid reused) is a vanished process, retried;
  // a live one really carries no token. Unreadable or malformed fails closed.
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
    } else if (f.start_ticks != node.start_ticks &&
               !mutant::Drops(mutant::kNoStartTickOnReread)) {
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
    // Seed 000, "Failure modes": the checker stops on a missing app-server
    // root. A dead one (a zombie not yet reaped) is missing: its children are
    // reparented away, and waiting out the deadline would find nothing.
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
      if (!vanished.empty()) return Retry(snap.nodes[i].pid, vanished);
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
    retry_ = RetryReason{};
    retry_.pid = pid;
    retry_.detail = "pid " + std::to_string(pid) + " " + why;
    return std::nullopt;
  }

  // Seed 000, steps 6-8: executable identity, then re-read stat of the
  // candidate and every ancestor through the root. Step 7: "Re-reads stat
  // for the candidate and every ancestor through the app-server root ...
  // Every PID, parent PID, and start time must match the snapshot" — the
  // root's parent pid included (a reparented root is ANCESTRY_CHANGED).
  std::optional<Verdict> Confirm(const Snapshot& snap, const Node& match) {
    Identity exe = ev_.ExeIdentity(match.pid);
    if (auto v = meter_.CheckDeadline()) return v;
    if (!exe.ok()) {
      if (Vanished(exe.err)) return Retry(match.pid, "vanished before its executable was read");
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
    for (const Node* n = &match;; n = snap.Find(n->ppid)) {
      bool is_root = n->pid == req_.root_pid;
      ReadResult r;
      if (auto v = meter_.ReadRequired(n->pid, ProcFile::kStat, b_.stat_bytes, &r)) return v;
      if (!r.ok()) {
        if (is_root) {
          return Make(Status::kMissingRoot, n->pid,
                      "root pid " + std::to_string(n->pid) + " vanished during inspection");
        }
        return Retry(n->pid, "vanished before its ancestry was re-read");
      }
      StatView f;
      if (auto v = meter_.ParseRequiredStat(n->pid, r, &f)) return v;
      if (f.start_ticks != n->start_ticks && !mutant::Drops(mutant::kNoStartTickOnReread)) {
        Verdict v = FileVerdict(is_root ? Status::kRootRestarted : Status::kPidReused, n->pid,
                                ProcFile::kStat, r,
                                "pid " + std::to_string(n->pid) + " now started at tick " +
                                    std::to_string(f.start_ticks) + ", not " +
                                    std::to_string(n->start_ticks));
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
        return Retry(n->pid, std::string("is dead (state ") + f.state + ")");
      }
      if (is_root && Dead(f.state)) {
        Verdict v = FileVerdict(Status::kMissingRoot, n->pid, ProcFile::kStat, r,
                                "root pid " + std::to_string(n->pid) + " died during inspection "
                                "(state " + std::string(1, f.state) + ")");
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
  RetryReason retry_;
  std::optional<RetryReason> completed_;  // the last attempt that completed without a verdict
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
