// SPDX-License-Identifier: Apache-2.0
// The text of an ownership plan (`proctape ownership` without --json).
#include <cctype>
#include <string>

#include "ownership/ownership.h"
#include "ownership/frames.h"
#include "analyze/process_text.h"
#include "core/proc_parse.h"

namespace proctape {
namespace {

using Decision = v1::OwnershipDecision;
using ownership::At;

// "NOT_AT_BOOTSTRAP" -> "not-at-bootstrap".
std::string Token(const std::string& enum_name) {
  std::string out;
  for (char c : enum_name)
    out.push_back(c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return out;
}

std::string ReasonToken(const Decision& d) {
  switch (d.reason()) {
    case Decision::VERIFIER: return "verifier";
    case Decision::VERIFIER_ANCESTOR: return "ancestor";
    case Decision::IN_BASELINE: return "baseline";
    case Decision::NEW: return "new";
    case Decision::PID_REUSED:
      return "pid-reused (baseline " + At(d.pid(), d.baseline_start_ticks()) + ")";
    case Decision::OTHER_UID: return "other-uid " + std::to_string(d.uid());
    case Decision::OTHER_CGROUP: return "other-cgroup " + QuoteEscaped(d.cgroup());
    case Decision::VANISHED: return "vanished";
    case Decision::KERNEL_THREAD: return "kernel-thread";
    default: return "?";
  }
}

std::string ActionToken(Decision::Action action) {
  switch (action) {
    case Decision::KEEP: return "KEEP";
    case Decision::REMOVE: return "REMOVE";
    case Decision::OUT_OF_SCOPE: return "OUT";
    case Decision::EXITED: return "GONE";
    default: return "?";
  }
}

std::string Pad(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

}  // namespace

std::string DescribeProblem(const v1::OwnershipProblem& p) {
  std::string out = Token(v1::OwnershipProblem::Kind_Name(p.kind()));
  if (!p.snapshot().empty()) {
    out += " " + p.snapshot();
    if (p.kind() != v1::OwnershipProblem::NO_FRAME) out += " frame " + std::to_string(p.frame());
  }
  if (p.kind() == v1::OwnershipProblem::OTHER_SESSION) {
    out += " session " + std::to_string(p.pid());  // a session id, not a process
  } else if (p.pid() != 0) {
    out +=
        " pid " + (p.start_ticks() != 0 ? At(p.pid(), p.start_ticks()) : std::to_string(p.pid()));
  }
  return out + ": " + p.detail();
}

std::string DescribePlan(const v1::OwnershipPlan& plan) {
  const bool planned = plan.outcome() == v1::OwnershipPlan::PLANNED;
  std::string out = "ownership plan for uid " + std::to_string(plan.uid()) + ", cgroup " +
                    QuoteEscaped(plan.cgroup()) + ", verifier " +
                    (plan.self_start_ticks() != 0 ? At(plan.self_pid(), plan.self_start_ticks())
                                                  : std::to_string(plan.self_pid())) +
                    "\n";
  auto source = [&](const char* label, const std::string& file, std::uint64_t frame,
                    std::int64_t capturer) {
    out += label + QuoteEscaped(file);
    if (planned) out += ", frame " + std::to_string(frame);
    if (capturer != 0) out += ", captured by pid " + std::to_string(capturer);
    out += "\n";
  };
  source("  baseline ", plan.baseline_file(), plan.baseline_frame(), plan.baseline_capturer_pid());
  source("  current  ", plan.current_file(), plan.current_frame(), plan.current_capturer_pid());
  if (!planned) {
    out += "REFUSED: " +
           Plural(static_cast<std::uint64_t>(plan.problems_size()), "problem", "problems") +
           "; no process is planned\n";
    for (const v1::OwnershipProblem& p : plan.problems()) out += "  " + DescribeProblem(p) + "\n";
    return out;
  }
  for (const v1::OwnershipDecision& d : plan.decisions()) {
    std::string reason = ReasonToken(d);
    if (d.current_capturer()) reason += " [took the current snapshot]";
    std::string line = Pad(ActionToken(d.action()), 7) + Pad(At(d.pid(), d.start_ticks()), 18) +
                       " " + Pad(reason, 10) + "  comm " + QuoteEscaped(d.comm()) + "  argv";
    if (d.argv().empty()) line += " (empty)";
    for (const std::string& a : d.argv()) line.append(" ").append(QuoteEscaped(a));
    out += line + "\n";
  }
  for (const v1::DeclaredOutput& o : plan.outputs()) {
    out += "OUTPUT " + QuoteEscaped(o.path()) + ": " + o.detail() + "\n";
  }
  out += "PLANNED: " + std::to_string(plan.kept() + plan.removed()) +
         " in scope: " + std::to_string(plan.kept()) + " to keep, " +
         std::to_string(plan.removed()) + " to remove; " + std::to_string(plan.out_of_scope()) +
         " out of scope, " + std::to_string(plan.exited()) +
         " vanished during the scan. Nothing was signalled.\n";
  if (plan.outputs_size() > 0) {
    out += "OUTPUTS: " + std::to_string(plan.outputs_size()) +
           " declared: " + std::to_string(plan.outputs_present()) + " present, " +
           std::to_string(plan.outputs_absent()) + " already absent. Nothing was deleted.\n";
  }
  return out;
}

}  // namespace proctape
