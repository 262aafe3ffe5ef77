// SPDX-License-Identifier: Apache-2.0
// An in-memory Evidence: a fake host whose /proc is a table the test writes.
// Files are stored as ReadResults, so a test can make any read fail with any
// errno or return any bytes, hostile ones included. The clock is virtual:
// every call advances it by `call_cost_ns`, SleepUntil jumps to the target
// and then runs `on_sleep`, where a test changes the host between attempts.
// A read answers a view of bytes this object holds apart from the table, a
// listing views its list of names (core/evidence.h): valid until the next
// call of the same kind, whatever a test changes in the table meanwhile (a
// hook of a subclass may remove the process read, within the very call).
//
// Layout: a big host is scanned stat by stat in pid order, once per attempt.
// The stat files are therefore also kept as one column, every process's
// bytes one after the other in pid order, rebuilt by the first read after the
// table changed: a scan then reads memory in order instead of one scattered
// record per process
// (BENCHMARKS.md, "Round three: the host's stat column").
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/evidence.h"

namespace proctape {

class MemoryEvidence : public Evidence {
 public:
  // A process's files by kind, held inline (a read finds its file without a
  // tree walk): files[kind] adds or reaches one, as a map would.
  class FileTable {
   public:
    // Counts as a change of the host (the stat column is rebuilt).
    StoredRead& operator[](ProcFile file) {
      const auto i = static_cast<std::size_t>(file);
      if (changes_ != nullptr) ++*changes_;
      present_[i] = true;
      return files_[i];
    }
    // The file of that kind, or null when the process has none.
    const StoredRead* Get(ProcFile file) const {
      const auto i = static_cast<std::size_t>(file);
      return i < kKinds && present_[i] ? &files_[i] : nullptr;
    }
    void clear() {
      if (changes_ != nullptr) ++*changes_;
      for (std::size_t i = 0; i < kKinds; ++i) {
        present_[i] = false;
        files_[i] = StoredRead{};
      }
    }

   private:
    friend class MemoryEvidence;
    std::uint64_t* changes_ = nullptr;  // its host's count of changes
    static constexpr std::size_t kKinds = static_cast<std::size_t>(ProcFile::kExe) + 1;
    std::array<StoredRead, kKinds> files_;
    std::array<bool, kKinds> present_{};
  };
  struct Process {
    FileTable files;
    Identity exe;
  };

  // Adds (or replaces) a process with a well-formed stat, cmdline, environ
  // and status. `comm` is written inside the parentheses as given.
  Process& AddProcess(std::int64_t pid, std::int64_t ppid, std::uint64_t start_ticks,
                      const std::string& comm, const std::vector<std::string>& argv,
                      const std::vector<std::string>& environ, Identity exe, char state = 'S');
  void Remove(std::int64_t pid) {
    procs_.erase(pid);
    names_stale_ = true;
    ++*changes_;
  }
  Process* Find(std::int64_t pid);
  // Replaces one file's answer: bytes, or an errno with empty bytes.
  void SetFile(std::int64_t pid, ProcFile file, std::string data);
  void SetFileError(std::int64_t pid, ProcFile file, int err);
  void SetPath(const std::string& path, Identity identity) { paths_[path] = identity; }

  // A stat line as the kernel writes it (52 fields, newline-terminated).
  static std::string StatLine(std::int64_t pid, const std::string& comm, char state,
                              std::int64_t ppid, std::uint64_t start_ticks);

  // Directory listing: ascending pids, unless `listing` is set, in which case
  // those names are listed verbatim (duplicates and junk included).
  std::optional<std::vector<std::string>> listing;
  int list_err = 0;
  std::int64_t now_ns = 1'000'000'000;
  std::int64_t call_cost_ns = 0;
  // What each listed name adds to the clock while a listing within limits
  // (ListPidsWithin) reads it, as a long directory takes time to read.
  std::int64_t list_entry_cost_ns = 0;
  std::function<void(MemoryEvidence&)> on_sleep;
  std::uint64_t calls = 0;  // every call through the interface, counted

  ListResult ListPids(std::uint64_t bound) override;
  // ListPids (a subclass's, which sees the call), then read name by name as a
  // directory is: each costs its bytes and list_entry_cost_ns; the listing
  // stops past max_bytes or the deadline.
  ListResult ListPidsWithin(const ListLimits& limits) override;
  ReadResult ReadFile(std::int64_t pid, ProcFile file, std::uint64_t bound) override;
  Identity ExeIdentity(std::int64_t pid) override;
  Identity PathIdentity(const std::string& path) override;
  std::int64_t NowNs() override;
  void SleepUntil(std::int64_t mono_ns) override;

 private:
  void Tick();
  // The process of `pid`, added when new (its changes counted).
  Process& Slot(std::int64_t pid);
  // The stat column, rebuilt when the table changed since it was built.
  struct StatRow {
    std::int64_t pid = 0;
    std::uint32_t offset = 0;
    std::uint32_t size = 0;
    int err = 0;
    bool truncated = false;
  };
  const StatRow* StatOf(std::int64_t pid);
  // By pid; a hash table, so that a read costs what a read of a real host's
  // table would, not a tree walk (node addresses are stable: Find's pointer
  // and AddProcess's reference survive later insertions).
  std::unordered_map<std::int64_t, Process> procs_;
  // The listing in ascending pid order, rebuilt by the first listing after
  // the set of pids changed (names_stale_), never in between: a listing's
  // views stay valid until the next listing.
  std::vector<std::string> names_;
  bool names_stale_ = true;
  // The bytes of the last read, which its view shows (capacity reused: no
  // allocation per read once the largest file was read).
  std::string read_;
  std::map<std::string, Identity> paths_;
  // Changes to the table, counted by it and its processes' files. A copy of
  // the host shares the count with the original (its processes' files point
  // to it), so a change to either makes both rebuild their columns: never
  // one too few.
  std::shared_ptr<std::uint64_t> changes_ = std::make_shared<std::uint64_t>(0);
  std::uint64_t column_at_ = ~std::uint64_t{0};  // *changes_ when the column was built
  std::vector<StatRow> stat_rows_;               // ascending pids
  std::string stat_bytes_;                       // their bytes, in that order
  std::size_t stat_cursor_ = 0;                  // the row the last read found
};

}  // namespace proctape
