// SPDX-License-Identifier: Apache-2.0
// The pidfd pinned to an identity (include/proctape.h, proctape_pin and
// proctape_liveness_pidfd), on real processes this test starts and reaps:
//   1. a child pinned is ALIVE by its pidfd; killed, unreaped: DEAD (state
//      Z); reaped: DEAD, and its fdinfo reads "Pid: -1";
//   2. a wrong start tick, a dead pid, a verdict other than RESOLVED: no pin;
//   3. as root: in a PID namespace the test makes (unshare), a process is
//      pinned, exits and is reaped, and clone3 with set_tid starts another
//      at the same pid (namespace and host): the pin stays DEAD, while the
//      pid alone names a live process. Exit 77 skips only this part's
//      prerequisites, said on stdout; the rest has run by then.
// Every process is killed by its pid (or pidfd) and reaped by its parent.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proctape.h"

static int failures = 0;
#define CHECK(cond, ...)                                \
  do {                                                  \
    if (!(cond)) {                                      \
      fprintf(stderr, "pin_test:%d: FAIL: ", __LINE__); \
      fprintf(stderr, __VA_ARGS__);                     \
      fputc('\n', stderr);                              \
      failures++;                                       \
    }                                                   \
  } while (0)

// Independent of proctape's parsers: field 22 of /proc/PID/stat.
static uint64_t StartTicks(pid_t pid) {
  char path[64], buf[1024];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE* f = fopen(path, "r");
  if (!f) return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  char* p = strrchr(buf, ')');
  if (!p) return 0;
  unsigned long long v = 0;
  // after ") ": fields 3..22; the 20th token is field 22
  if (sscanf(p + 2,
             "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
             &v) != 1)
    return 0;
  return v;
}

static long long FdinfoPid(int fd) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/self/fdinfo/%d", fd);
  FILE* f = fopen(path, "r");
  long long pid = -2;
  if (!f) return pid;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "Pid:", 4) == 0) pid = atoll(line + 4);
  fclose(f);
  return pid;
}

static proctape_verdict Resolved(pid_t pid, uint64_t ticks) {
  proctape_verdict v;
  memset(&v, 0, sizeof v);
  v.status = PROCTAPE_RESOLVED;
  v.pid = pid;
  v.start_ticks = ticks;
  FILE* f = fopen("/proc/sys/kernel/random/boot_id", "r");
  if (f) {
    if (!fgets(v.boot_id, sizeof v.boot_id, f)) v.boot_id[0] = '\0';
    fclose(f);
  }
  return v;
}

static int Liveness(int fd) {
  proctape_liveness_verdict lv;
  proctape_error err;
  if (proctape_liveness_pidfd(fd, NULL, &lv, &err) != PROCTAPE_OK) {
    fprintf(stderr, "pin_test: liveness_pidfd: %s\n", err.message);
    return -1;
  }
  return lv.status;
}

static pid_t StartSleeper(void) {
  pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    for (;;) pause();
  }
  return pid;
}

static void Basic(void) {
  pid_t child = StartSleeper();
  CHECK(child > 0, "fork");
  uint64_t ticks = StartTicks(child);
  CHECK(ticks > 0, "start tick of %d", (int)child);
  proctape_verdict v = Resolved(child, ticks);
  proctape_error err;
  int fd = -1;
  CHECK(proctape_pin(&v, NULL, &fd, &err) == PROCTAPE_OK, "pin: %s", err.message);
  CHECK(fd >= 0, "no pidfd");
  CHECK(Liveness(fd) == PROCTAPE_ALIVE, "a live child is not ALIVE by its pidfd");
  kill(child, SIGKILL);
  siginfo_t info;
  waitid(P_PID, (id_t)child, &info, WEXITED | WNOWAIT);  // a zombie now, not reaped
  CHECK(Liveness(fd) == PROCTAPE_DEAD, "a zombie is not DEAD by its pidfd");
  waitpid(child, NULL, 0);
  CHECK(FdinfoPid(fd) == -1, "a reaped child's fdinfo reads Pid: %lld", FdinfoPid(fd));
  CHECK(Liveness(fd) == PROCTAPE_DEAD, "a reaped child is not DEAD by its pidfd");
  close(fd);

  // Fails closed: the pid is gone.
  fd = 7;
  CHECK(proctape_pin(&v, NULL, &fd, &err) == PROCTAPE_E_NOT_PINNED && fd == -1,
        "a reaped pid was pinned (%s)", err.message);
  // Fails closed: another start tick.
  pid_t other = StartSleeper();
  proctape_verdict wrong = Resolved(other, StartTicks(other) + 1);
  CHECK(proctape_pin(&wrong, NULL, &fd, &err) == PROCTAPE_E_NOT_PINNED && fd == -1,
        "a wrong start tick was pinned (%s)", err.message);
  wrong.status = PROCTAPE_NO_MATCH;
  CHECK(proctape_pin(&wrong, NULL, &fd, &err) == PROCTAPE_E_INVALID_ARGUMENT && fd == -1,
        "a NO_MATCH verdict was pinned");
  kill(other, SIGKILL);
  waitpid(other, NULL, 0);
  CHECK(proctape_liveness_pidfd(987654, NULL, &(proctape_liveness_verdict){0}, &err) ==
            PROCTAPE_E_INVALID_ARGUMENT,
        "a descriptor that is not open was not INVALID_ARGUMENT");
}

// clone3 with set_tid: a process at namespace pid `ns_pid` and host pid
// `host_pid`; it waits to be killed.
static pid_t CloneAt(pid_t ns_pid, pid_t host_pid) {
  pid_t tids[2] = {ns_pid, host_pid};
  struct clone_args args;
  memset(&args, 0, sizeof args);
  args.exit_signal = SIGCHLD;
  args.set_tid = (uint64_t)(uintptr_t)tids;
  args.set_tid_size = 2;
  long pid = syscall(SYS_clone3, &args, sizeof args);
  if (pid == 0) {
    for (;;) pause();
  }
  return (pid_t)pid;
}

// Runs in a child of the test (the namespace's parent, P): reports each
// step on `out` as a line; reads a byte on `in` before each step.
static void NamespaceParent(int in, int out) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  char b;
  if (unshare(CLONE_NEWPID) != 0) {
    dprintf(out, "skip unshare(CLONE_NEWPID): %s\n", strerror(errno));
    _exit(0);
  }
  pid_t init = fork();  // namespace pid 1: keeps the namespace alive
  if (init == 0) {
    for (;;) pause();
  }
  pid_t target = StartSleeper();  // namespace pid 2
  dprintf(out, "target %d\n", (int)target);
  if (read(in, &b, 1) != 1) _exit(1);  // the test has pinned it
  kill(target, SIGKILL);
  waitpid(target, NULL, 0);
  pid_t again = CloneAt(2, target);
  if (again < 0) {
    dprintf(out, "skip clone3 set_tid {2, %d}: %s\n", (int)target, strerror(errno));
  } else {
    dprintf(out, "again %d\n", (int)again);
    if (read(in, &b, 1) != 1) b = 0;  // the test has checked
    kill(again, SIGKILL);
    waitpid(again, NULL, 0);
  }
  kill(init, SIGKILL);
  waitpid(init, NULL, 0);
  _exit(0);
}

static int SetTid(void) {
  if (geteuid() != 0) {
    printf(
        "pin_test: SKIP set_tid: not root (clone3 set_tid needs CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE)\n");
    return 77;
  }
  int to_p[2], from_p[2];
  if (pipe(to_p) != 0 || pipe(from_p) != 0) return 1;
  pid_t p = fork();
  if (p == 0) {
    close(to_p[1]);
    close(from_p[0]);
    NamespaceParent(to_p[0], from_p[1]);
  }
  close(to_p[0]);
  close(from_p[1]);
  FILE* in = fdopen(from_p[0], "r");
  char line[256];
  int rc = 0, target = 0, again = 0;
  if (!fgets(line, sizeof line, in) || sscanf(line, "target %d", &target) != 1) {
    printf("pin_test: SKIP set_tid: %s", line);
    rc = 77;
  } else {
    uint64_t ticks = StartTicks(target);
    proctape_verdict v = Resolved(target, ticks);
    proctape_error err;
    int fd = -1;
    CHECK(proctape_pin(&v, NULL, &fd, &err) == PROCTAPE_OK, "pin in a namespace: %s", err.message);
    CHECK(Liveness(fd) == PROCTAPE_ALIVE, "the namespace's process is not ALIVE");
    if (write(to_p[1], "x", 1) != 1) rc = 1;
    if (!fgets(line, sizeof line, in) || sscanf(line, "again %d", &again) != 1) {
      printf("pin_test: SKIP set_tid: %s", line);
      rc = 77;
    } else {
      CHECK(again == target, "clone3 set_tid gave host pid %d, not %d", again, target);
      CHECK(StartTicks(again) > 0, "the new process at pid %d is not visible", again);
      CHECK(FdinfoPid(fd) == -1, "the pin's fdinfo reads Pid: %lld after reuse", FdinfoPid(fd));
      CHECK(Liveness(fd) == PROCTAPE_DEAD, "a reused pid made the pin alive");
      // The pid and start tick alone: one clock tick is 10 ms, so the new
      // process may carry the old start tick (then the identity reads ALIVE).
      proctape_identity id = {target, ticks, ""};
      proctape_liveness_verdict by_id;
      proctape_liveness_check(&id, NULL, &by_id, &err);
      printf(
          "pin_test: pid %d reused by clone3 set_tid (start tick %llu, was %llu): "
          "the pin is DEAD, the pid and start tick alone read %s\n",
          again, (unsigned long long)StartTicks(again), (unsigned long long)ticks,
          proctape_liveness_name(by_id.status));
      if (write(to_p[1], "x", 1) != 1) rc = 1;
    }
    close(fd);
  }
  close(to_p[1]);
  fclose(in);
  waitpid(p, NULL, 0);
  return rc;
}

int main(void) {
  Basic();
  int rc = SetTid();
  if (failures) return 1;
  printf("pin_test: passed%s\n", rc == 77 ? " (set_tid skipped)" : "");
  return rc;
}
