#include "core/resolver.h"

#include <cerrno>
#include <limits>
#include <optional>
#include <unordered_map>
#include <utility>

#include "core/proc_parse.h"

namespace proctape {
namespace {

// A process that vanished between listing and reading: the kernel answers
// ENOENT for a gone /proc/PID and ESRCH for a task that exited mid-read.
bool Vanished(int err) { return err == ENOENT || err == ESRCH; }

bool DeadState(char state) { return state == 'Z' || state == 'X' || state == 'x'; }

// t + d for a non-negative d, saturating instead of overflowing: a deadline or
// retry interval taken from a request (or a tape) may be as large as INT64_MAX.
std::int64_t AddSaturating(std::int64_t t, std::int64_t d) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  return t > kMax - d ? kMax : t + d;
}

struct Node {
  std::int64_t pid;
  std::int64_t ppid;
  std::uint64_t start_ticks;
};

// One point-in-time snapshot: nodes in listing order plus an index by pid.
struct Snapshot {
  std::vector<Node> nodes;
  std::unordered_map<std::int64_t, std::size_t> index;
  const Node* Find(std::int64_t pid) const {
    auto it = index.find(pid);
    return it == index.end() ? nullptr : &nodes[it->second];
  }
};

// Why an attempt ended without a final verdict; the last one explains NO_MATCH.
struct RetryReason {
  std::string detail;
  std::int64_t pid = 0;
  bool stale_token = false;  // an argv match carried another invocation's token
};

class Resolution {
 public:
  Resolution(Evidence& evidence, const Request& request)
      : ev_(evidence), req_(request), b_(request.bounds) {}

  Verdict Run() {
    if (auto invalid = Validate()) return *invalid;
    std::int64_t start = ev_.NowNs();
    deadline_ = AddSaturating(start, b_.deadline_ns);
    for (;;) {
      ++attempts_;
      std::int64_t attempt_start = attempts_ == 1 ? start : ev_.NowNs();
      retry_ = RetryReason{};
      if (std::optional<Verdict> final_verdict = Attempt()) return Finish(std::move(*final_verdict));
      std::int64_t next = AddSaturating(attempt_start, b_.retry_ns);
      if (next > deadline_) return Finish(NoMatch());
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
    if (req_.token.empty()) return bad("the invocation token is empty");
    if (req_.token_var.empty() || req_.token_var.find('=') != std::string::npos ||
        req_.token_var.find('\0') != std::string::npos) {
      return bad("the token variable name is empty or holds '=' or NUL");
    }
    if (req_.argv.empty()) return bad("the expected argv is empty");
    if (JoinNul(req_.argv).size() > b_.cmdline_bytes) {
      return bad("the expected argv is longer than the cmdline bound");
    }
    if (!req_.exe.ok()) return bad("the expected executable has no attested identity");
    // A retry interval of 0 would retry without the clock advancing: under a
    // virtual clock (tests, replay) the loop would never end.
    if (b_.retry_ns <= 0) return bad("the retry interval is not positive");
    if (b_.deadline_ns < 0) return bad("the deadline is negative");
    return std::nullopt;
  }

  Verdict Make(Status status, std::int64_t pid, std::string detail) const {
    Verdict v;
    v.status = status;
    (status == Status::kResolved ? v.pid : v.subject_pid) = pid;
    v.detail = std::move(detail);
    return v;
  }

  Verdict FileVerdict(Status status, std::int64_t pid, ProcFile file, const ReadResult& r,
                      std::string detail) const {
    Verdict v = Make(status, pid, std::move(detail));
    v.file = static_cast<int>(file);
    v.err = r.err;
    v.evidence = r.data.substr(0, kEvidenceExcerpt);
    return v;
  }

  std::string Where(std::int64_t pid, ProcFile file) const {
    return "/proc/" + std::to_string(pid) + "/" + std::string(ProcFileName(file));
  }

  Verdict Finish(Verdict v) const {
    v.attempts = attempts_;
    v.bytes_read = bytes_read_;
    return v;
  }

  Verdict NoMatch() const {
    Status status = retry_.stale_token ? Status::kTokenMismatch : Status::kNoMatch;
    return Make(status, retry_.pid,
                "no match by the deadline after " + std::to_string(attempts_) +
                    " attempts; last attempt: " + retry_.detail);
  }

  // Seed 000: "both are checked throughout enumeration and after every
  // required read". Counts the bytes of `r` and checks budget and deadline.
  std::optional<Verdict> Charge(std::size_t bytes) {
    bytes_read_ += bytes;
    if (bytes_read_ > b_.byte_budget) {
      return Make(Status::kByteBudget, 0,
                  "read " + std::to_string(bytes_read_) + " bytes, over the budget of " +
                      std::to_string(b_.byte_budget));
    }
    return CheckDeadline();
  }

  std::optional<Verdict> CheckDeadline() {
    std::int64_t now = ev_.NowNs();
    if (now > deadline_) {
      return Make(Status::kDeadline, 0,
                  "the deadline passed " + std::to_string(now - deadline_) + " ns ago");
    }
    return std::nullopt;
  }

  // Reads a required file and charges it. Returns a final verdict for
  // unreadable (other than vanished) evidence; the caller handles the rest.
  std::optional<Verdict> ReadRequired(std::int64_t pid, ProcFile file, std::uint64_t bound,
                                      ReadResult* out) {
    *out = ev_.ReadFile(pid, file, bound);
    if (auto v = Charge(out->data.size())) return v;
    if (!out->ok() && !Vanished(out->err)) {
      return FileVerdict(Status::kUnreadable, pid, file, *out,
                         Where(pid, file) + " is unreadable (errno " + std::to_string(out->err) + ")");
    }
    return std::nullopt;
  }

  // Parses a stat that was read whole; a verdict if it is not a valid record
  // of `pid`.
  std::optional<Verdict> ParseRequiredStat(std::int64_t pid, const ReadResult& r,
                                           StatFields* out) const {
    if (r.truncated) {
      return FileVerdict(Status::kFileBound, pid, ProcFile::kStat, r,
                         Where(pid, ProcFile::kStat) + " is larger than " +
                             std::to_string(b_.stat_bytes) + " bytes");
    }
    StatParse parsed = ParseStat(r.data);
    if (!parsed.ok()) {
      return FileVerdict(Status::kMalformedRecord, pid, ProcFile::kStat, r,
                         Where(pid, ProcFile::kStat) + ": " + parsed.error);
    }
    if (parsed.fields->pid != pid) {
      return FileVerdict(Status::kMalformedRecord, pid, ProcFile::kStat, r,
                         Where(pid, ProcFile::kStat) + ": field 1 is " +
                             std::to_string(parsed.fields->pid) + ", not the directory's pid");
    }
    *out = *parsed.fields;
    return std::nullopt;
  }

  // Seed 000, steps 2-3: enumerate, read and validate every stat.
  std::optional<Verdict> Scan(Snapshot* snap) {
    ListResult list = ev_.ListPids(b_.max_entries);
    if (!list.ok()) {
      Verdict v = Make(Status::kUnreadable, 0,
                       "listing /proc failed (errno " + std::to_string(list.err) + ")");
      v.err = list.err;
      return v;
    }
    if (list.truncated) {
      return Make(Status::kEntryBound, 0,
                  "/proc holds more than " + std::to_string(b_.max_entries) + " numeric entries");
    }
    if (auto v = CheckDeadline()) return v;
    snap->nodes.reserve(list.names.size());
    for (const std::string& name : list.names) {
      auto parsed_pid = ParseCanonicalDecimal(name, kMaxPid);
      if (!parsed_pid || *parsed_pid == 0) {
        Verdict v = Make(Status::kMalformedRecord, 0,
                         "/proc entry '" + EscapeBytes(name) + "' is not a canonical pid");
        v.evidence = name.substr(0, kEvidenceExcerpt);
        return v;
      }
      auto pid = static_cast<std::int64_t>(*parsed_pid);
      if (pid == 1) continue;  // init: outside the seed's pid range 2..2147483647
      ReadResult r;
      if (auto v = ReadRequired(pid, ProcFile::kStat, b_.stat_bytes, &r)) return v;
      // Seed 000: "A numeric proc entry that disappears before its initial
      // stat can be omitted from that point-in-time snapshot".
      if (!r.ok()) continue;
      StatFields f;
      if (auto v = ParseRequiredStat(pid, r, &f)) return v;
      if (snap->index.count(pid)) {
        return FileVerdict(Status::kDuplicateRecord, pid, ProcFile::kStat, r,
                           "pid " + std::to_string(pid) + " is listed twice in one snapshot");
      }
      if (snap->nodes.size() >= b_.max_nodes) {
        return Make(Status::kNodeBound, pid,
                    "more than " + std::to_string(b_.max_nodes) + " process records");
      }
      snap->index.emplace(pid, snap->nodes.size());
      snap->nodes.push_back(Node{pid, f.ppid, f.start_ticks});
    }
    return std::nullopt;
  }

  // Seed 000, step 3-4: cycles and depth over every record; marks the
  // descendants of the root. `under_root[i]` is true for strict descendants.
  std::optional<Verdict> Graph(const Snapshot& snap, std::vector<bool>* under_root) const {
    enum Mark : unsigned char { kUnseen, kOnPath, kDone };
    std::vector<Mark> mark(snap.nodes.size(), kUnseen);
    std::vector<std::uint32_t> depth(snap.nodes.size(), 0);
    under_root->assign(snap.nodes.size(), false);
    std::vector<std::size_t> path;
    for (std::size_t start = 0; start < snap.nodes.size(); ++start) {
      if (mark[start] == kDone) continue;
      path.clear();
      std::size_t i = start;
      // Walk up until a known node or the top of the graph.
      std::optional<std::size_t> top_known;
      for (;;) {
        if (mark[i] == kOnPath) {
          return Make(Status::kCycle, snap.nodes[i].pid,
                      "parent links from pid " + std::to_string(snap.nodes[start].pid) +
                          " loop through pid " + std::to_string(snap.nodes[i].pid));
        }
        if (mark[i] == kDone) {
          top_known = i;
          break;
        }
        mark[i] = kOnPath;
        path.push_back(i);
        if (path.size() > static_cast<std::size_t>(b_.max_depth) + 1) {
          return Make(Status::kDepthBound, snap.nodes[start].pid,
                      "ancestry of pid " + std::to_string(snap.nodes[start].pid) +
                          " is deeper than " + std::to_string(b_.max_depth));
        }
        const Node* parent = snap.Find(snap.nodes[i].ppid);
        if (parent == nullptr) break;
        i = static_cast<std::size_t>(parent - snap.nodes.data());
      }
      // Unwind: depth counts parent links up to the top of the graph.
      std::uint32_t d = top_known ? depth[*top_known] + 1 : 0;
      bool under = top_known && ((*under_root)[*top_known] ||
                                 snap.nodes[*top_known].pid == req_.root_pid);
      for (auto it = path.rbegin(); it != path.rend(); ++it) {
        if (d > b_.max_depth) {
          return Make(Status::kDepthBound, snap.nodes[*it].pid,
                      "ancestry of pid " + std::to_string(snap.nodes[*it].pid) +
                          " is deeper than " + std::to_string(b_.max_depth));
        }
        depth[*it] = d;
        (*under_root)[*it] = under;
        mark[*it] = kDone;
        if (snap.nodes[*it].pid == req_.root_pid) under = true;
        ++d;
      }
    }
    return std::nullopt;
  }

  // Seed 000, step 5: argv exact, exactly one environment entry carrying the
  // token. Returns a final verdict, or sets *match / *vanished.
  std::optional<Verdict> Inspect(std::int64_t pid, bool* match, bool* vanished) {
    *match = false;
    *vanished = false;
    ReadResult cmd;
    if (auto v = ReadRequired(pid, ProcFile::kCmdline, b_.cmdline_bytes, &cmd)) return v;
    if (!cmd.ok()) return *vanished = true, std::nullopt;
    // A cmdline longer than the bound cannot equal the expected argv, which
    // Validate() proved fits within it: not a match, and nothing more is read.
    if (cmd.truncated) return std::nullopt;
    std::vector<std::string_view> argv = SplitNul(cmd.data);
    if (argv.size() != req_.argv.size()) return std::nullopt;
    for (std::size_t i = 0; i < argv.size(); ++i) {
      if (argv[i] != req_.argv[i]) return std::nullopt;
    }
    ReadResult env;
    if (auto v = ReadRequired(pid, ProcFile::kEnviron, b_.environ_bytes, &env)) return v;
    if (!env.ok()) return *vanished = true, std::nullopt;
    if (env.truncated) {
      return FileVerdict(Status::kFileBound, pid, ProcFile::kEnviron, env,
                         Where(pid, ProcFile::kEnviron) + " is larger than " +
                             std::to_string(b_.environ_bytes) +
                             " bytes: the token cannot be checked");
    }
    std::size_t with_key = 0;
    std::size_t carrying = 0;
    for (std::string_view entry : SplitNul(env.data)) {
      std::size_t eq = entry.find('=');
      if (eq == std::string_view::npos || entry.substr(0, eq) != req_.token_var) continue;
      ++with_key;
      if (entry.substr(eq + 1) == req_.token) ++carrying;
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

  std::optional<Verdict> Attempt() {
    Snapshot snap;
    if (auto v = Scan(&snap)) return v;
    std::vector<bool> under_root;
    if (auto v = Graph(snap, &under_root)) return v;

    const Node* root = snap.Find(req_.root_pid);
    if (root == nullptr) {
      return Make(Status::kMissingRoot, req_.root_pid,
                  "root pid " + std::to_string(req_.root_pid) + " is not in the snapshot");
    }
    if (root->start_ticks != req_.root_start_ticks) {
      Verdict v = Make(Status::kRootRestarted, root->pid,
                       "root pid " + std::to_string(root->pid) + " started at tick " +
                           std::to_string(root->start_ticks) + ", not the fingerprinted " +
                           std::to_string(req_.root_start_ticks));
      v.subject_start_ticks = root->start_ticks;
      v.expected_ticks = req_.root_start_ticks;
      return v;
    }

    std::vector<const Node*> matches;
    for (std::size_t i = 0; i < snap.nodes.size(); ++i) {
      if (!under_root[i]) continue;
      bool match = false;
      bool vanished = false;
      if (auto v = Inspect(snap.nodes[i].pid, &match, &vanished)) return v;
      if (vanished) return Retry(snap.nodes[i].pid, "vanished during inspection");
      if (match) matches.push_back(&snap.nodes[i]);
    }
    if (matches.empty()) {
      if (retry_.pid == 0) retry_.detail = "no process beneath the root matches";
      return std::nullopt;
    }
    if (matches.size() > 1) {
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
  // candidate and every ancestor through the root.
  std::optional<Verdict> Confirm(const Snapshot& snap, const Node& match) {
    Identity exe = ev_.ExeIdentity(match.pid);
    if (auto v = CheckDeadline()) return v;
    if (!exe.ok()) {
      if (Vanished(exe.err)) return Retry(match.pid, "vanished before its executable was read");
      Verdict v = Make(Status::kUnreadable, match.pid,
                       Where(match.pid, ProcFile::kExe) + " is unreadable (errno " +
                           std::to_string(exe.err) + ")");
      v.file = static_cast<int>(ProcFile::kExe);
      v.err = exe.err;
      return v;
    }
    if (!(exe == req_.exe)) {
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
      if (auto v = ReadRequired(n->pid, ProcFile::kStat, b_.stat_bytes, &r)) return v;
      if (!r.ok()) {
        if (is_root) {
          return Make(Status::kMissingRoot, n->pid,
                      "root pid " + std::to_string(n->pid) + " vanished during inspection");
        }
        return Retry(n->pid, "vanished before its ancestry was re-read");
      }
      StatFields f;
      if (auto v = ParseRequiredStat(n->pid, r, &f)) return v;
      if (f.start_ticks != n->start_ticks) {
        Verdict v = FileVerdict(is_root ? Status::kRootRestarted : Status::kPidReused, n->pid,
                                ProcFile::kStat, r,
                                "pid " + std::to_string(n->pid) + " now started at tick " +
                                    std::to_string(f.start_ticks) + ", not " +
                                    std::to_string(n->start_ticks));
        v.subject_start_ticks = f.start_ticks;
        v.expected_ticks = n->start_ticks;
        return v;
      }
      if (!is_root && f.ppid != n->ppid) {
        return FileVerdict(Status::kAncestryChanged, n->pid, ProcFile::kStat, r,
                           "pid " + std::to_string(n->pid) + " now has parent " +
                               std::to_string(f.ppid) + ", not " + std::to_string(n->ppid));
      }
      if (n == &match && DeadState(f.state)) {
        return Retry(n->pid, std::string("is dead (state ") + f.state + ")");
      }
      if (is_root) break;
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
  std::int64_t deadline_ = 0;
  std::uint32_t attempts_ = 0;
  std::uint64_t bytes_read_ = 0;
  RetryReason retry_;
};

}  // namespace

Verdict Resolve(Evidence& evidence, const Request& request) {
  return Resolution(evidence, request).Run();
}

LivenessVerdict CheckLiveness(Evidence& evidence, std::int64_t pid, std::uint64_t start_ticks,
                              std::uint64_t stat_bytes) {
  LivenessVerdict out;
  auto error = [&](Status reason, std::string detail) {
    out.status = LivenessStatus::kError;
    out.reason = reason;
    out.detail = std::move(detail);
    return out;
  };
  std::string where = "/proc/" + std::to_string(pid) + "/stat";
  ReadResult r = evidence.ReadFile(pid, ProcFile::kStat, stat_bytes);
  out.err = r.err;
  if (!r.ok()) {
    if (Vanished(r.err)) {
      out.status = LivenessStatus::kDead;
      out.detail = where + " is gone (errno " + std::to_string(r.err) + ")";
      return out;
    }
    return error(Status::kUnreadable, where + " is unreadable (errno " + std::to_string(r.err) + ")");
  }
  if (r.truncated) return error(Status::kMalformedRecord, where + " is larger than its bound");
  StatParse parsed = ParseStat(r.data);
  if (!parsed.ok()) return error(Status::kMalformedRecord, where + ": " + parsed.error);
  const StatFields& f = *parsed.fields;
  out.state = std::string(1, f.state);
  if (f.pid != pid) return error(Status::kMalformedRecord, where + ": field 1 is not the pid");
  if (f.start_ticks != start_ticks) {
    return error(Status::kPidReused, "pid " + std::to_string(pid) + " started at tick " +
                                         std::to_string(f.start_ticks) + ", not " +
                                         std::to_string(start_ticks) + ": the pid was reused");
  }
  out.status = DeadState(f.state) ? LivenessStatus::kDead : LivenessStatus::kAlive;
  out.detail = "pid " + std::to_string(pid) + " in state " + out.state + " started at tick " +
               std::to_string(start_ticks);
  return out;
}

Verdict FingerprintRoot(Evidence& evidence, std::int64_t pid, std::uint64_t stat_bytes) {
  Verdict v;
  v.subject_pid = pid;
  std::string where = "/proc/" + std::to_string(pid) + "/stat";
  ReadResult r = evidence.ReadFile(pid, ProcFile::kStat, stat_bytes);
  v.file = static_cast<int>(ProcFile::kStat);
  v.err = r.err;
  v.bytes_read = r.data.size();
  if (!r.ok()) {
    v.status = Vanished(r.err) ? Status::kMissingRoot : Status::kUnreadable;
    v.detail = where + " cannot be read (errno " + std::to_string(r.err) + ")";
    return v;
  }
  StatParse parsed = r.truncated ? StatParse{} : ParseStat(r.data);
  if (!parsed.ok() || parsed.fields->pid != pid) {
    v.status = Status::kMalformedRecord;
    v.evidence = r.data.substr(0, kEvidenceExcerpt);
    v.detail = where + " is not a valid stat record" +
               (parsed.error.empty() ? std::string() : ": " + parsed.error);
    return v;
  }
  v.status = Status::kResolved;
  v.subject_pid = 0;
  v.pid = pid;
  v.start_ticks = parsed.fields->start_ticks;
  v.detail = "pid " + std::to_string(pid) + " started at tick " + std::to_string(v.start_ticks);
  return v;
}

}  // namespace proctape
