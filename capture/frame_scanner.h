// SPDX-License-Identifier: Apache-2.0
// One frame of a capture: every process of the host (or of one subtree),
// read through an Evidence and handed, one v1::ProcessRecord at a time, to a
// callback (normally SnapshotWriter::AddProcess), so memory is bounded by one
// record and the writer's chunk, never by the host.
//
// Every record is what was observed, failures included: a read that fails
// keeps its errno (a process that vanished between the listing and the read:
// ENOENT or ESRCH; another user's environ: EACCES), an empty read stays empty
// (a zombie's cmdline), a read over its bound keeps `bound` bytes and says
// `truncated`. Nothing is parsed, trimmed or normalised; nothing aborts the
// scan except a bound.
//
// Bounds (ScanOptions), each recorded in the file:
//   - per file: stat 4096, cmdline 65536, environ 65536, cgroup 4096 bytes,
//     status 16384 bytes. The status bound is our choice: a status file is
//     about 1.5 KB today; 16 KB leaves room for 32 nested pid namespaces
//     (NSpid, NStgid, NSpgid, NSsid lines) and about 1,500 supplementary
//     groups, while a pathological Groups line (up to 65,536 groups, ~450 KB)
//     is cut and flagged `truncated` instead of growing every record.
//   - max_processes: records per frame (default 65536). Whole-host scans list
//     at most that many /proc entries; a listing that held more cuts the
//     frame ("max-processes") after recording the first max_processes.
//   - max_bytes: /proc bytes read by the frame (default 1 GiB). A process is
//     only started when its worst case (the sum of its file bounds) still
//     fits, so a frame never reads more than max_bytes and every record is
//     whole; the scan stops with "max-bytes" at the first one that does not.
//   - max_entries: /proc entries listed by the stat pass of a --root scan
//     (default 4194304, the kernel's PID_MAX_LIMIT); more cuts ("max-entries").
//
// Redaction: unless keep_environ, environ bytes are replaced by
// RedactEnviron(bytes, kept_entries) (core/redact.h: every value becomes
// '*' of the same length; kept entries stay verbatim) before they leave the
// scanner, and FileRead.redacted is set.
//
// Root mode (root_pid set): the root and every process whose parent chain
// (stat field 4) reaches it get a full record, in pid order (the order of a
// /proc listing); nothing else is recorded. The subtree is found one of two
// ways:
//   - walked (FrameCallbacks::children set, as capture sets it on a live
//     /proc): the root's stat, then breadth first each process's children
//     (ProcfsEvidence::ListChildren) and each child's stat, which must name
//     the child and the parent whose list held it (a pid reused meanwhile is
//     not followed). A frame then reads only the subtree's files: its cost
//     follows the subtree, not the host (a 10 ms watch of a sandbox on a
//     host of 10,000 processes). max_entries bounds the pids the lists may
//     name ("max-entries"); stats.walked is set and stats.listed is 0.
//   - by a stat pass over every listed entry, when no children source is
//     given or the kernel has none (ENOTSUP: CONFIG_PROC_CHILDREN unset).
// Either way the stat bytes read to find the subtree are the records' own.
// Memory also holds those stat bytes (bounded by max_bytes; about 300 bytes
// per process).
//
// Parallel scan (ScanFrameParallel): the same frame, read by worker threads,
// each through its own Evidence (ScanWorker; an Evidence is not thread-safe,
// so no two threads ever share one). The calling thread lists /proc, reads the
// clock and (root mode) does the stat pass through `evidence`, as ScanFrame
// does; the per-process reads are cut into batches of consecutive processes
// (ParallelScanOptions::batch) in listing order, which the workers take in
// order; the calling thread hands the records of completed batches to the
// callback strictly in listing order, so the records and their order are those
// of ScanFrame on the same (static) source. At most
// ParallelScanOptions::batches_in_flight batches are read and not yet handed
// over, so memory stays bounded by that window, never by the host.
//   - max_bytes: a process is dispatched only when its worst case fits even
//     if every dispatched process not yet handed over takes its own worst
//     case; when that cannot be decided the dispatcher waits for the batches
//     before it (their exact byte counts), and decides as ScanFrame does. So
//     the frame never reads more than max_bytes, and the first process that
//     does not fit (the "max-bytes" cut) is the same one as ScanFrame's.
//   - max_processes: the same count, the same cut.
//   - a callback returning false stops the scan: no new batch is dispatched,
//     the workers stop before their next process, and the records they had
//     read after the failing one are dropped. This is the one difference
//     from ScanFrame: a few processes after the failing one (at most the
//     window) may have been read; bytes_read and processes count, as in
//     ScanFrame, only what was handed to the callback.
//   - on a live host the reads of one frame interleave differently in time
//     (a process later in the listing may be read before an earlier one);
//     every read still lies between scan_start_mono_ns and scan_end_mono_ns.
#pragma once

#include <cstdint>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/evidence.h"
#include "proctape.pb.h"

namespace proctape {

struct ScanOptions {
  std::uint64_t max_processes = 65536;
  std::uint64_t max_bytes = 1ull << 30;
  std::uint64_t max_entries = 4194304;
  std::uint64_t stat_bytes = 4096;
  std::uint64_t cmdline_bytes = 65536;
  std::uint64_t environ_bytes = 65536;
  std::uint64_t status_bytes = 16384;
  std::uint64_t cgroup_bytes = 4096;
  bool keep_environ = false;
  std::vector<std::string> kept_entries;  // kept verbatim when redacting
  std::optional<std::int64_t> root_pid;   // only this process and its descendants

  // The most one process record can read: the sum of the file bounds.
  std::uint64_t WorstCaseProcessBytes() const {
    return stat_bytes + cmdline_bytes + environ_bytes + status_bytes + cgroup_bytes;
  }
};

// Cut reasons (ScanStats::cut_reason, Frame.cut_reason).
inline constexpr const char* kCutMaxProcesses = "max-processes";
inline constexpr const char* kCutMaxBytes = "max-bytes";
inline constexpr const char* kCutMaxEntries = "max-entries";
// Not the scan's: the capture's file reached a count limit (format/file_format.h).
inline constexpr const char* kCutFileLimit = "file-limit";

struct ScanStats {
  std::uint64_t processes = 0;   // records handed to the callback
  std::uint64_t bytes_read = 0;  // /proc bytes read (stat pass included)
  std::string cut_reason;        // "" or one of kCut*
  std::int64_t scan_start_mono_ns = 0;
  std::int64_t scan_end_mono_ns = 0;
  std::uint64_t listed = 0;         // numeric /proc entries listed
  std::uint64_t skipped_names = 0;  // listed names that are not canonical pids
  int list_err = 0;                 // errno of the listing itself (no records then)
  bool root_found = false;          // root mode: the root was listed (walked: its stat was there)
  bool walked = false;              // root mode: the subtree was walked through children
  bool sink_failed = false;         // the record callback returned false
};

// Identity of /proc/PID/ns/pid (ProcfsEvidence::PidNamespace); may be empty.
using PidNamespaceFn = std::function<Identity(std::int64_t pid)>;

// The children of one process, at most `bound` appended to *children (more:
// *truncated); returns 0, an errno (the process is gone: no children), or
// ENOTSUP (no such source on this kernel). ProcfsEvidence::ListChildren.
using ChildrenFn = std::function<int(std::int64_t pid, std::uint64_t bound,
                                     std::vector<std::int64_t>* children, bool* truncated)>;

struct FrameCallbacks {
  // Called once, first, with the scan's start time (before the listing).
  std::function<void(std::int64_t scan_start_mono_ns)> begin;
  // Called per record, in /proc listing order; returning false stops the scan.
  std::function<bool(v1::ProcessRecord&&)> record;
  // Root mode: when set, the subtree is walked through it instead of found
  // by a stat pass over every listed entry (see "Root mode" above). Its
  // ENOTSUP on the root falls back to the stat pass (bytes_read keeps the
  // root's stat read before it).
  ChildrenFn children;
};

// Scans one frame. Times are evidence.NowNs() at the start and at the end.
ScanStats ScanFrame(Evidence& evidence, const ScanOptions& options, const PidNamespaceFn& pid_ns,
                    const FrameCallbacks& callbacks);

// One reading thread of a parallel scan: an Evidence of its own, used by that
// thread only, and the pid-namespace identity source bound to it (may be
// empty: then no record has a pid_ns).
struct ScanWorker {
  std::unique_ptr<Evidence> evidence;
  PidNamespaceFn pid_ns;
};

struct ParallelScanOptions {
  std::size_t batch = 64;             // consecutive processes per batch (>= 1)
  std::size_t batches_in_flight = 0;  // read, not yet handed over; 0: 2 per worker
};

// ScanFrame with the per-process reads done by one thread per worker (see
// "Parallel scan" above). `evidence` and `pid_ns` serve the calling thread:
// the listing, the clock and the stat pass of root mode; without workers (or
// when no thread can be started) this is ScanFrame itself. The workers may be
// reused for the next frame.
ScanStats ScanFrameParallel(Evidence& evidence, const ScanOptions& options,
                            const PidNamespaceFn& pid_ns, std::vector<ScanWorker>& workers,
                            const FrameCallbacks& callbacks,
                            const ParallelScanOptions& parallel = {});

}  // namespace proctape
