#include "cli/progress.h"

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
               ::isatty(STDERR_FILENO) == 1 ? TerminalWidth(STDERR_FILENO) : 80) {}

Progress::Progress(std::FILE* out, bool terminal, std::size_t width)
    : out_(out), terminal_(terminal), width_(width) {}

Progress::~Progress() { Done(); }

void Progress::Show(const std::string& text) {
  if (!terminal_) return;
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

void Progress::Update(const std::string& text) {
  if (!terminal_) return;
  if (shown_ && std::chrono::steady_clock::now() - last_ < std::chrono::milliseconds(100)) return;
  Show(text);
}

void Progress::Done() {
  if (!terminal_ || !shown_) return;
  std::fputs("\r\033[K", out_);
  std::fflush(out_);
  shown_ = false;
}

}  // namespace proctape
