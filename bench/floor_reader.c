// SPDX-License-Identifier: Apache-2.0
/* floor_reader: the syscall floor of one capture pass.
 *
 *   floor_reader [--all] [PROC_ROOT]        (default /proc)
 *
 * Does, per process, exactly the reads a capture must do, with the same bounds
 * and the same syscall pattern as proctape's procfs source
 * (capture/procfs_evidence.cc), and nothing else:
 *   - list PROC_ROOT (a fresh openat(".") + getdents64 via readdir), keeping
 *     the all-digit names;
 *   - for each: openat(PID/stat|cmdline|environ|status, O_RDONLY|O_CLOEXEC|
 *     O_NOFOLLOW), read() until end-of-file or bound + 1 bytes (bounds: stat
 *     4,096; cmdline 65,536; environ 65,536; status 16,384; one extra byte to
 *     tell "exactly at the bound" from "cut"), close;
 *   - fstatat(PID/exe) following the link (st_dev + st_ino identity).
 * With --all, also what proctape capture records beyond those five
 * (docs/format.md section 3): openat+read PID/cgroup (<= 4,096) and
 * fstatat(PID/ns/pid), the pid-namespace inode. With --dirfd (after --all, if
 * both), the same reads opened relative to one O_PATH descriptor of PID
 * (openat(PID, "stat"), fstatat(PID, "exe")), as proctape's capture opens them
 * (BENCHMARKS.md, "Capture near the floor"): one walk of PID per process
 * instead of one per file, plus that descriptor's open and close. A failed
 * open/read/fstatat counts as an error and is not retried. No parsing, no
 * allocation per process, no output but one line of totals.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct {
  const char *name;
  size_t bound;
} kFiles[] = {
    {"stat", 4096}, {"cmdline", 65536}, {"environ", 65536}, {"status", 16384}, {"cgroup", 4096}};
enum { kFiveReadFiles = 4, kAllFiles = 5 }; /* files read without / with --all */

static char buffer[65536 + 1];

static int all_digits(const char *s) {
  if (*s == '\0') return 0;
  for (; *s; s++) {
    if (*s < '0' || *s > '9') return 0;
  }
  return 1;
}

int main(int argc, char **argv) {
  int all = argc > 1 && strcmp(argv[1], "--all") == 0;
  int dirfd = argc > 1 + all && strcmp(argv[1 + all], "--dirfd") == 0;
  const char *root = argc > 1 + all + dirfd ? argv[1 + all + dirfd] : "/proc";
  const size_t nfiles = all ? kAllFiles : kFiveReadFiles;
  int proc_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (proc_fd < 0) {
    fprintf(stderr, "floor_reader: %s: %s\n", root, strerror(errno));
    return 1;
  }
  int list_fd = openat(proc_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *dir = list_fd < 0 ? NULL : fdopendir(list_fd);
  if (dir == NULL) {
    fprintf(stderr, "floor_reader: list %s: %s\n", root, strerror(errno));
    return 1;
  }

  unsigned long processes = 0, errors = 0, truncated = 0;
  unsigned long long bytes = 0;
  char path[300];
  struct dirent *entry;
  while ((entry = readdir(dir)) != NULL) {
    if (!all_digits(entry->d_name)) continue;
    processes++;
    int at = proc_fd;
    const char *prefix = entry->d_name, *slash = "/";
    if (dirfd) {
      int pid_fd = openat(proc_fd, entry->d_name, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
      if (pid_fd >= 0) {
        at = pid_fd;
        prefix = slash = "";
      }
    }
    for (size_t f = 0; f < nfiles; f++) {
      snprintf(path, sizeof path, "%s%s%s", prefix, slash, kFiles[f].name);
      int fd = openat(at, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
      if (fd < 0) {
        errors++;
        continue;
      }
      const size_t want = kFiles[f].bound + 1;
      size_t got = 0;
      while (got < want) {
        ssize_t n = read(fd, buffer + got, want - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
          errors++;
          break;
        }
        if (n == 0) break;
        got += (size_t)n;
      }
      close(fd);
      if (got > kFiles[f].bound) {
        truncated++;
        got = kFiles[f].bound;
      }
      bytes += got;
    }
    struct stat st;
    snprintf(path, sizeof path, "%s%sexe", prefix, slash);
    if (fstatat(at, path, &st, 0) != 0) errors++;
    if (all) {
      snprintf(path, sizeof path, "%s%sns/pid", prefix, slash);
      if (fstatat(at, path, &st, 0) != 0) errors++;
    }
    if (at != proc_fd) close(at);
  }
  closedir(dir);
  close(proc_fd);
  printf("processes=%lu bytes=%llu errors=%lu truncated=%lu\n", processes, bytes, errors,
         truncated);
  return 0;
}
