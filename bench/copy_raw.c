// SPDX-License-Identifier: Apache-2.0
/* copy_raw: copy the raw stat, cmdline and environ of every process into a
 * directory tree, for the "tar | zstd -3" size baseline.
 *
 *   copy_raw DEST_DIR [PROC_ROOT]
 *
 * tar cannot archive /proc files directly (they report size 0), so each
 * PROC_ROOT/PID/{stat,cmdline,environ} is read with the capture's bounds
 * (4,096 / 65,536 / 65,536 bytes) and written to DEST_DIR/PID/ under the same
 * name. A file that cannot be read (a zombie's environ, a vanished process) is
 * left out. Prints one line: processes, files and bytes copied.
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
} kFiles[] = {{"stat", 4096}, {"cmdline", 65536}, {"environ", 65536}};

static char buffer[65536];

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: copy_raw DEST_DIR [PROC_ROOT]\n");
    return 2;
  }
  const char *root = argc > 2 ? argv[2] : "/proc";
  if (mkdir(argv[1], 0700) != 0 && errno != EEXIST) {
    fprintf(stderr, "copy_raw: %s: %s\n", argv[1], strerror(errno));
    return 1;
  }
  int dest_fd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  int proc_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *dir = opendir(root);
  if (dest_fd < 0 || proc_fd < 0 || dir == NULL) {
    fprintf(stderr, "copy_raw: %s\n", strerror(errno));
    return 1;
  }
  unsigned long processes = 0, files = 0;
  unsigned long long bytes = 0;
  char path[300];
  struct dirent *entry;
  while ((entry = readdir(dir)) != NULL) {
    const char *s = entry->d_name;
    if (*s == '\0' || strspn(s, "0123456789") != strlen(s)) continue;
    int made = 0;
    for (size_t f = 0; f < sizeof kFiles / sizeof kFiles[0]; f++) {
      snprintf(path, sizeof path, "%s/%s", s, kFiles[f].name);
      int fd = openat(proc_fd, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
      if (fd < 0) continue;
      size_t got = 0;
      int bad = 0;
      while (got < kFiles[f].bound) {
        ssize_t n = read(fd, buffer + got, kFiles[f].bound - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) bad = 1;
        if (n <= 0) break;
        got += (size_t)n;
      }
      close(fd);
      if (bad) continue;
      if (!made) {
        if (mkdirat(dest_fd, s, 0700) != 0 && errno != EEXIST) break;
        made = 1;
        processes++;
      }
      int out = openat(dest_fd, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
      if (out < 0 || write(out, buffer, got) != (ssize_t)got) {
        fprintf(stderr, "copy_raw: write %s: %s\n", path, strerror(errno));
        return 1;
      }
      close(out);
      files++;
      bytes += got;
    }
  }
  closedir(dir);
  printf("processes=%lu files=%lu bytes=%llu\n", processes, files, bytes);
  return 0;
}
