// SPDX-License-Identifier: Apache-2.0
#include "analyze/explain_candidate.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "analyze/explain.h"
#include "analyze/process_text.h"
#include "core/proc_parse.h"
#include "proto/convert.h"
#include "proto/summary.h"

namespace proctape::explain {
namespace {

using Why = v1::ExplainCandidate::Why;

// Any integer, in decimal.
template <typename T>
std::string Num(T v) {
  return std::to_string(v);
}

std::string Where(std::int64_t pid, ProcFile file) {
  return "/proc/" + Num(pid) + "/" + std::string(ProcFileName(file));
}

std::string Errno(int err) { return "errno " + std::to_string(err); }

std::string DevIno(std::uint64_t dev, std::uint64_t ino) { return Num(dev) + ":" + Num(ino); }

std::string Entries(std::uint32_t n, const std::string& var) {
  return n == 1 ? "one " + var + " entry" : Num(n) + " " + var + " entries";
}

void ReadFailed(v1::ExplainCandidate* k, ProcFile file, int err, const std::string& before) {
  std::string what =
      file == ProcFile::kExe ? "its executable" : "its " + std::string(ProcFileName(file));
  if (Vanished(err)) {
    k->set_why(v1::ExplainCandidate::VANISHED);
    k->set_detail(before + "gone before " + what + " was read (" + Errno(err) + ")");
  } else {
    k->set_why(v1::ExplainCandidate::UNREADABLE);
    k->set_detail(before + Where(k->pid(), file) + " is unreadable (" + Errno(err) + ")");
  }
}

}  // namespace

void InspectCandidate(const Seen& c, const v1::ExplainStat* scanned, const TokenMask& mask,
                      v1::ExplainCandidate* k) {
  k->set_pid(Int32(c.pid));
  if (scanned != nullptr) {
    k->set_start_ticks(scanned->start_ticks());
    k->set_ppid(scanned->ppid());
    k->set_comm(scanned->comm());
    k->set_state(scanned->state());
  }
  k->set_cmdline_err(c.read.err);
  k->set_cmdline_truncated(c.read.truncated);
  if (c.read.ok()) {
    // Masked here, before a detail quotes (and cuts) them.
    for (std::string_view arg : SplitNul(c.read.data)) k->add_argv(EscapedText(mask.Masked(arg)));
    k->set_cmdline_unterminated(!c.read.truncated && !c.read.data.empty() &&
                                c.read.data.back() != '\0');
  }
}

// Counts the entries named the token variable; their values are not kept.
void RecordEnviron(const ReadResult& r, const Request& request, v1::ExplainCandidate* k) {
  k->set_argv_exact(true);
  k->set_environ_read(true);
  k->set_environ_err(r.err);
  k->set_environ_truncated(r.truncated);
  if (!r.ok() || r.truncated) return;
  std::uint32_t named = 0;
  std::uint32_t carrying = 0;
  for (std::string_view entry : SplitNul(r.data)) {
    std::size_t eq = entry.find('=');
    if (eq == std::string_view::npos || entry.substr(0, eq) != request.token_var) continue;
    ++named;
    if (entry.substr(eq + 1) == request.token) ++carrying;
  }
  k->set_token_entries(named);
  k->set_token_carrying(carrying);
}

void RecordReread(const Seen& c, const v1::ExplainStat* scanned, const Request& request,
                  v1::ExplainCandidate* k) {
  v1::ExplainAncestor* link = k->add_ancestry();
  link->set_pid(Int32(c.pid));
  bool root = c.pid == request.root_pid;
  if (scanned != nullptr) {
    link->set_scanned_start_ticks(scanned->start_ticks());
    link->set_scanned_ppid(scanned->ppid());
  }
  *link->mutable_reread() = StatOf(c.pid, c.read.view());
  const v1::ExplainStat& r = link->reread();
  std::string who = root ? "root " + Num(c.pid) : "pid " + Num(c.pid);
  std::string detail;
  if (r.err() != 0) {
    detail = who + (Vanished(r.err()) ? " is gone (" : " is unreadable (") + Errno(r.err()) + ")";
  } else if (r.truncated()) {
    detail = who + ": stat larger than " + Plural(request.bounds.stat_bytes, "byte", "bytes");
  } else if (!r.parsed()) {
    detail = who + ": stat does not parse: " + r.parse_error();
  } else if (r.start_ticks() != link->scanned_start_ticks()) {
    detail = who + " now started at tick " + Num(r.start_ticks()) + ", not " +
             Num(link->scanned_start_ticks());
  } else if (r.ppid() != link->scanned_ppid()) {  // the root's parent too (step 7)
    detail = who + " now has parent " + Num(r.ppid()) + ", not " + Num(link->scanned_ppid());
  } else if (c.pid == k->pid() && (r.state() == "Z" || r.state() == "X" || r.state() == "x")) {
    detail = who + " is dead (state " + r.state() + ")";
  } else {
    link->set_unchanged(true);
    detail = who + ": start tick " + Num(r.start_ticks()) + ", parent " + Num(r.ppid()) +
             ", state " + r.state() + ": unchanged";
  }
  link->set_detail(detail);
}

// `docs/resolver.md`, "The eight steps", steps 5-8, as the resolver took them:
// cmdline, environ (and the stat re-read after an empty one), executable
// identity, ancestry re-read.
void DecideCandidate(const CandidateCalls& at, const Stop& stopped_at, const Request& request,
                     v1::ExplainCandidate* k) {
  auto set = [k](Why why, std::string detail) {
    k->set_why(why);
    k->set_detail(std::move(detail));
  };
  auto stopped = [&stopped_at](std::size_t j) {
    return stopped_at.at != kNoCall && j == stopped_at.at;
  };
  // "...stopped after reading its cmdline: DEADLINE", as a candidate's why.
  const Why halt = stopped_at.why;
  const std::string stop = halt == v1::ExplainCandidate::UNANSWERED
                               ? "the replay stopped after reading its "
                               : "the resolution stopped after reading its ";
  const std::string& status = stopped_at.said;
  if (stopped(at.cmdline)) return set(halt, stop + "cmdline: " + status);
  if (k->cmdline_err() != 0) return ReadFailed(k, ProcFile::kCmdline, k->cmdline_err(), "");
  if (k->cmdline_truncated()) {
    return set(v1::ExplainCandidate::CMDLINE_TOO_LONG,
               "cmdline larger than " + Plural(request.bounds.cmdline_bytes, "byte", "bytes") +
                   ": cannot be the expected argv");
  }
  if (!k->environ_read()) {
    // `docs/resolver.md`, "One attempt", step 3: the cmdline is the argv
    // NUL-terminated, byte for byte.
    const std::string unterminated = k->cmdline_unterminated() ? " without the final NUL" : "";
    return set(v1::ExplainCandidate::ARGV_DIFFERS,
               k->argv().empty()
                   ? "argv empty (a kernel thread or a zombie): not the expected argv"
                   : "argv " + QuotedArgv(k->argv()) + unterminated + ": not the expected argv");
  }
  const std::string exact = "argv exact; ";
  if (stopped(at.environ)) {
    return set(halt, exact + stop + "environ: " + status);
  }
  if (k->environ_err() != 0) return ReadFailed(k, ProcFile::kEnviron, k->environ_err(), exact);
  if (k->environ_truncated()) {
    return set(v1::ExplainCandidate::ENVIRON_TOO_LARGE,
               exact + "environ larger than " +
                   Plural(request.bounds.environ_bytes, "byte", "bytes") +
                   ": the token cannot be checked");
  }
  const std::string var = EscapeBytes(request.token_var);
  if (k->has_environ_recheck()) {
    // Environ read empty: the resolver re-read stat to tell a process that
    // exited during inspection (retried) from one without a token.
    const v1::ExplainStat& r = k->environ_recheck();
    const std::string empty = exact + "environ empty, and its stat re-read ";
    const std::string exited = ": it exited during inspection";
    if (stopped(at.environ_recheck)) {
      return set(halt, exact + "environ empty; " + stop + "stat re-read: " + status);
    }
    if (r.err() != 0 && !Vanished(r.err())) {
      return set(v1::ExplainCandidate::UNREADABLE, exact + "environ empty; " +
                                                       Where(k->pid(), ProcFile::kStat) +
                                                       " is unreadable (" + Errno(r.err()) + ")");
    }
    if (r.err() != 0) {
      return set(v1::ExplainCandidate::VANISHED,
                 empty + "finds it gone (" + Errno(r.err()) + ")" + exited);
    }
    if (!r.parsed()) {
      return set(v1::ExplainCandidate::MALFORMED,
                 empty + (r.truncated() ? "is larger than " +
                                              Plural(request.bounds.stat_bytes, "byte", "bytes")
                                        : "does not parse: " + r.parse_error()));
    }
    if (r.state() == "Z" || r.state() == "X" || r.state() == "x") {
      return set(v1::ExplainCandidate::VANISHED,
                 empty + "shows it dead (state " + r.state() + ")" + exited);
    }
    if (r.start_ticks() != k->start_ticks()) {
      return set(v1::ExplainCandidate::VANISHED, empty + "shows pid " + Num(k->pid()) +
                                                     " started at tick " + Num(r.start_ticks()) +
                                                     ", not " + Num(k->start_ticks()) + exited);
    }
    return set(v1::ExplainCandidate::NO_TOKEN, empty + "shows it alive (state " + r.state() +
                                                   "): no " + var +
                                                   " entry: not this invocation's");
  }
  const std::uint32_t named = k->token_entries();
  const std::uint32_t carrying = k->token_carrying();
  if (named == 0) {
    return set(v1::ExplainCandidate::NO_TOKEN,
               exact + "environ has no " + var + " entry: not this invocation's");
  }
  if (carrying == 0) {
    return set(v1::ExplainCandidate::OTHER_TOKEN, exact + "environ has " + Entries(named, var) +
                                                      " with another token: another invocation's");
  }
  if (named != 1) {
    return set(v1::ExplainCandidate::TOKEN_TWICE, exact + "environ has " + Entries(named, var) +
                                                      ", " + Num(std::uint64_t{carrying}) +
                                                      " with the token: not exactly one");
  }
  std::string matched = exact + "environ has one " + var + " entry, with the token: a match";
  set(v1::ExplainCandidate::MATCH, matched);
  if (!k->exe_read()) return;
  if (stopped(at.exe)) {
    return set(halt, matched + "; " + stop + "exe identity: " + status);
  }
  const v1::IdentitySummary& exe = k->exe();
  if (exe.err() != 0) return ReadFailed(k, ProcFile::kExe, exe.err(), matched + "; ");
  if (exe.dev() != request.exe.dev || exe.ino() != request.exe.ino) {
    return set(v1::ExplainCandidate::EXE_MISMATCH,
               matched + "; exe " + DevIno(exe.dev(), exe.ino()) + ", not the attested " +
                   DevIno(request.exe.dev, request.exe.ino));
  }
  matched += "; exe " + DevIno(exe.dev(), exe.ino()) + " as attested";
  for (int i = 0; i < k->ancestry_size(); ++i) {
    const v1::ExplainAncestor& link = k->ancestry(i);
    if (stopped(at.ancestry[static_cast<std::size_t>(i)])) {
      return set(halt, matched + "; " + stop + "re-read of " + Where(link.pid(), ProcFile::kStat) +
                           ": " + status);
    }
    if (link.unchanged()) continue;
    const v1::ExplainStat& r = link.reread();
    bool root = link.pid() == request.root_pid;
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
  if (k->ancestry_size() > 0 && k->ancestry(k->ancestry_size() - 1).pid() == request.root_pid) {
    set(v1::ExplainCandidate::RESOLVED, matched + "; ancestry re-read: unchanged up to the root");
  }
}

}  // namespace proctape::explain
