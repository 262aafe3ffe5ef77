// SPDX-License-Identifier: Apache-2.0
// The live Linux Evidence: one directory descriptor of a /proc mount, and
// openat/read/fstatat relative to it. Open takes only the root of a procfs
// mount (statfs PROC_SUPER_MAGIC, the root inode): any other directory holds
// no live process, and reading it as a host would give verdicts about
// processes it never saw (a live process DEAD). A /proc-like directory is
// imported with ProcDirEvidence (procdir/evidence.h) instead.
// Nothing outside that directory is ever opened; the only path outside it
// that is touched is the one PathIdentity is asked for, and only by stat(2).
// Read-only: it never signals, ptraces or writes to a process.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/evidence.h"
#include "core/failure.h"

namespace proctape {

class ProcfsEvidence : public Evidence {
 public:
  // Opens `proc_root` (normally "/proc"), which must be the root of a procfs
  // mount. On failure returns null with *failure (docs/architecture.md,
  // "Errors"): kUsage for a directory that is not the root of a procfs mount
  // ("PATH: not the root of a procfs mount (...)"), kInternal when open(2)
  // or fstatfs(2) failed ("cannot open PATH: ERRNO", the errno kept).
  static std::unique_ptr<ProcfsEvidence> Open(const std::string& proc_root, Failure* failure);
  ~ProcfsEvidence() override;
  ProcfsEvidence(const ProcfsEvidence&) = delete;
  ProcfsEvidence& operator=(const ProcfsEvidence&) = delete;

  // Results view buffers of this object, valid until its next call
  // (core/evidence.h).
  ListResult ListPids(std::uint64_t bound) override;
  // Counts the bytes of every directory entry read (d_reclen) and stops past
  // max_bytes, or when its clock (read at the first entry, then every 256)
  // is past the deadline.
  ListResult ListPidsWithin(const ListLimits& limits) override;
  // Reads at most bound + 1 bytes, so a file of exactly `bound` bytes is whole
  // and one byte more is `truncated`. EINTR is retried.
  ReadResult ReadFile(std::int64_t pid, ProcFile file, std::uint64_t bound) override;
  Identity ExeIdentity(std::int64_t pid) override;
  Identity PathIdentity(const std::string& path) override;
  // st_dev + st_ino of the pid namespace /proc/PID/ns/pid links to (the
  // capturer's own addition; not part of the Evidence interface). Needs
  // ptrace-read access to PID: another user's process gives EACCES.
  Identity PidNamespace(std::int64_t pid);
  std::int64_t NowNs() override;
  void SleepUntil(std::int64_t mono_ns) override;
  // The children of PID (another addition of the capturer, for a --root
  // scan that reads only the subtree; capture/procfs_children.cc): the pids,
  // as this mount numbers them, listed by /proc/PID/task/TID/children of each
  // of its threads, appended to *children in the order read. Returns 0, the
  // errno of the task directory (ENOENT or ESRCH: PID is gone), or ENOTSUP
  // when this kernel has no children files (CONFIG_PROC_CHILDREN unset, or
  // older than 3.5): the caller then finds the subtree another way. At most
  // `bound` pids are appended; more sets *truncated.
  int ListChildren(std::int64_t pid, std::uint64_t bound, std::vector<std::int64_t>* children,
                   bool* truncated);

 private:
  explicit ProcfsEvidence(int proc_fd) : proc_fd_(proc_fd) {}
  int proc_fd_;
  std::vector<char> buffer_;        // reused across reads; holds bound + 1 bytes; what a read views
  std::vector<std::string> names_;  // the last listing; what its names view
};

}  // namespace proctape
