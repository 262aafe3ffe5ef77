// SPDX-License-Identifier: Apache-2.0
// ProcfsEvidence::ListChildren (capture/procfs_evidence.h): the children of
// one process, from /proc/PID/task/TID/children of each of its threads.
//
// Why per thread: the kernel keeps a child on the list of the thread that
// forked it (its real parent), so a process's children are the union of its
// threads' lists. Each file is one seq_file read of the pids, as the mount
// that is read numbers them, separated by spaces. The kernel documents the
// file as reliable only for stopped processes: a child forked, reaped or
// reparented while the lists are read may be missed, as a whole-/proc listing
// misses a process forked after it; the next frame sees it.
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "capture/procfs_evidence.h"
#include "capture/bounded_read.h"
#include "core/proc_parse.h"

namespace proctape {
namespace {

// Reads all of `fd` into *out; 0 or the errno.
int ReadAll(int fd, std::string* out) {
  out->clear();
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return FailedErrno();
    }
    if (n == 0) return 0;
    out->append(buf, static_cast<std::size_t>(n));
  }
}

// Appends the pids of `text` ("12 345 ", as the kernel writes a children file)
// within `bound`: each word a canonical pid (`docs/resolver.md`, "The eight
// steps", step 2: a canonical decimal from 2 to 2,147,483,647); any other word
// is no pid and is skipped.
void AppendPids(std::string_view text, std::uint64_t bound, std::vector<std::int64_t>* pids,
                bool* truncated) {
  while (!text.empty()) {
    const std::size_t space = text.find(' ');
    const std::string_view word = text.substr(0, space);
    text = space == std::string_view::npos ? std::string_view() : text.substr(space + 1);
    const std::optional<std::uint64_t> pid = ParseCanonicalDecimal(word, kMaxPid);
    if (!pid || *pid < 2) continue;
    if (pids->size() >= bound) {
      *truncated = true;
      return;
    }
    pids->push_back(static_cast<std::int64_t>(*pid));
  }
}

}  // namespace

int ProcfsEvidence::ListChildren(std::int64_t pid, std::uint64_t bound,
                                 std::vector<std::int64_t>* children, bool* truncated) {
  const std::string task = std::to_string(pid) + "/task";
  int task_fd = ::openat(proc_fd_, task.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (task_fd < 0) return FailedErrno();
  DIR* dir = ::fdopendir(task_fd);
  if (dir == nullptr) {
    int err = FailedErrno();
    ::close(task_fd);
    return err;
  }
  std::vector<std::string> tids;
  int err = 0;
  for (;;) {
    errno = 0;
    struct dirent* entry = ::readdir(dir);
    if (entry == nullptr) {
      if (errno != 0) err = errno;
      break;
    }
    if (entry->d_name[0] >= '0' && entry->d_name[0] <= '9') tids.emplace_back(entry->d_name);
  }
  std::string text;
  for (const std::string& tid : tids) {
    if (err != 0) break;
    const std::string path = tid + "/children";
    int fd = ::openat(task_fd, path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      const int open_err = FailedErrno();
      if (open_err != ENOENT && open_err != ESRCH) {
        err = open_err;
        break;
      }
      // A thread that ended since the listing has no files at all; one whose
      // stat is there but not its children file runs on a kernel without them.
      const std::string stat = tid + "/stat";
      if (::faccessat(task_fd, stat.c_str(), F_OK, 0) == 0) err = ENOTSUP;
      continue;
    }
    const int read_err = ReadAll(fd, &text);
    ::close(fd);
    if (read_err == ESRCH || read_err == ENOENT) continue;  // the thread ended
    if (read_err != 0) {
      err = read_err;
      break;
    }
    AppendPids(text, bound, children, truncated);
    if (*truncated) break;
  }
  ::closedir(dir);
  return err;
}

}  // namespace proctape
