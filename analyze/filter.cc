// SPDX-License-Identifier: Apache-2.0
#include "analyze/filter.h"

#include "analyze/process_text.h"
#include "proto/summary.h"

namespace proctape {

bool MatchesFacts(const ProcessFilter& f, const ProcessView& p) {
  if (f.uid && p.real_uid() != f.uid) return false;
  if (f.comm && (!p.stat || p.stat->comm != *f.comm)) return false;
  return true;
}

bool Selects(const ProcessFilter& f, const ProcessView& p) {
  return (!f.pid || p.pid == *f.pid) && MatchesFacts(f, p);
}

v1::ProcessFilter FilterMessage(const ProcessFilter& f) {
  v1::ProcessFilter out;
  if (f.pid) out.set_pid(Int32(*f.pid));
  if (f.uid) out.set_uid(*f.uid);
  if (f.comm) out.set_comm(EscapedText(*f.comm));
  return out;
}

std::string FilterText(const v1::ProcessFilter& f, bool pid_subtree) {
  std::string out;
  auto add = [&out](const std::string& part) { out += (out.empty() ? "" : " ") + part; };
  if (f.has_pid()) {
    add("--pid " + std::to_string(f.pid()) + (pid_subtree ? " and its descendants" : ""));
  }
  if (f.has_uid()) add("--uid " + std::to_string(f.uid()));
  if (f.has_comm()) add("--comm " + Quoted(f.comm()));
  return out;
}

}  // namespace proctape
