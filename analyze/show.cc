// SPDX-License-Identifier: Apache-2.0
#include "analyze/show.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <set>
#include <utility>
#include <string_view>

#include "analyze/process_table.h"
#include "analyze/process_text.h"
#include "core/checked.h"
#include "core/proc_parse.h"
#include "format/previous_frame.h"
#include "replay/token_mask.h"

namespace proctape {
namespace {

std::uint64_t TruncatedReads(const v1::Frame& frame) {
  std::uint64_t n = 0;
  for (const v1::ProcessRecord& r : frame.processes()) n += proctape::TruncatedReads(r);
  return n;
}

v1::ShowReport::Resolution SummarizeResolution(const v1::Resolution& r, std::size_t index,
                                               std::size_t observations_read,
                                               const v1::Header& header) {
  v1::ShowReport::Resolution s;
  s.set_index(Count32(index));
  if (r.has_resolve()) {
    const v1::ResolutionRequest& q = r.resolve();
    s.set_kind("resolve");
    s.set_root_pid(Int32(q.root_pid()));
    s.set_root_start_ticks(q.root_start_ticks());
    s.set_fingerprint_on_tape(q.fingerprint_on_tape());
    s.set_token_var(EscapedText(q.token_var()));
    s.set_token_bytes(Count32(q.token().size()));
    for (const std::string& a : q.argv()) s.add_argv(EscapedText(a));
    s.set_exe_path(EscapedText(q.exe_path()));
    *s.mutable_exe_identity() = ToSummary(q.exe_identity());
    if (q.has_fingerprint()) {
      *s.mutable_fingerprint() = ToSummary(q.fingerprint(), header.host().boot_id());
    }
  } else if (r.has_liveness()) {
    s.set_kind("liveness");
    s.set_pid(Int32(r.liveness().pid()));
    s.set_start_ticks(r.liveness().start_ticks());
  }
  if (r.has_verdict()) *s.mutable_verdict() = ToSummary(r.verdict());
  if (r.has_liveness_verdict()) *s.mutable_liveness_verdict() = ToSummary(r.liveness_verdict());
  s.set_first_observation(Count32(r.first_observation()));
  s.set_observation_count(Count32(r.observation_count()));
  s.set_observations_read(r.first_observation() <= observations_read &&
                          r.observation_count() <= observations_read - r.first_observation());
  s.set_start_mono_ns(r.start_mono_ns());
  s.set_end_mono_ns(r.end_mono_ns());
  return s;
}

}  // namespace

std::int64_t Span(std::int64_t a, std::int64_t b) { return ElapsedNs(a, b); }

ShowBuilder::ShowBuilder(const std::string& name, const ProcessFilter& filter) : filter_(filter) {
  report_.set_file(name);
}

ShowBuilder::~ShowBuilder() {
  if (spool_fd_ >= 0) ::close(spool_fd_);
}

// Appends one frame's serialized selection to the memory file (made at the
// first), or to spool_ when it cannot be made or written.
void ShowBuilder::Keep(const std::string& bytes) {
  if (spool_fd_ < 0 && spans_.empty()) spool_fd_ = ::memfd_create("proctape-show", MFD_CLOEXEC);
  Kept span;
  span.size = bytes.size();
  std::size_t done = 0;
  while (spool_fd_ >= 0 && done < bytes.size()) {
    const ssize_t w = ::pwrite(spool_fd_, bytes.data() + done, bytes.size() - done,
                               static_cast<off_t>(spool_size_ + done));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    done += static_cast<std::size_t>(w);
  }
  if (spool_fd_ >= 0 && done == bytes.size()) {
    span.offset = spool_size_;
    spool_size_ += bytes.size();
  } else {
    span.in_memory = true;
    span.offset = spool_.size();
    spool_ += bytes;
  }
  spans_.push_back(span);
}

v1::ShowReport::Selection ShowBuilder::Selection(int position) const {
  v1::ShowReport::Selection selection;
  if (position < 0 || static_cast<std::size_t>(position) >= spans_.size()) return selection;
  const Kept& span = spans_[static_cast<std::size_t>(position)];
  std::string bytes;
  if (span.in_memory) {
    bytes = spool_.substr(span.offset, span.size);
  } else {
    bytes.resize(span.size);
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::pread(spool_fd_, bytes.data() + done, bytes.size() - done,
                                static_cast<off_t>(span.offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    bytes.resize(done);  // a memory file read short: what was read
  }
  selection.ParseFromString(bytes);
  mask_.Mask(&selection);
  return selection;
}

void ShowBuilder::SetHeader(const v1::Header& h) {
  header_ = h;
  v1::ShowReport& report = report_;
  report.set_format_version(h.format_version());
  report.set_tool_version(Printable(h.tool_version()));
  for (const std::string& arg : h.command_line()) report.add_command_line(EscapedText(arg));
  // A fact the file does not hold is unknown: absent, and named in `unknown`
  // (an import of a fixture records no fact of the machine that imported it).
  const v1::HostFacts& host = h.host();
  std::string_view boot = host.boot_id();
  if (!boot.empty() && boot.back() == '\n') boot.remove_suffix(1);
  auto known = [&report](const char* fact, bool is_known) {
    if (!is_known) report.add_unknown(fact);
    return is_known;
  };
  if (known("hostname", !host.hostname().empty())) {
    report.set_hostname(EscapedText(host.hostname()));
  }
  if (known("kernel_release", !host.kernel_release().empty())) {
    report.set_kernel_release(EscapedText(host.kernel_release()));
  }
  if (known("boot_id", !boot.empty())) report.set_boot_id(EscapedText(boot));
  if (known("pid_max", host.pid_max() != 0)) report.set_pid_max(Int32(host.pid_max()));
  if (known("clock_ticks_per_second", host.clock_ticks_per_second() != 0)) {
    report.set_clock_ticks_per_second(Int32(host.clock_ticks_per_second()));
  }
  if (known("page_size", host.page_size() != 0)) {
    report.set_page_size(static_cast<double>(host.page_size()));
  }
  report.set_capture_start_realtime_ns(h.capture_start_realtime_ns());
  report.set_capture_start_utc(UtcText(h.capture_start_realtime_ns()));
  report.set_capture_start_mono_ns(h.capture_start_mono_ns());
  report.set_capturer_pid(Int32(h.capturer_pid()));
  report.set_capturer_uid(h.capturer_uid());
  if (known("capturer_pid_ns_inode", h.capturer_pid_ns_inode() != 0)) {
    report.set_capturer_pid_ns_inode(h.capturer_pid_ns_inode());
    report.set_capturer_in_initial_pid_ns(h.capturer_pid_ns_inode() == kInitialPidNsInode);
  }
  if (h.has_bounds()) *report.mutable_bounds() = ToSummary(h.bounds());

  switch (h.redaction().environ()) {
    case v1::RedactionPolicy::ENVIRON_REDACTED: report.set_environ("REDACTED"); break;
    case v1::RedactionPolicy::ENVIRON_KEPT:
      report.set_environ("KEPT");
      report.set_warning(
          "environment values are stored as read (--env keep): this file holds "
          "whatever secrets the captured environments held");
      break;
    // No policy stated (a fingerprint file, or a value this proctape does
    // not know): unknown, absent, as every fact the file does not hold.
    default: known("environ", false); break;
  }
  for (const std::string& entry : h.redaction().kept_entries()) {
    v1::ShowReport::KeptEntry* k = report.add_kept_entries();
    const std::size_t eq = entry.find('=');
    k->set_name(EscapedText(std::string_view(entry).substr(0, eq)));
    k->set_value_bytes(eq == std::string::npos ? 0 : Count32(entry.size() - eq - 1));
  }
}

void ShowBuilder::AddFrame(const v1::Frame& f) {
  const std::size_t i = static_cast<std::size_t>(report_.frames_size());
  const std::vector<ProcessView> table = ProcessTable(f);
  v1::ShowReport::Frame* s = report_.add_frames();
  s->set_position(Count32(i));
  s->set_index(Count32(f.index()));
  s->set_scan_start_mono_ns(f.scan_start_mono_ns());
  s->set_scan_end_mono_ns(f.scan_end_mono_ns());
  if (f.complete()) {
    s->set_scan_ns(static_cast<double>(Span(f.scan_start_mono_ns(), f.scan_end_mono_ns())));
  }
  s->set_records(Count32(static_cast<std::uint64_t>(f.processes_size())));
  s->set_processes(Count32(table.size()));
  std::uint64_t unidentified = 0;
  for (const ProcessView& p : table) unidentified += p.has_identity() ? 0 : 1;
  s->set_unidentified(Count32(unidentified));
  s->set_truncated_reads(Count32(TruncatedReads(f)));
  s->set_bytes_read(static_cast<double>(f.bytes_read()));
  s->set_complete(f.complete());
  s->set_cut_by_bounds(f.cut_by_bounds());
  s->set_cut_reason(Printable(f.cut_reason()));
  s->set_before_resolution(-1);  // Finish: the resolutions come after the frames
  processes_ += static_cast<std::uint64_t>(f.processes_size());
  if (filter_.any()) {
    s->mutable_selected();  // present, empty: the processes are kept apart
    v1::ShowReport::Selection chosen;
    for (const ProcessView& p : table) {
      if (!Selects(filter_, p)) continue;
      *chosen.add_processes() = Summarize(p, header_.host().clock_ticks_per_second());
      selected_.insert({p.pid, p.start_ticks()});
    }
    Keep(chosen.SerializeAsString());
  }
}

v1::ShowReport ShowBuilder::Finish(const ShowTail& tail, const FormatError& error) {
  v1::ShowReport& report = report_;
  report.set_intact(error.ok());
  report.set_error_kind(FormatErrorName(error.kind));
  report.set_error(Printable(error.message));
  report.set_chunks(Count32(tail.chunks));
  report.set_bytes(static_cast<double>(tail.bytes));
  if (tail.footer) report.set_capture_end_mono_ns(tail.footer->capture_end_mono_ns());
  report.set_footer(tail.footer != nullptr);
  const std::vector<v1::Resolution>& resolutions = *tail.resolutions;
  for (v1::ShowReport::Frame& s : *report.mutable_frames()) {
    for (std::size_t r = 0; r < resolutions.size(); ++r) {
      if (s.complete() && resolutions[r].start_mono_ns() >= s.scan_end_mono_ns()) {
        s.set_before_resolution(Int32(static_cast<std::int64_t>(r)));
        break;
      }
    }
  }
  report.set_processes(Count32(processes_));
  if (filter_.any()) {
    *report.mutable_filter() = FilterMessage(filter_);
    report.set_selected(Count32(selected_.size()));
  }
  report.set_observations(Count32(tail.observations));
  for (std::size_t i = 0; i < resolutions.size(); ++i) {
    *report.add_resolutions() = SummarizeResolution(resolutions[i], i, tail.observations, header_);
  }
  for (const v1::RootFingerprint& f : *tail.fingerprints) {
    *report.add_fingerprints() = ToSummary(f, header_.host().boot_id());
  }
  // The command line that wrote the file (`--token VALUE`) and any other byte
  // shown: the token's length at most, never its value.
  mask_ = TokenMask::Of(header_, resolutions);
  mask_.Mask(&report);
  return std::move(report);
}

v1::ShowReport BuildShow(const Snapshot& snap, const FormatError& error, const std::string& name,
                         const ProcessFilter& filter) {
  ShowBuilder builder(name, filter);
  builder.SetHeader(snap.header);
  for (const v1::Frame& f : snap.frames) builder.AddFrame(f);
  v1::ShowReport report =
      builder.Finish({snap.chunks, snap.bytes, snap.footer ? &*snap.footer : nullptr,
                      snap.observations.size(), &snap.resolutions, &snap.fingerprints},
                     error);
  for (int i = 0; i < report.frames_size(); ++i) {
    v1::ShowReport::Frame* frame = report.mutable_frames(i);
    if (frame->has_selected()) *frame->mutable_selected() = builder.Selection(i);
  }
  return report;
}

}  // namespace proctape
