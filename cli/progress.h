// SPDX-License-Identifier: Apache-2.0
// Progress of a command that can take over a second (a multi-frame capture,
// export, corpus check, lab, a resolve that retries): one line on standard error, rewritten in place,
// shown only when standard error is a terminal. A pipe, a file or a CI log
// sees nothing of it, so what a command prints is the same with or without
// a person watching (docs/cli/commands.md, "Progress").
//
// Nothing is shown before the work has taken half a second: a fast command
// prints no line to clear (no flicker). The last text given before then is
// shown when the half second is up (a timer thread, with every signal
// blocked, shows it), unless Done() came first.
//
//   \r\033[K[3/20] plain-unshare          (each update replaces the last)
//
// The line is cut to the terminal's width (a wrapped line could not be
// rewritten) and cleared by Done() or the destructor, so the command's own
// output and messages start on a clean line. Text given to it must already
// be escaped where it holds bytes from a host or a file name.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "core/evidence.h"

namespace proctape {

class Progress {
 public:
  // How long the work runs before a line is shown.
  static constexpr std::chrono::milliseconds kDelay{500};

  // On standard error, when it is a terminal, after kDelay.
  Progress();
  // On `out`, shown only when `terminal`, lines cut to `width` columns, none
  // before `delay` has passed since construction.
  Progress(std::FILE* out, bool terminal, std::size_t width,
           std::chrono::milliseconds delay = std::chrono::milliseconds(0));
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Whether anything is shown at all.
  bool active() const { return terminal_; }
  // Replaces the line with `text` now (before the delay is up: when it is).
  void Show(const std::string& text);
  // Replaces the line with `text` unless the last update is less than
  // 100 ms old: for a loop that may run thousands of times a second.
  void Update(const std::string& text);
  // Clears the line (when one is shown), and drops a line waiting for the
  // delay. Show() may follow.
  void Done();

 private:
  // With mu_ held.
  void ShowLocked(const std::string& text);
  void WriteLocked(const std::string& text);
  void ClearLocked();
  void StartTimerLocked();

  std::FILE* out_;
  bool terminal_;
  std::size_t width_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::milliseconds delay_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::thread timer_;
  bool due_ = false;       // the delay is up
  bool stopping_ = false;  // the destructor ends the timer
  bool has_pending_ = false;
  std::string pending_;  // the text to show when the delay is up
  bool shown_ = false;
  std::chrono::steady_clock::time_point last_{};
};

// A library's progress told in steps (a step's line, "" when the step is
// over: the `progress` of a request) on the progress line: each step shown
// as a Progress of its own shows it (after its own half second), cleared
// when it is over or when this ends.
class ProgressSteps {
 public:
  void Step(const std::string& step);
  // Step, as the std::function a request holds (valid while this lives).
  std::function<void(const std::string&)> callback() {
    return [this](const std::string& step) { Step(step); };
  }

 private:
  std::optional<Progress> line_;
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
  ListResult ListPidsWithin(const ListLimits& limits) override {
    return inner_.ListPidsWithin(limits);
  }
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
