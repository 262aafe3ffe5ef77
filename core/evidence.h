// The evidence interface: every /proc read and every clock reading the resolver
// makes goes through one Evidence object. A live host, a recording wrapper, a
// tape replayer and an in-memory fake all implement it, so the identical
// resolver code runs against each (seed 000: "The proc enumerator and readers
// are injected ... so the Linux contract is unit-testable without a live Linux
// procfs").
//
// Contract for every implementation:
//   - calls never throw; failures are reported as an errno value;
//   - a read returns at most `bound` bytes and sets `truncated` when the file
//     held more (the live source reads bound+1 bytes to know);
//   - the clock is CLOCK_MONOTONIC nanoseconds; SleepUntil may be virtual.
// Not thread-safe: one resolver drives one Evidence at a time.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace proctape {

// The per-pid files the resolver and the capturer read. Values match the
// schema's ProcFile enum.
// kExe names /proc/PID/exe in verdicts; it is never read, only its identity taken.
enum class ProcFile : int { kStat = 1, kCmdline = 2, kEnviron = 3, kStatus = 4, kCgroup = 5, kExe = 6 };

// "stat", "cmdline", ... : the name of the file under /proc/PID.
std::string_view ProcFileName(ProcFile file);

struct ReadResult {
  int err = 0;             // 0: `data` holds what was read
  std::string data;        // raw bytes, never normalised
  bool truncated = false;  // the file held more than the bound
  bool ok() const { return err == 0; }
};

struct ListResult {
  int err = 0;
  std::vector<std::string> names;  // all-digit entries of /proc, directory order
  bool truncated = false;          // more than the bound exist
  bool ok() const { return err == 0; }
};

struct Identity {
  int err = 0;
  std::uint64_t dev = 0;
  std::uint64_t ino = 0;
  bool ok() const { return err == 0; }
  bool operator==(const Identity&) const = default;
};

class Evidence {
 public:
  virtual ~Evidence() = default;

  // The all-digit entries of /proc, at most `bound` of them.
  virtual ListResult ListPids(std::uint64_t bound) = 0;
  // At most `bound` bytes of /proc/PID/FILE.
  virtual ReadResult ReadFile(std::int64_t pid, ProcFile file, std::uint64_t bound) = 0;
  // st_dev + st_ino of the file /proc/PID/exe links to.
  virtual Identity ExeIdentity(std::int64_t pid) = 0;
  // st_dev + st_ino of `path`, links followed (the pre-attested executable).
  virtual Identity PathIdentity(const std::string& path) = 0;
  virtual std::int64_t NowNs() = 0;
  virtual void SleepUntil(std::int64_t mono_ns) = 0;
};

}  // namespace proctape
