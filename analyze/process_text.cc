// SPDX-License-Identifier: Apache-2.0
#include "analyze/process_text.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "core/proc_parse.h"
#include "proto/convert.h"
#include "proto/summary.h"

namespace proctape {
namespace {

constexpr std::size_t kArgTextMax = 256;  // characters of one argv element in text
constexpr int kArgTextCount = 32;         // argv elements in text

std::string ErrnoText(int err) {
  const char* name = strerrorname_np(err);
  return name != nullptr ? std::string(name) : "errno " + std::to_string(err);
}

// Escaped text quoted, cut at `max` characters (never inside a \xNN escape)
// with "..." after the closing quote.
std::string QuotedCut(const std::string& escaped, std::size_t max) {
  if (escaped.size() <= max) return Quoted(escaped);
  std::size_t at = max;
  for (std::size_t back = 1; back <= 3 && back <= at; ++back) {
    if (escaped[at - back] == '\\') {
      at -= back;
      break;
    }
  }
  return Quoted(escaped.substr(0, at)) + "...";
}

template <typename T>
std::string Joined(const T& values) {
  std::string out;
  for (const auto& v : values) {
    if (!out.empty()) out += ",";
    out += std::to_string(v);
  }
  return out;
}

// "13106.56": seconds cut (not rounded) to hundredths, as `ps` shows a start.
std::string SecondsText(double seconds) {
  // The summary's seconds are whole seconds plus a fraction below one: cut at
  // hundredths with a margin far below a hundredth for the double's error.
  const double whole = std::floor(seconds);
  auto hundredths = static_cast<std::uint64_t>(std::floor((seconds - whole) * 100 + 1e-6));
  if (hundredths > 99) hundredths = 99;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.0f.%02llu", whole, static_cast<unsigned long long>(hundredths));
  return buf;
}

}  // namespace

v1::ProcessSummary Summarize(const ProcessView& p, std::int64_t clock_ticks_per_second) {
  v1::ProcessSummary s;
  s.set_pid(Int32(p.pid));
  if (p.stat) {
    s.set_identified(true);
    s.set_start_ticks(p.stat->start_ticks);
    s.set_comm(EscapedText(p.stat->comm));
    s.set_state(EscapedText(std::string_view(&p.stat->state, 1)));
    s.set_ppid(Int32(p.stat->ppid));
    s.set_pgrp(Int32(p.stat->pgrp));
    s.set_session(Int32(p.stat->session));
    if (clock_ticks_per_second >= 1 && clock_ticks_per_second <= 1'000'000) {
      const auto hz = static_cast<std::uint64_t>(clock_ticks_per_second);
      s.set_start_seconds(static_cast<double>(p.stat->start_ticks / hz) +
                          static_cast<double>(p.stat->start_ticks % hz) / static_cast<double>(hz));
    }
  } else {
    s.set_problem(EscapeBytes(p.stat_problem));
  }
  for (std::int64_t v : p.nspid) s.add_nspid(Int32(v));
  for (std::uint32_t v : p.uids) s.add_uids(v);
  *s.mutable_exe() = ToSummary(ToProto(p.exe));
  s.set_argv_read(p.cmdline_ok);
  if (!p.cmdline_ok && p.record != nullptr) s.set_argv_err(p.record->cmdline().err());
  for (const std::string& a : p.argv) s.add_argv(EscapedText(a));
  s.set_kernel_thread(p.kernel_thread);
  return s;
}

std::string Quoted(const std::string& escaped) { return DoubleQuoted(escaped); }

std::string IdentityText(std::int64_t pid, std::uint64_t start_ticks) {
  return std::to_string(pid) + "@" + std::to_string(start_ticks);
}

std::string ProcessFacts(const v1::ProcessSummary& p) {
  std::string out;
  if (p.identified()) {
    out = Quoted(p.comm()) + " " + p.state();
    if (p.kernel_thread()) out += " kthread";
    out += " ppid=" + std::to_string(p.ppid()) + " pgrp=" + std::to_string(p.pgrp()) +
           " sid=" + std::to_string(p.session()) + " start=" + std::to_string(p.start_ticks());
    if (p.has_start_seconds()) out += " (" + SecondsText(p.start_seconds()) + "s)";
  } else {
    out = "no identity (" + p.problem() + ")";
  }
  out += " uid=" + (p.uids().empty() ? std::string("?") : std::to_string(p.uids(0)));
  out += " nspid=" + (p.nspid().empty() ? std::string("?") : Joined(p.nspid()));
  out += " exe=" + ExeText(p.exe());
  out += " argv=" + ArgvText(p);
  return out;
}

std::string ExeText(const v1::IdentitySummary& id) {
  if (id.err() != 0) return "unreadable(" + ErrnoText(id.err()) + ")";
  return std::to_string(id.dev()) + ":" + std::to_string(id.ino());
}

std::string ArgvText(const v1::ProcessSummary& p) {
  std::string out;
  if (!p.argv_read()) {
    out += "unreadable(" + ErrnoText(p.argv_err()) + ")";
  } else if (p.argv().empty()) {
    out += "empty";
  } else {
    for (int i = 0; i < p.argv_size() && i < kArgTextCount; ++i) {
      if (i > 0) out += " ";
      out += QuotedCut(p.argv(i), kArgTextMax);
    }
    if (p.argv_size() > kArgTextCount) {
      out += " ...(" + std::to_string(p.argv_size() - kArgTextCount) + " more)";
    }
  }
  return out;
}

}  // namespace proctape
