// SPDX-License-Identifier: Apache-2.0
/* timeit: run one command and record its wall time, CPU time and peak RSS.
 *
 *   timeit RESULT_FILE COMMAND [ARGS...]
 *
 * Wall time is CLOCK_MONOTONIC from just before fork() to just after wait4()
 * returns; user/system time and peak resident set size (ru_maxrss, KiB) come
 * from wait4()'s rusage of that one child. Appends one line to RESULT_FILE:
 *   wall_s user_s sys_s maxrss_kib exit_status
 * (exit_status is 128+N if the command was killed by signal N, 127 if it could
 * not be executed) and exits with the command's exit status. The command keeps
 * timeit's stdin, stdout and stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double seconds(struct timespec t) { return (double)t.tv_sec + (double)t.tv_nsec / 1e9; }
static double tv_seconds(struct timeval t) { return (double)t.tv_sec + (double)t.tv_usec / 1e6; }

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: timeit RESULT_FILE COMMAND [ARGS...]\n");
    return 2;
  }
  FILE *out = fopen(argv[1], "a");
  if (out == NULL) {
    fprintf(stderr, "timeit: %s: %s\n", argv[1], strerror(errno));
    return 2;
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "timeit: fork: %s\n", strerror(errno));
    return 2;
  }
  if (pid == 0) {
    execvp(argv[2], argv + 2);
    fprintf(stderr, "timeit: %s: %s\n", argv[2], strerror(errno));
    _exit(127);
  }
  int status;
  struct rusage ru;
  while (wait4(pid, &status, 0, &ru) < 0) {
    if (errno != EINTR) {
      fprintf(stderr, "timeit: wait4: %s\n", strerror(errno));
      return 2;
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  fprintf(out, "%.6f %.6f %.6f %ld %d\n", seconds(t1) - seconds(t0), tv_seconds(ru.ru_utime),
          tv_seconds(ru.ru_stime), ru.ru_maxrss, code);
  fclose(out);
  return code;
}
