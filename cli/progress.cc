// SPDX-License-Identifier: Apache-2.0
#include "cli/progress.h"

#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

namespace proctape {
namespace {

// The terminal's width in columns, 80 when it does not say.
std::size_t TerminalWidth(int fd) {
  struct winsize ws {};
  if (::ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

}  // namespace

Progress::Progress()
    : Progress(stderr, ::isatty(STDERR_FILENO) == 1,
               ::isatty(STDERR_FILENO) == 1 ? TerminalWidth(STDERR_FILENO) : 80, kDelay) {}

Progress::Progress(std::FILE* out, bool terminal, std::size_t width,
                   std::chrono::milliseconds delay)
    : out_(out),
      terminal_(terminal),
      width_(width),
      start_(std::chrono::steady_clock::now()),
      delay_(delay),
      due_(delay.count() <= 0) {}

Progress::~Progress() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    has_pending_ = false;
    ClearLocked();
  }
  wake_.notify_all();
  if (timer_.joinable()) timer_.join();
}

void Progress::Show(const std::string& text) {
  if (!terminal_) return;
  std::lock_guard<std::mutex> lock(mu_);
  ShowLocked(text);
}

void Progress::Update(const std::string& text) {
  if (!terminal_) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (shown_ && std::chrono::steady_clock::now() - last_ < std::chrono::milliseconds(100)) return;
  ShowLocked(text);
}

void Progress::Done() {
  if (!terminal_) return;
  std::lock_guard<std::mutex> lock(mu_);
  has_pending_ = false;
  ClearLocked();
}

void Progress::ShowLocked(const std::string& text) {
  if (!due_ && std::chrono::steady_clock::now() - start_ >= delay_) due_ = true;
  if (due_) {
    // A line still waiting for the timer is older than this one: the timer,
    // woken after it, must not show it over this.
    has_pending_ = false;
    WriteLocked(text);
    return;
  }
  pending_ = text;
  has_pending_ = true;
  StartTimerLocked();
}

void Progress::WriteLocked(const std::string& text) {
  // One column is left free: a line as wide as the terminal wraps on some.
  std::string line = text.substr(0, width_ > 1 ? width_ - 1 : 0);
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  std::fprintf(out_, "\r\033[K%s", line.c_str());
  std::fflush(out_);
  shown_ = true;
  last_ = std::chrono::steady_clock::now();
}

void Progress::ClearLocked() {
  if (!shown_) return;
  std::fputs("\r\033[K", out_);
  std::fflush(out_);
  shown_ = false;
}

void Progress::StartTimerLocked() {
  if (timer_.joinable()) return;
  // Signals go to the command's own thread (fs/interrupt.h): the timer
  // starts with every one blocked.
  sigset_t all;
  sigset_t old;
  sigfillset(&all);
  ::pthread_sigmask(SIG_BLOCK, &all, &old);
  timer_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mu_);
    wake_.wait_until(lock, start_ + delay_, [this] { return stopping_; });
    if (stopping_) return;
    due_ = true;
    if (has_pending_) {
      has_pending_ = false;
      WriteLocked(pending_);
    }
  });
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

void ProgressSteps::Step(const std::string& step) {
  line_.reset();
  if (step.empty()) return;
  line_.emplace();
  line_->Show(step);
}

}  // namespace proctape
