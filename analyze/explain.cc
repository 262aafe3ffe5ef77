#include "analyze/explain.h"

#include <cerrno>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "replay/token_mask.h"
#include "core/proc_parse.h"
#include "core/resolver.h"
#include "proto/convert.h"
#include "replay/replay.h"
#include "replay/tape_evidence.h"

namespace proctape {
namespace {

using Why = v1::ExplainCandidate::Why;

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

bool Vanished(int err) { return err == ENOENT || err == ESRCH; }

std::int64_t AddSaturating(std::int64_t t, std::int64_t d) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  return t > kMax - d ? kMax : t + d;
}

// One call the resolver made and the tape's answer.
struct Seen {
  enum class Op { kList, kRead, kExe, kPath, kNow, kSleep };
  Op op = Op::kNow;
  std::int64_t pid = 0;
  ProcFile file = ProcFile::kStat;
  ListResult list;
  ReadResult read;
  Identity identity;
  std::int64_t ns = 0;      // kNow: the reading; kSleep: the target
  std::uint64_t index = 0;  // within the check's tape
};

Seen Call(Seen::Op op, std::int64_t pid = 0, ProcFile file = ProcFile::kStat) {
  Seen s;
  s.op = op;
  s.pid = pid;
  s.file = file;
  return s;
}

// The decorator: every call goes to the tape unchanged and is kept with its
// answer. Calls made after the replay diverged are not answers of the tape
// and are not kept.
class WatchingEvidence : public Evidence {
 public:
  explicit WatchingEvidence(TapeEvidence& tape) : tape_(tape) {}

  const std::vector<Seen>& seen() const { return seen_; }

  ListResult ListPids(std::uint64_t bound) override {
    Seen s = Call(Seen::Op::kList);
    s.list = tape_.ListPids(bound);
    return Keep(std::move(s)).list;
  }
  ReadResult ReadFile(std::int64_t pid, ProcFile file, std::uint64_t bound) override {
    Seen s = Call(Seen::Op::kRead, pid, file);
    s.read = tape_.ReadFile(pid, file, bound);
    return Keep(std::move(s)).read;
  }
  Identity ExeIdentity(std::int64_t pid) override {
    Seen s = Call(Seen::Op::kExe, pid, ProcFile::kExe);
    s.identity = tape_.ExeIdentity(pid);
    return Keep(std::move(s)).identity;
  }
  Identity PathIdentity(const std::string& path) override {
    Seen s = Call(Seen::Op::kPath);
    s.identity = tape_.PathIdentity(path);
    return Keep(std::move(s)).identity;
  }
  std::int64_t NowNs() override {
    Seen s = Call(Seen::Op::kNow);
    s.ns = tape_.NowNs();
    return Keep(std::move(s)).ns;
  }
  void SleepUntil(std::int64_t mono_ns) override {
    Seen s = Call(Seen::Op::kSleep);
    s.ns = mono_ns;
    tape_.SleepUntil(mono_ns);
    Keep(std::move(s));
  }

 private:
  const Seen& Keep(Seen s) {
    if (tape_.diverged()) {
      dropped_ = s;
      return dropped_;
    }
    s.index = tape_.consumed() - 1;
    seen_.push_back(std::move(s));
    return seen_.back();
  }

  TapeEvidence& tape_;
  std::vector<Seen> seen_;
  Seen dropped_;
};

std::string Num(std::int64_t v) { return std::to_string(v); }
std::string Num(std::uint64_t v) { return std::to_string(v); }

std::string Where(std::int64_t pid, ProcFile file) {
  return "/proc/" + Num(pid) + "/" + std::string(ProcFileName(file));
}

std::string Errno(int err) { return "errno " + std::to_string(err); }

std::string QuoteArgv(const google::protobuf::RepeatedPtrField<std::string>& argv) {
  constexpr int kShown = 16;
  std::string out;
  for (int i = 0; i < argv.size() && i < kShown; ++i) {
    if (i > 0) out += " ";
    out += QuoteBytes(argv[i]);
  }
  if (argv.size() > kShown) out += " ... (" + Num(std::int64_t{argv.size() - kShown}) + " more)";
  return out;
}

std::string DevIno(const v1::FileIdentity& id) { return Num(id.dev()) + ":" + Num(id.ino()); }

v1::ExplainStat StatOf(std::int64_t pid, const ReadResult& r) {
  v1::ExplainStat s;
  s.set_pid(pid);
  s.set_err(r.err);
  s.set_truncated(r.truncated);
  if (!r.ok() || r.truncated) return s;
  StatParse parsed = ParseStat(r.data);
  if (!parsed.ok()) {
    s.set_parse_error(parsed.error);
    return s;
  }
  if (parsed.fields->pid != pid) {
    s.set_parse_error("field 1 is " + Num(parsed.fields->pid) + ", not the directory's pid");
    return s;
  }
  s.set_parsed(true);
  s.set_comm(parsed.fields->comm);
  s.set_state(std::string(1, parsed.fields->state));
  s.set_ppid(parsed.fields->ppid);
  s.set_start_ticks(parsed.fields->start_ticks);
  return s;
}

// Where a candidate's reads lie among the calls, to find the one the
// resolution stopped at.
struct CandidateCalls {
  std::size_t cmdline = kNone;
  std::size_t environ = kNone;
  std::size_t exe = kNone;
  std::size_t environ_recheck = kNone;
  std::vector<std::size_t> ancestry;
};

bool IsScanStatus(v1::Verdict::Status s) {
  switch (s) {
    case v1::Verdict::UNREADABLE:
    case v1::Verdict::ENTRY_BOUND:
    case v1::Verdict::DEADLINE:
    case v1::Verdict::BYTE_BUDGET:
    case v1::Verdict::MALFORMED_RECORD:
    case v1::Verdict::DUPLICATE_RECORD:
    case v1::Verdict::NODE_BOUND:
    case v1::Verdict::FILE_BOUND: return true;
    default: return false;
  }
}

// Whether the resolver's retry loop ran out (NoMatch): NO_MATCH, or
// TOKEN_MISMATCH without a deciding file (the at-once one names environ).
bool RanOut(const v1::Verdict& v) {
  return v.status() == v1::Verdict::NO_MATCH ||
         (v.status() == v1::Verdict::TOKEN_MISMATCH && v.file() == v1::PROC_FILE_UNSPECIFIED);
}

class ResolveExplainer {
 public:
  ResolveExplainer(const std::vector<Seen>& calls, const Request& request,
                   const v1::Verdict& verdict, const TokenMask& mask, v1::ExplainCheck* out)
      : calls_(calls), req_(request), verdict_(verdict), mask_(mask), out_(out) {}

  // The calls from `begin` on are Resolve's: its clock reading, then the attempts.
  void Run(std::size_t begin) {
    if (begin >= calls_.size() || calls_[begin].op != Seen::Op::kNow) {
      out_->set_ended_by(verdict_.status() == v1::Verdict::INVALID_REQUEST
                             ? "the request is invalid: the resolver made no call"
                             : "the resolver made no call the tape answered");
      return;
    }
    start_ = calls_[begin].ns;
    deadline_ = AddSaturating(start_, req_.bounds.deadline_ns);
    std::vector<std::size_t> firsts;
    for (std::size_t j = begin + 1; j < calls_.size(); ++j) {
      if (calls_[j].op != Seen::Op::kList) continue;
      firsts.push_back(calls_[j - 1].op == Seen::Op::kNow ? j - 1 : j);
    }
    for (std::size_t k = 0; k < firsts.size(); ++k) {
      std::size_t end = k + 1 < firsts.size() ? firsts[k + 1] : calls_.size();
      Attempt(static_cast<std::uint32_t>(k + 1), firsts[k], end, k + 1 == firsts.size());
    }
    EndedBy();
  }

 private:
  void Attempt(std::uint32_t index, std::size_t first, std::size_t end, bool last) {
    v1::ExplainAttempt* a = out_->add_attempts();
    a->set_index(index);
    a->set_start_offset_ns(calls_[first].op == Seen::Op::kNow ? calls_[first].ns - start_ : 0);
    a->set_first_observation(calls_[first].index);
    a->set_observation_count(calls_[end - 1].index - calls_[first].index + 1);

    std::map<std::int64_t, v1::ExplainStat> scanned;
    std::vector<std::int64_t> order;
    std::vector<CandidateCalls> where;
    bool scanning = true;
    bool slept = false;
    std::size_t last_read = kNone;
    int confirming = -1;  // the candidate whose executable was taken
    for (std::size_t j = first; j < end; ++j) {
      const Seen& c = calls_[j];
      switch (c.op) {
        case Seen::Op::kList:
          a->set_list_err(c.list.err);
          a->set_list_truncated(c.list.truncated);
          a->set_listed(c.list.names.size());
          last_read = j;
          break;
        case Seen::Op::kRead:
          last_read = j;
          if (c.file == ProcFile::kStat && scanning) {
            if (Vanished(c.read.err)) {
              a->add_vanished_before_stat(c.pid);
              break;
            }
            v1::ExplainStat s = StatOf(c.pid, c.read);
            if (s.parsed() && scanned.emplace(c.pid, s).second) {
              order.push_back(c.pid);
              a->set_records(a->records() + 1);
            }
          } else if (c.file == ProcFile::kStat && confirming < 0 && a->candidates_size() > 0 &&
                     a->candidates().rbegin()->pid() == c.pid &&
                     a->candidates().rbegin()->environ_read()) {
            // The stat re-read after an empty environ (exited, or no token?).
            *a->mutable_candidates(a->candidates_size() - 1)->mutable_environ_recheck() =
                StatOf(c.pid, c.read);
            where.back().environ_recheck = j;
          } else if (c.file == ProcFile::kStat && confirming >= 0) {
            Reread(a->mutable_candidates(confirming), scanned, c);
            where[static_cast<std::size_t>(confirming)].ancestry.push_back(j);
          } else if (c.file == ProcFile::kCmdline) {
            if (scanning) Tree(*a, scanned, order);
            scanning = false;
            Inspect(*a, scanned, c);
            where.emplace_back().cmdline = j;
          } else if (c.file == ProcFile::kEnviron && a->candidates_size() > 0 &&
                     a->candidates().rbegin()->pid() == c.pid) {
            Environ(a->mutable_candidates(a->candidates_size() - 1), c.read);
            where.back().environ = j;
          }
          break;
        case Seen::Op::kExe:
          last_read = j;
          for (int i = 0; i < a->candidates_size(); ++i) {
            if (a->candidates(i).pid() != c.pid) continue;
            v1::ExplainCandidate* m = a->mutable_candidates(i);
            m->set_exe_read(true);
            *m->mutable_exe() = ToProto(c.identity);
            where[static_cast<std::size_t>(i)].exe = j;
            confirming = i;
            break;
          }
          break;
        case Seen::Op::kSleep:
          slept = true;
          a->set_next_offset_ns(c.ns - start_);
          break;
        case Seen::Op::kNow:
        case Seen::Op::kPath: break;
      }
    }
    // The deadline passed during this last attempt after earlier ones
    // completed (the resolver's last clock reading is past it): the verdict
    // is the earlier attempts' diagnosis, this attempt was cut.
    cut_ = last && !slept && RanOut(verdict_) && calls_[end - 1].op == Seen::Op::kNow &&
           calls_[end - 1].ns > deadline_;
    bool ran_out = last && RanOut(verdict_) && !cut_;
    bool final_attempt = last && !slept && !ran_out && !cut_;
    bool scan_done = !scanning || (!cut_ && (!final_attempt || !IsScanStatus(verdict_.status())));
    a->set_scan_complete(scan_done);
    if (scanning && scan_done) Tree(*a, scanned, order);

    bool stop = cut_ || (final_attempt && (verdict_.status() == v1::Verdict::DEADLINE ||
                                           verdict_.status() == v1::Verdict::BYTE_BUDGET));
    for (int i = 0; i < a->candidates_size(); ++i) {
      Decide(a->mutable_candidates(i), where[static_cast<std::size_t>(i)],
             stop ? last_read : kNone);
    }
    if (!scanning) {
      std::set<std::int64_t> inspected;
      for (const auto& c : a->candidates()) inspected.insert(c.pid());
      for (std::int64_t pid : a->beneath_root()) {
        if (!inspected.count(pid)) a->add_not_inspected(pid);
      }
    }
    if (slept) {
      a->set_outcome(v1::ExplainAttempt::RETRY);
      a->set_summary(RetryReason(*a) + ": retried");
      last_retry_reason_ = RetryReason(*a);
    } else if (cut_) {
      a->set_outcome(v1::ExplainAttempt::CUT);
      a->set_summary("the deadline at " + Offset(deadline_) +
                     " passed during this attempt: the verdict keeps the diagnosis of attempt " +
                     std::to_string(index - 1));
    } else if (ran_out) {
      a->set_outcome(v1::ExplainAttempt::LAST);
      a->set_summary(RetryReason(*a) + ": no time for another attempt");
    } else {
      a->set_outcome(v1::ExplainAttempt::FINAL);
      std::string summary = v1::Verdict::Status_Name(verdict_.status());
      if (!verdict_.detail().empty()) summary += ": " + verdict_.detail();
      if (verdict_.matches_size() > 0) {
        summary += " (pids";
        for (std::int64_t m : verdict_.matches()) summary.append(" ").append(Num(m));
        summary += ")";
      }
      a->set_summary(summary);
    }
    if (last) {
      last_start_ = calls_[first].op == Seen::Op::kNow ? calls_[first].ns : start_;
      last_outcome_ = a->outcome();
    }
  }

  // The root's record and the strict descendants in listing order, once
  // the scan is over. Shown only when the root is the fingerprinted one:
  // those are the processes the resolver inspects.
  void Tree(v1::ExplainAttempt& a, const std::map<std::int64_t, v1::ExplainStat>& scanned,
            const std::vector<std::int64_t>& order) const {
    auto root = scanned.find(req_.root_pid);
    if (root == scanned.end()) return;
    a.set_root_seen(true);
    *a.mutable_root() = root->second;
    if (root->second.start_ticks() != req_.root_start_ticks) return;
    for (std::int64_t pid : order) {
      if (pid == req_.root_pid) continue;
      std::int64_t up = scanned.at(pid).ppid();
      for (std::size_t steps = 0; steps <= order.size(); ++steps) {
        if (up == req_.root_pid) {
          a.add_beneath_root(pid);
          break;
        }
        auto parent = scanned.find(up);
        if (parent == scanned.end()) break;
        up = parent->second.ppid();
      }
    }
  }

  void Inspect(v1::ExplainAttempt& a, const std::map<std::int64_t, v1::ExplainStat>& scanned,
               const Seen& c) const {
    v1::ExplainCandidate* k = a.add_candidates();
    k->set_pid(c.pid);
    if (auto s = scanned.find(c.pid); s != scanned.end()) {
      k->set_start_ticks(s->second.start_ticks());
      k->set_ppid(s->second.ppid());
      k->set_comm(s->second.comm());
      k->set_state(s->second.state());
    }
    k->set_cmdline_err(c.read.err);
    k->set_cmdline_truncated(c.read.truncated);
    if (c.read.ok()) {
      // Masked here, before a detail quotes (and cuts) them.
      for (std::string_view arg : SplitNul(c.read.data)) k->add_argv(mask_.Masked(arg));
      k->set_cmdline_unterminated(!c.read.truncated && !c.read.data.empty() &&
                                  c.read.data.back() != '\0');
    }
  }

  // Counts the entries named the token variable; their values are not kept.
  void Environ(v1::ExplainCandidate* k, const ReadResult& r) const {
    k->set_argv_exact(true);
    k->set_environ_read(true);
    k->set_environ_err(r.err);
    k->set_environ_truncated(r.truncated);
    if (!r.ok() || r.truncated) return;
    std::uint32_t named = 0;
    std::uint32_t carrying = 0;
    for (std::string_view entry : SplitNul(r.data)) {
      std::size_t eq = entry.find('=');
      if (eq == std::string_view::npos || entry.substr(0, eq) != req_.token_var) continue;
      ++named;
      if (entry.substr(eq + 1) == req_.token) ++carrying;
    }
    k->set_token_entries(named);
    k->set_token_carrying(carrying);
  }

  // One link of the ancestry re-read of the match `k`.
  void Reread(v1::ExplainCandidate* k, const std::map<std::int64_t, v1::ExplainStat>& scanned,
              const Seen& c) const {
    v1::ExplainAncestor* link = k->add_ancestry();
    link->set_pid(c.pid);
    bool root = c.pid == req_.root_pid;
    if (auto s = scanned.find(c.pid); s != scanned.end()) {
      link->set_scanned_start_ticks(s->second.start_ticks());
      link->set_scanned_ppid(s->second.ppid());
    }
    *link->mutable_reread() = StatOf(c.pid, c.read);
    const v1::ExplainStat& r = link->reread();
    std::string who = root ? "root " + Num(c.pid) : "pid " + Num(c.pid);
    std::string detail;
    if (r.err() != 0) {
      detail = who + (Vanished(r.err()) ? " is gone (" : " is unreadable (") + Errno(r.err()) + ")";
    } else if (r.truncated()) {
      detail = who + ": stat larger than " + Num(req_.bounds.stat_bytes) + " bytes";
    } else if (!r.parsed()) {
      detail = who + ": stat does not parse: " + r.parse_error();
    } else if (r.start_ticks() != link->scanned_start_ticks()) {
      detail = who + " now started at tick " + Num(r.start_ticks()) + ", not " +
               Num(link->scanned_start_ticks());
    } else if (r.ppid() != link->scanned_ppid()) {  // the root's parent too (step 7)
      detail = who + " now has parent " + Num(r.ppid()) + ", not " + Num(link->scanned_ppid());
    } else if (c.pid == k->pid() && (r.state() == "Z" || r.state() == "X" || r.state() == "x")) {
      detail = who + " is dead (state " + EscapeBytes(r.state()) + ")";
    } else {
      link->set_unchanged(true);
      detail = who + ": start tick " + Num(r.start_ticks()) + ", parent " + Num(r.ppid()) +
               ", state " + EscapeBytes(r.state()) + ": unchanged";
    }
    link->set_detail(detail);
  }

  // Why the candidate is or is not the process, from what was read of it and
  // what the resolver did next. `stopped_at`: the read after which the
  // deadline or the byte budget ended the resolution, if it did.
  void Decide(v1::ExplainCandidate* k, const CandidateCalls& at, std::size_t stopped_at) const {
    auto set = [k](Why why, std::string detail) {
      k->set_why(why);
      k->set_detail(std::move(detail));
    };
    auto stopped = [stopped_at](std::size_t j) { return stopped_at != kNone && j == stopped_at; };
    const std::string stop = "the resolution stopped after reading its ";
    const std::string status = cut_ ? "DEADLINE" : v1::Verdict::Status_Name(verdict_.status());
    if (stopped(at.cmdline)) return set(v1::ExplainCandidate::STOPPED, stop + "cmdline: " + status);
    if (k->cmdline_err() != 0) return ReadFailed(k, ProcFile::kCmdline, k->cmdline_err(), "");
    if (k->cmdline_truncated()) {
      return set(v1::ExplainCandidate::CMDLINE_TOO_LONG,
                 "cmdline larger than " + Num(req_.bounds.cmdline_bytes) +
                     " bytes: cannot be the expected argv");
    }
    if (!k->environ_read()) {
      // Seed 000, step 5: the cmdline is the argv NUL-terminated, byte for byte.
      const std::string unterminated = k->cmdline_unterminated() ? " without the final NUL" : "";
      return set(v1::ExplainCandidate::ARGV_DIFFERS,
                 k->argv().empty() ? "argv empty (a kernel thread or a zombie): not the expected argv"
                                   : "argv " + QuoteArgv(k->argv()) + unterminated +
                                         ": not the expected argv");
    }
    const std::string exact = "argv exact; ";
    if (stopped(at.environ)) {
      return set(v1::ExplainCandidate::STOPPED, exact + stop + "environ: " + status);
    }
    if (k->environ_err() != 0) return ReadFailed(k, ProcFile::kEnviron, k->environ_err(), exact);
    if (k->environ_truncated()) {
      return set(v1::ExplainCandidate::ENVIRON_TOO_LARGE,
                 exact + "environ larger than " + Num(req_.bounds.environ_bytes) +
                     " bytes: the token cannot be checked");
    }
    const std::string var = EscapeBytes(req_.token_var);
    if (k->has_environ_recheck()) {
      // Environ read empty: the resolver re-read stat to tell a process that
      // exited during inspection (retried) from one without a token.
      const v1::ExplainStat& r = k->environ_recheck();
      const std::string empty = exact + "environ empty, and its stat re-read ";
      const std::string exited = ": it exited during inspection";
      if (stopped(at.environ_recheck)) {
        return set(v1::ExplainCandidate::STOPPED,
                   exact + "environ empty; " + stop + "stat re-read: " + status);
      }
      if (r.err() != 0 && !Vanished(r.err())) {
        return set(v1::ExplainCandidate::UNREADABLE, exact + "environ empty; " +
                                                         Where(k->pid(), ProcFile::kStat) +
                                                         " is unreadable (" + Errno(r.err()) + ")");
      }
      if (r.err() != 0) {
        return set(v1::ExplainCandidate::VANISHED, empty + "finds it gone (" + Errno(r.err()) + ")" + exited);
      }
      if (!r.parsed()) {
        return set(v1::ExplainCandidate::MALFORMED,
                   empty + (r.truncated() ? "is larger than " + Num(req_.bounds.stat_bytes) + " bytes"
                                          : "does not parse: " + r.parse_error()));
      }
      if (r.state() == "Z" || r.state() == "X" || r.state() == "x") {
        return set(v1::ExplainCandidate::VANISHED,
                   empty + "shows it dead (state " + EscapeBytes(r.state()) + ")" + exited);
      }
      if (r.start_ticks() != k->start_ticks()) {
        return set(v1::ExplainCandidate::VANISHED,
                   empty + "shows pid " + Num(k->pid()) + " started at tick " +
                       Num(r.start_ticks()) + ", not " + Num(k->start_ticks()) + exited);
      }
      return set(v1::ExplainCandidate::NO_TOKEN,
                 empty + "shows it alive (state " + EscapeBytes(r.state()) + "): no " + var +
                     " entry: not this invocation's");
    }
    const std::uint32_t named = k->token_entries();
    const std::uint32_t carrying = k->token_carrying();
    if (named == 0) {
      return set(v1::ExplainCandidate::NO_TOKEN,
                 exact + "environ has no " + var + " entry: not this invocation's");
    }
    if (carrying == 0) {
      return set(v1::ExplainCandidate::OTHER_TOKEN,
                 exact + "environ has " + Entries(named, var) +
                     " with another token: another invocation's");
    }
    if (named != 1) {
      return set(v1::ExplainCandidate::TOKEN_TWICE,
                 exact + "environ has " + Entries(named, var) + ", " + Num(std::uint64_t{carrying}) +
                     " with the token: not exactly one");
    }
    std::string matched = exact + "environ has one " + var + " entry, with the token: a match";
    set(v1::ExplainCandidate::MATCH, matched);
    if (!k->exe_read()) return;
    if (stopped(at.exe)) {
      return set(v1::ExplainCandidate::STOPPED, matched + "; " + stop + "exe identity: " + status);
    }
    const v1::FileIdentity& exe = k->exe();
    if (exe.err() != 0) return ReadFailed(k, ProcFile::kExe, exe.err(), matched + "; ");
    if (exe.dev() != req_.exe.dev || exe.ino() != req_.exe.ino) {
      return set(v1::ExplainCandidate::EXE_MISMATCH,
                 matched + "; exe " + DevIno(exe) + ", not the attested " +
                     DevIno(ToProto(req_.exe)));
    }
    matched += "; exe " + DevIno(exe) + " as attested";
    for (int i = 0; i < k->ancestry_size(); ++i) {
      const v1::ExplainAncestor& link = k->ancestry(i);
      if (stopped(at.ancestry[static_cast<std::size_t>(i)])) {
        return set(v1::ExplainCandidate::STOPPED,
                   matched + "; " + stop + "re-read of " + Where(link.pid(), ProcFile::kStat) +
                       ": " + status);
      }
      if (link.unchanged()) continue;
      const v1::ExplainStat& r = link.reread();
      bool root = link.pid() == req_.root_pid;
      Why why = v1::ExplainCandidate::MALFORMED;
      if (r.err() != 0 && !Vanished(r.err())) {
        why = v1::ExplainCandidate::UNREADABLE;
      } else if (r.err() != 0) {
        why = root ? v1::ExplainCandidate::ROOT_VANISHED : v1::ExplainCandidate::VANISHED;
      } else if (r.parsed() && r.start_ticks() != link.scanned_start_ticks()) {
        why = root ? v1::ExplainCandidate::ROOT_RESTARTED : v1::ExplainCandidate::PID_REUSED;
      } else if (r.parsed() && r.ppid() != link.scanned_ppid()) {
        why = v1::ExplainCandidate::ANCESTRY_CHANGED;
      } else if (r.parsed()) {
        why = v1::ExplainCandidate::DEAD;
      }
      return set(why, matched + "; ancestry re-read: " + link.detail());
    }
    if (k->ancestry_size() > 0 && k->ancestry(k->ancestry_size() - 1).pid() == req_.root_pid) {
      set(v1::ExplainCandidate::RESOLVED, matched + "; ancestry re-read: unchanged up to the root");
    }
  }

  static std::string Entries(std::uint32_t n, const std::string& var) {
    return n == 1 ? "one " + var + " entry" : Num(std::uint64_t{n}) + " " + var + " entries";
  }

  static void ReadFailed(v1::ExplainCandidate* k, ProcFile file, int err, const std::string& before) {
    std::string what = file == ProcFile::kExe ? "its executable" : "its " + std::string(ProcFileName(file));
    if (Vanished(err)) {
      k->set_why(v1::ExplainCandidate::VANISHED);
      k->set_detail(before + "gone before " + what + " was read (" + Errno(err) + ")");
    } else {
      k->set_why(v1::ExplainCandidate::UNREADABLE);
      k->set_detail(before + Where(k->pid(), file) + " is unreadable (" + Errno(err) + ")");
    }
  }

  // The resolver's reason for another attempt, from the candidates.
  static std::string RetryReason(const v1::ExplainAttempt& a) {
    for (const auto& k : a.candidates()) {
      if (k.why() == v1::ExplainCandidate::VANISHED) {
        return "pid " + Num(k.pid()) + " vanished during inspection";
      }
      if (k.why() == v1::ExplainCandidate::DEAD) return "pid " + Num(k.pid()) + " is dead";
    }
    for (const auto& k : a.candidates()) {
      if (k.why() == v1::ExplainCandidate::OTHER_TOKEN) {
        return "pid " + Num(k.pid()) + " matches argv but carries another token";
      }
      if (k.why() == v1::ExplainCandidate::NO_TOKEN) {
        return "pid " + Num(k.pid()) + " matches argv but carries no token";
      }
    }
    return "no process beneath the root matches";
  }

  void EndedBy() {
    const int n = out_->attempts_size();
    const std::string at = n == 0 ? "" : "attempt " + std::to_string(n);
    std::string ended;
    if (n == 0) {
      ended = "no attempt was made";
    } else if (last_outcome_ == v1::ExplainAttempt::LAST) {
      ended = "no match by the deadline: the next attempt would start at " +
              Offset(AddSaturating(last_start_, req_.bounds.retry_ns)) +
              ", after the deadline at " + Offset(deadline_);
    } else if (last_outcome_ == v1::ExplainAttempt::CUT) {
      ended = "the deadline at " + Offset(deadline_) + " passed during " + at + ", after " +
              std::to_string(n - 1) + " completed attempts without a match (" +
              last_retry_reason_ + "): " + v1::Verdict::Status_Name(verdict_.status());
    } else if (last_outcome_ == v1::ExplainAttempt::RETRY) {
      ended = "the tape ends after " + at;
    } else {
      switch (verdict_.status()) {
        case v1::Verdict::RESOLVED: ended = at + " confirmed the only match"; break;
        case v1::Verdict::DEADLINE:
          ended = "the deadline at " + Offset(deadline_) + " passed during " + at;
          break;
        case v1::Verdict::BYTE_BUDGET:
          ended = "the byte budget of " + Num(req_.bounds.byte_budget) + " bytes ran out during " + at;
          break;
        case v1::Verdict::ENTRY_BOUND:
        case v1::Verdict::NODE_BOUND:
        case v1::Verdict::DEPTH_BOUND:
        case v1::Verdict::FILE_BOUND:
          ended = "a bound ended " + at + ": " + v1::Verdict::Status_Name(verdict_.status());
          break;
        default:
          ended = at + " decided at once: " + v1::Verdict::Status_Name(verdict_.status());
          break;
      }
    }
    out_->set_ended_by(ended);
  }

  std::string Offset(std::int64_t t) const { return FormatOffset(t - start_); }

  const std::vector<Seen>& calls_;
  const Request& req_;
  const v1::Verdict& verdict_;
  const TokenMask& mask_;
  v1::ExplainCheck* out_;
  std::int64_t start_ = 0;
  std::int64_t deadline_ = 0;
  std::int64_t last_start_ = 0;
  v1::ExplainAttempt::Outcome last_outcome_ = v1::ExplainAttempt::OUTCOME_UNSPECIFIED;
  bool cut_ = false;                // the attempt being told was cut by the deadline
  std::string last_retry_reason_;   // of the last attempt that was retried
};

}  // namespace

v1::ExplainCheck ExplainRecordedCheck(const Snapshot& snapshot, std::size_t index) {
  const v1::Resolution& recorded = snapshot.resolutions.at(index);
  // The replay reads the token; what is told never shows it (replay/token_mask.h).
  const TokenMask mask = TokenMask::Of(snapshot);
  v1::ExplainCheck out;
  out.set_index(index);

  // The replay's outcome, as `proctape replay` reports it.
  v1::ReplayResult replay = ReplayResolution(snapshot, index, RequestOverrides{});
  out.set_replay(replay.outcome());
  out.set_observations(replay.consumed());
  out.set_recorded_observations(replay.recorded_count());

  // The same replay, watched.
  TapeEvidence tape(snapshot.observations, recorded.first_observation(),
                    recorded.observation_count());
  WatchingEvidence watch(tape);
  const std::vector<Seen>& calls = watch.seen();
  if (recorded.has_liveness()) {
    out.set_kind(v1::ExplainCheck::LIVENESS);
    *out.mutable_liveness() = recorded.liveness();
    LivenessVerdict v = CheckLiveness(watch, recorded.liveness().pid(),
                                      recorded.liveness().start_ticks());
    *out.mutable_liveness_verdict() = ToProto(v);
    if (!calls.empty() && calls[0].op == Seen::Op::kRead) {
      *out.mutable_liveness_read() = StatOf(calls[0].pid, calls[0].read);
    }
  } else {
    out.set_kind(v1::ExplainCheck::RESOLVE);
    *out.mutable_resolve() = recorded.resolve();
    Request request = FromProto(recorded.resolve());
    // As ReplayResolution runs it, without overrides.
    std::optional<Verdict> failed_fingerprint;
    std::size_t begin = 0;
    if (recorded.resolve().fingerprint_on_tape()) {
      out.set_fingerprinted(true);
      Verdict fingerprint = FingerprintRoot(watch, request.root_pid);
      if (!calls.empty()) *out.mutable_fingerprint() = StatOf(calls[0].pid, calls[0].read);
      begin = calls.size();
      if (fingerprint.resolved()) {
        request.root_start_ticks = fingerprint.start_ticks;
      } else {
        failed_fingerprint = fingerprint;
      }
    }
    Verdict v = failed_fingerprint ? *failed_fingerprint : Resolve(watch, request);
    *out.mutable_verdict() = ToProto(v);
    if (failed_fingerprint) {
      out.set_ended_by("the root's fingerprint failed: no attempt was made");
    } else {
      ResolveExplainer(calls, request, out.verdict(), mask, &out).Run(begin);
    }
  }

  // Past a divergence the tape answered nothing: what the resolver concluded
  // from the failures fed to it is no verdict (as in `proctape replay`).
  if (tape.diverged()) {
    out.clear_verdict();
    out.clear_liveness_verdict();
  }
  switch (replay.outcome()) {
    case v1::ReplayResult::VERDICT_CHANGED:
      out.set_replay_detail("the recorded verdict differs: this is what the resolver decides now");
      break;
    case v1::ReplayResult::DIVERGED:
      out.set_replay_detail("at observation " + Num(replay.divergence_index()) + " the tape holds " +
                            replay.recorded_call() + ", the resolver made " + replay.made_call() +
                            ": the explanation stops there");
      break;
    default: break;
  }
  mask.Mask(&out);
  return out;
}

v1::Explanation Explain(const Snapshot& snapshot, const std::string& file_name,
                        std::optional<std::size_t> only) {
  v1::Explanation out;
  out.set_file(EscapeBytes(file_name, 4096));
  out.set_recorded_checks(snapshot.resolutions.size());
  for (std::size_t i = 0; i < snapshot.resolutions.size(); ++i) {
    if (only && *only != i) continue;
    *out.add_checks() = ExplainRecordedCheck(snapshot, i);
  }
  return out;
}

}  // namespace proctape
