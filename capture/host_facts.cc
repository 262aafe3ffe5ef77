// SPDX-License-Identifier: Apache-2.0
#include "capture/host_facts.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <optional>

#include "core/proc_parse.h"

namespace proctape {
namespace {

// At most `bound` bytes of a small file; nullopt if it cannot be read.
std::optional<std::string> ReadSmallFile(const std::string& path, std::size_t bound) {
  int fd;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return std::nullopt;
  std::string data(bound, '\0');
  std::size_t got = 0;
  while (got < bound) {
    ssize_t n = ::read(fd, data.data() + got, bound - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  data.resize(got);
  return data;
}

std::int64_t ClockNs(clockid_t clock) {
  struct timespec ts;
  ::clock_gettime(clock, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

v1::HostFacts CollectHostFacts(const std::string& proc_root) {
  v1::HostFacts host;
  struct utsname uts;
  if (::uname(&uts) == 0) {
    host.set_hostname(uts.nodename);
    host.set_kernel_release(uts.release);
  }
  if (auto boot_id = ReadSmallFile(proc_root + "/sys/kernel/random/boot_id", 256)) {
    host.set_boot_id(*boot_id);
  }
  if (auto pid_max = ReadSmallFile(proc_root + "/sys/kernel/pid_max", 64)) {
    std::string_view text = *pid_max;
    if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
    if (auto value = ParseCanonicalDecimal(text, INT64_MAX)) {
      host.set_pid_max(static_cast<std::int64_t>(*value));
    }
  }
  long ticks = ::sysconf(_SC_CLK_TCK);
  if (ticks > 0) host.set_clock_ticks_per_second(ticks);
  long page = ::sysconf(_SC_PAGESIZE);
  if (page > 0) host.set_page_size(page);
  return host;
}

void FillCaptureHeader(const std::string& proc_root, v1::Header* header) {
  *header->mutable_host() = CollectHostFacts(proc_root);
  header->set_capturer_pid(::getpid());
  header->set_capturer_uid(::getuid());
  struct stat st;
  if (::stat((proc_root + "/self/ns/pid").c_str(), &st) == 0) {
    header->set_capturer_pid_ns_inode(st.st_ino);
  }
  header->set_capture_start_mono_ns(ClockNs(CLOCK_MONOTONIC));
  header->set_capture_start_realtime_ns(ClockNs(CLOCK_REALTIME));
}

void FillImportCapturer(v1::Header* header) {
  header->set_capturer_pid(::getpid());
  header->set_capturer_uid(::getuid());
  header->set_capture_start_mono_ns(ClockNs(CLOCK_MONOTONIC));
  header->set_capture_start_realtime_ns(ClockNs(CLOCK_REALTIME));
}

std::string UtcStamp(std::int64_t realtime_ns) {
  time_t seconds = static_cast<time_t>(realtime_ns / 1'000'000'000);
  struct tm tm;
  char buf[32];
  if (::gmtime_r(&seconds, &tm) == nullptr ||
      ::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm) == 0) {
    return "00000000T000000Z";
  }
  return buf;
}

}  // namespace proctape
