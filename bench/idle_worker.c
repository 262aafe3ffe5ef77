// SPDX-License-Identifier: Apache-2.0
/* idle_worker: the process that bench/spawn_idle starts N times.
 *
 * It does nothing but exist, so that a /proc scan has N real processes to read.
 * spawn_idle execs it with a distinct argv (argv[0] = "proctape-bench-worker-<i>")
 * and a CI-like environment, after setting PR_SET_PDEATHSIG=SIGKILL (kept across
 * this exec: the binary is neither set-user-ID nor file-capable).
 *
 * Readiness: if descriptor 3 is open (spawn_idle passes the write end of a pipe
 * there), write one byte 'R' to it and close it, so the spawner knows this exec
 * completed. Then pause forever; the spawner ends it with SIGKILL, by pid.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

int main(void) {
  if (fcntl(3, F_GETFD) != -1) {
    char ready = 'R';
    /* Retry on EINTR only; any other failure means the spawner is gone, and
     * PDEATHSIG ends us. */
    while (write(3, &ready, 1) < 0 && errno == EINTR) {
    }
    close(3);
  }
  for (;;) pause();
}
