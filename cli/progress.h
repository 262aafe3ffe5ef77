// Progress of a command that can take over a second (a multi-frame capture,
// export, corpus check, lab, a resolve that retries): one line on standard error, rewritten in place,
// shown only when standard error is a terminal. A pipe, a file or a CI log
// sees nothing of it, so what a command prints is the same with or without
// a person watching (docs/cli/commands.md, "Progress").
//
//   \r\033[K[3/20] plain-unshare          (each update replaces the last)
//
// The line is cut to the terminal's width (a wrapped line could not be
// rewritten) and cleared by Done() or the destructor, so the command's own
// output and messages start on a clean line. Text given to it must already
// be escaped where it holds bytes from a host or a file name.
#pragma once

#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>

#include "core/evidence.h"

namespace proctape {

class Progress {
 public:
  // On standard error, when it is a terminal.
  Progress();
  // On `out`, shown only when `terminal`, lines cut to `width` columns.
  Progress(std::FILE* out, bool terminal, std::size_t width);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Whether anything is shown at all.
  bool active() const { return terminal_; }
  // Replaces the line with `text` now.
  void Show(const std::string& text);
  // Replaces the line with `text` unless the last update is less than
  // 100 ms old: for a loop that may run thousands of times a second.
  void Update(const std::string& text);
  // Clears the line (when one is shown). Show() may follow.
  void Done();

 private:
  std::FILE* out_;
  bool terminal_;
  std::size_t width_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point last_{};
};

// An Evidence that forwards every call, unchanged, to `inner` and calls
// `on_sleep` before each SleepUntil: where a resolution waits between
// attempts, for a progress line. The calls `inner` sees (and a recorder
// records) are exactly the caller's.
class SleepWatch : public Evidence {
 public:
  SleepWatch(Evidence& inner, std::function<void()> on_sleep)
      : inner_(inner), on_sleep_(std::move(on_sleep)) {}
  ListResult ListPids(std::uint64_t bound) override { return inner_.ListPids(bound); }
  ReadResult ReadFile(std::int64_t pid, ProcFile file, std::uint64_t bound) override {
    return inner_.ReadFile(pid, file, bound);
  }
  Identity ExeIdentity(std::int64_t pid) override { return inner_.ExeIdentity(pid); }
  Identity PathIdentity(const std::string& path) override { return inner_.PathIdentity(path); }
  std::int64_t NowNs() override { return inner_.NowNs(); }
  void SleepUntil(std::int64_t mono_ns) override {
    on_sleep_();
    inner_.SleepUntil(mono_ns);
  }

 private:
  Evidence& inner_;
  std::function<void()> on_sleep_;
};

}  // namespace proctape
