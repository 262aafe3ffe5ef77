// SPDX-License-Identifier: Apache-2.0
// The churner's children (churner_child.h).
#include "tests/churn/churner_child.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace proctape::churn {
namespace {

const char* const kSleepArgv[] = {"/bin/sleep", "1", nullptr};

}  // namespace

// Fills host pid, comm and start tick (field 22) from /proc/self/stat,
// split at the last ')' as the kernel writes it.
void ReadSelfStat(Report* r) {
  char buf[4096];
  int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    r->err = errno;
    return;
  }
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) {
    r->err = n < 0 ? errno : -1;
    return;
  }
  buf[n] = '\0';
  char* open_paren = std::strchr(buf, '(');
  char* close_paren = std::strrchr(buf, ')');
  if (open_paren == nullptr || close_paren == nullptr || close_paren < open_paren) {
    r->err = -1;
    return;
  }
  r->host_pid = static_cast<std::int32_t>(std::strtol(buf, nullptr, 10));
  std::size_t len = static_cast<std::size_t>(close_paren - open_paren - 1);
  if (len > sizeof r->comm) len = sizeof r->comm;
  std::memcpy(r->comm, open_paren + 1, len);
  r->comm_len = static_cast<std::uint32_t>(len);
  // After ") ": field 3 (state) ... field 22 (start time) is the 20th.
  char* p = close_paren + 2;
  for (int field = 3; field < 22 && p != nullptr; ++field) {
    p = std::strchr(p, ' ');
    if (p != nullptr) ++p;
  }
  if (p == nullptr) {
    r->err = -1;
    return;
  }
  r->start = std::strtoull(p, nullptr, 10);
}

void RunChild(std::uint32_t s, char kind, const char* comm, const std::string& link,
              const char* const* env, int report_fd) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  prctl(PR_SET_NAME, comm);
  Report r;
  r.seq = s;
  r.ns_pid = getpid();
  ReadSelfStat(&r);
  (void)!write(report_fd, &r, sizeof r);
  if (kind == 's') {
    execve(link.c_str(), const_cast<char* const*>(kSleepArgv), const_cast<char* const*>(env));
  } else if (kind == 'e') {
    const char* targv[] = {"/bin/true", nullptr};
    execve(link.c_str(), const_cast<char* const*>(targv), const_cast<char* const*>(env));
  }
  _exit(static_cast<int>(s & 3));
}

}  // namespace proctape::churn
