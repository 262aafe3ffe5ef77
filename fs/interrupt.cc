// SPDX-License-Identifier: Apache-2.0
#include "fs/interrupt.h"

#include <new>

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>

namespace proctape {
namespace {

// ---- State the handler reads: fixed arrays and atomics only -----------------

constexpr int kSlots = 64;
constexpr int kHooks = 4;
constexpr int kDepth = 8;
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

enum SlotState : int { kFree = 0, kFilling = 1, kActive = 2 };

struct Slot {
  std::atomic<int> state{kFree};
  int dir_fd = -1;
  bool directory = false;
  char name[256] = {};
};

Slot g_slots[kSlots];
std::atomic<InterruptHook> g_hooks[kHooks];
std::atomic<bool> g_installed{false};
std::atomic<bool> g_deferring{false};
std::atomic<int> g_noted{0};
int g_wake[2] = {-1, -1};  // the self-pipe SleepUntilOrInterrupted waits on

// SetInterruptNotice's lines, by signal (the index in kSignals); written
// before the handler is installed, read only by it.
struct Notice {
  char text[512];
  std::size_t size = 0;
};
Notice g_notices[3];

void WriteNotice(int sig) {
  for (std::size_t i = 0; i < 3; ++i) {
    if (kSignals[i] != sig || g_notices[i].size == 0) continue;
    ssize_t ignored = ::write(STDERR_FILENO, g_notices[i].text, g_notices[i].size);
    (void)ignored;
  }
}

void Cleanup() {
  for (std::atomic<InterruptHook>& h : g_hooks) {
    if (InterruptHook hook = h.load()) hook();
  }
  for (Slot& s : g_slots) {
    if (s.state.load(std::memory_order_acquire) == kActive) {
      RemoveTemporaryAt(s.dir_fd, s.name, s.directory);
    }
  }
}

void OnSignal(int sig) {
  const int saved = errno;
  if (g_deferring.load()) {
    int expected = 0;
    if (g_noted.compare_exchange_strong(expected, sig)) {
      if (g_wake[1] >= 0) {
        ssize_t ignored = ::write(g_wake[1], "!", 1);
        (void)ignored;
      }
      errno = saved;
      return;
    }
  }
  Cleanup();
  WriteNotice(sig);
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  ::sigaction(sig, &dfl, nullptr);
  // Blocked while the handler runs (sa_mask is full): delivered, and fatal,
  // as soon as it returns.
  ::raise(sig);
  errno = saved;
}

void Install() {
  if (g_installed.exchange(true)) return;
  for (int sig : kSignals) {
    struct sigaction old;
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = OnSignal;
    sigfillset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    ::sigaction(sig, &sa, nullptr);
  }
}

// Empties the directory `fd` (depth levels below the temporary's own).
void EmptyDirectory(int fd, int depth) {
  alignas(8) char buf[2048];
  for (;;) {
    bool removed = false;
    long n;
    while ((n = ::syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
      for (long at = 0; at < n;) {
        const auto* d = reinterpret_cast<const struct dirent64*>(buf + at);
        at += d->d_reclen;
        const char* name = d->d_name;
        if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0))) continue;
        if (::unlinkat(fd, name, 0) == 0) {
          removed = true;
          continue;
        }
        if (errno != EISDIR || depth >= kDepth) continue;
        int sub = ::openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0) continue;
        EmptyDirectory(sub, depth + 1);
        ::close(sub);
        if (::unlinkat(fd, name, AT_REMOVEDIR) == 0) removed = true;
      }
    }
    // Entries removed while listing may hide others: list again until a
    // pass removes nothing.
    if (!removed || ::lseek(fd, 0, SEEK_SET) != 0) return;
  }
}

}  // namespace

int RemoveTemporaryAt(int dir_fd, const char* name, bool directory) {
  if (!directory) return ::unlinkat(dir_fd, name, 0) == 0 ? 0 : errno;
  int fd = ::openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    // Not a directory (or gone): a file is removed as such.
    return ::unlinkat(dir_fd, name, 0) == 0 ? 0 : errno;
  }
  EmptyDirectory(fd, 1);
  ::close(fd);
  return ::unlinkat(dir_fd, name, AT_REMOVEDIR) == 0 ? 0 : errno;
}

int RegisterTemporary(int dir_fd, std::string_view name, bool directory) {
  if (name.empty() || name.size() >= sizeof Slot::name || name.find('/') != name.npos) return -1;
  Install();
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (!g_slots[i].state.compare_exchange_strong(expected, kFilling)) continue;
    Slot& s = g_slots[i];
    s.dir_fd = dir_fd;
    s.directory = directory;
    std::memcpy(s.name, name.data(), name.size());
    s.name[name.size()] = 0;
    s.state.store(kActive, std::memory_order_release);
    return i;
  }
  return -1;
}

void UnregisterTemporary(int slot) {
  if (slot >= 0 && slot < kSlots) g_slots[slot].state.store(kFree, std::memory_order_release);
}

void AddInterruptHook(InterruptHook hook) {
  Install();
  for (std::atomic<InterruptHook>& h : g_hooks) {
    InterruptHook expected = nullptr;
    if (h.load() == hook || h.compare_exchange_strong(expected, hook)) return;
  }
}

namespace {
Notice g_out_of_memory;
int g_out_of_memory_status = 1;

void OnOutOfMemory() {
  Cleanup();
  ssize_t ignored = ::write(STDERR_FILENO, g_out_of_memory.text, g_out_of_memory.size);
  (void)ignored;
  ::_exit(g_out_of_memory_status);
}
}  // namespace

void InstallOutOfMemoryHandler(int status) {
  g_out_of_memory_status = status;
  std::set_new_handler(OnOutOfMemory);
}

void ThrowOnOutOfMemory() { std::set_new_handler(nullptr); }

void SetOutOfMemoryNotice(std::string_view line) {
  const std::size_t n = std::min(line.size(), sizeof g_out_of_memory.text);
  std::memcpy(g_out_of_memory.text, line.data(), n);
  g_out_of_memory.size = n;
}

void SetInterruptNotice(int sig, std::string_view line) {
  for (std::size_t i = 0; i < 3; ++i) {
    if (kSignals[i] != sig) continue;
    g_notices[i].size = 0;
    const std::size_t n = std::min(line.size(), sizeof g_notices[i].text);
    std::memcpy(g_notices[i].text, line.data(), n);
    g_notices[i].size = n;
  }
  Install();
}

void DeferInterrupts() {
  if (g_wake[0] < 0 && ::pipe2(g_wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    g_wake[0] = g_wake[1] = -1;  // SleepUntilOrInterrupted then polls
  }
  Install();
  g_deferring.store(true);
}

int Interrupted() { return g_noted.load(); }

std::string SignalName(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
  }
  return "signal " + std::to_string(sig);
}

bool SleepUntilOrInterrupted(std::int64_t mono_ns) {
  for (;;) {
    if (Interrupted() != 0) return false;
    struct timespec now;
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    const std::int64_t now_ns = static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
    if (now_ns >= mono_ns) return true;
    // Without the pipe (it could not be made), wake every 100 ms to look.
    std::int64_t wait_ns = mono_ns - now_ns;
    if (g_wake[0] < 0 && wait_ns > 100'000'000) wait_ns = 100'000'000;
    struct timespec timeout;
    timeout.tv_sec = static_cast<time_t>(wait_ns / 1'000'000'000);
    timeout.tv_nsec = static_cast<long>(wait_ns % 1'000'000'000);
    struct pollfd p = {g_wake[0], POLLIN, 0};
    ::ppoll(&p, g_wake[0] < 0 ? 0 : 1, &timeout, nullptr);
  }
}

}  // namespace proctape
