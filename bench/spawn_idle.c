// SPDX-License-Identifier: Apache-2.0
/* spawn_idle: start N idle processes for the capture benchmark, and end exactly
 * those processes afterwards.
 *
 *   spawn_idle N WORKER          start N copies of WORKER (bench/idle_worker)
 *   spawn_idle --show-env V      print environment variant V (0..4) and exit
 *
 * Each worker is execed with a distinct argv of realistic length:
 *   proctape-bench-worker-<i> --job-id=<32 hex> --shard=<i%16>/16
 *       --workdir=/home/runner/work/proctape/proctape/build/shard-<i%16>
 * and a CI job's environment (38 variables, ~2.4 KB: PATH, HOME, CI=true,
 * GITHUB_*, RUNNER_*, ACTIONS_* with a long runtime token). As on a real host,
 * most workers share one environment: 98 % get variant 0; every 50th worker gets
 * one of four variants (another job: its own GITHUB_JOB, file-command paths,
 * INVOCATION_ID and runtime token). Values are pseudo-random but deterministic,
 * so every run sees the same bytes.
 *
 * Protocol:
 *  - Every worker is started with PR_SET_PDEATHSIG=SIGKILL (checked against the
 *    fork race), stdin/stdout/stderr on /dev/null, and the write end of a
 *    readiness pipe on descriptor 3; the worker writes one byte there once its
 *    exec has completed. spawn_idle waits until all N have reported (or fails,
 *    ending those it started), then prints every pid, one per line, and a final
 *    line "ready N" on standard output.
 *  - It then waits. On SIGTERM, SIGINT or SIGHUP, or when its standard input
 *    reaches end-of-file, it sends SIGKILL to exactly the pids it started and
 *    reaps each of them. Workers are never reaped before that, so none of their
 *    pids can be reused by another process while spawn_idle holds them: nothing
 *    is ever signalled by name, and nothing but its own children is signalled.
 *    Standard input must therefore be held open by the caller (a pipe or a
 *    FIFO): with stdin on /dev/null it ends the workers as soon as they are up.
 *  - spawn_idle itself gets PR_SET_PDEATHSIG=SIGTERM, and its workers die with
 *    it (SIGKILL) if it is killed, so nothing survives a crash of the harness.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_WORKERS 100000
#define VARIANTS 5
#define READY_TIMEOUT_S 600

static pid_t *pids;
static long started;

static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("spawn_idle: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}

static char *xasprintf(const char *fmt, ...) {
  va_list ap;
  char *s;
  va_start(ap, fmt);
  if (vasprintf(&s, fmt, ap) < 0) die("out of memory");
  va_end(ap);
  return s;
}

/* SIGKILL exactly the pids we started (all still unreaped children of ours),
 * then reap each one. */
static void end_all(void) {
  for (long i = 0; i < started; i++) kill(pids[i], SIGKILL);
  long reaped = 0;
  for (long i = 0; i < started; i++) {
    while (waitpid(pids[i], NULL, 0) < 0) {
      if (errno != EINTR) break;
    }
    reaped++;
  }
  fprintf(stderr, "spawn_idle: ended and reaped %ld workers\n", reaped);
  started = 0;
}

static void fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("spawn_idle: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  end_all();
  exit(1);
}

/* Deterministic pseudo-random strings (xorshift64*). */
static uint64_t rng;
static uint64_t next_rand(void) {
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 0x2545F4914F6CDD1DULL;
}
static char *rand_str(size_t n, const char *alphabet) {
  size_t k = strlen(alphabet);
  char *s = malloc(n + 1);
  if (s == NULL) die("out of memory");
  for (size_t i = 0; i < n; i++) s[i] = alphabet[next_rand() % k];
  s[n] = '\0';
  return s;
}
static const char kHex[] = "0123456789abcdef";
static const char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
static const char kB62[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

static char *uuid(void) {
  char *a = rand_str(8, kHex), *b = rand_str(4, kHex), *c = rand_str(4, kHex),
       *d = rand_str(4, kHex), *e = rand_str(12, kHex);
  char *s = xasprintf("%s-%s-%s-%s-%s", a, b, c, d, e);
  free(a), free(b), free(c), free(d), free(e);
  return s;
}

/* A CI job's environment. Variant 0 is what most workers share; 1..4 are other
 * jobs on the same runner host. */
static char **build_env(int variant, size_t *count, size_t *bytes) {
  static const char *jobs[VARIANTS] = {"build-and-test", "lint", "docs", "test-asan", "package"};
  const char *tmp = "/home/runner/work/_temp";
  const char *ws = "/home/runner/work/proctape/proctape";
  char **env = calloc(64, sizeof(char *));
  size_t n = 0;
  if (env == NULL) die("out of memory");

  /* Shared by every job of this workflow run. */
  rng = 0x9E3779B97F4A7C15ULL;
  char *sha = rand_str(40, kHex);
  char *runtime = rand_str(40, kB62);
  char *cache = rand_str(40, kB62);
  /* Per job. */
  rng = 0xD1B54A32D192ED03ULL * (uint64_t)(variant + 1);
  char *u_env = uuid(), *u_path = uuid(), *u_out = uuid(), *u_sum = uuid(), *u_id = uuid();
  char *invocation = rand_str(32, kHex);
  char *tok_h = rand_str(36, kB64), *tok_p = rand_str(200, kB64), *tok_s = rand_str(86, kB64);

  env[n++] = xasprintf("PATH=%s",
                       "/home/runner/.local/bin:/opt/pipx_bin:/home/runner/.cargo/bin:"
                       "/home/runner/.config/composer/vendor/bin:/usr/local/.ghcup/bin:"
                       "/home/runner/.dotnet/tools:/snap/bin:/usr/local/sbin:/usr/local/bin:"
                       "/usr/sbin:/usr/bin:/sbin:/bin:/usr/games:/usr/local/games");
  env[n++] = xasprintf("HOME=/home/runner");
  env[n++] = xasprintf("USER=runner");
  env[n++] = xasprintf("SHELL=/bin/bash");
  env[n++] = xasprintf("LANG=C.UTF-8");
  env[n++] = xasprintf("PWD=%s", ws);
  env[n++] = xasprintf("CI=true");
  env[n++] = xasprintf("GITHUB_ACTIONS=true");
  env[n++] = xasprintf("GITHUB_ACTOR=octo-engineer");
  env[n++] = xasprintf("GITHUB_REPOSITORY=example-org/proctape");
  env[n++] = xasprintf("GITHUB_REF=refs/heads/main");
  env[n++] = xasprintf("GITHUB_SHA=%s", sha);
  env[n++] = xasprintf("GITHUB_RUN_ID=7312459876");
  env[n++] = xasprintf("GITHUB_RUN_NUMBER=1842");
  env[n++] = xasprintf("GITHUB_WORKFLOW=ci");
  env[n++] = xasprintf("GITHUB_JOB=%s", jobs[variant]);
  env[n++] = xasprintf("GITHUB_EVENT_NAME=push");
  env[n++] = xasprintf("GITHUB_EVENT_PATH=%s/_github_workflow/event.json", tmp);
  env[n++] = xasprintf("GITHUB_WORKSPACE=%s", ws);
  env[n++] = xasprintf("GITHUB_SERVER_URL=https://github.com");
  env[n++] = xasprintf("GITHUB_ENV=%s/_runner_file_commands/set_env_%s", tmp, u_env);
  env[n++] = xasprintf("GITHUB_PATH=%s/_runner_file_commands/add_path_%s", tmp, u_path);
  env[n++] = xasprintf("GITHUB_OUTPUT=%s/_runner_file_commands/set_output_%s", tmp, u_out);
  env[n++] = xasprintf("GITHUB_STEP_SUMMARY=%s/_runner_file_commands/step_summary_%s", tmp, u_sum);
  env[n++] = xasprintf("RUNNER_OS=Linux");
  env[n++] = xasprintf("RUNNER_NAME=GitHub Actions 17");
  env[n++] = xasprintf("RUNNER_TEMP=%s", tmp);
  env[n++] = xasprintf("RUNNER_TOOL_CACHE=/opt/hostedtoolcache");
  env[n++] = xasprintf("RUNNER_WORKSPACE=/home/runner/work/proctape");
  env[n++] = xasprintf("ImageOS=ubuntu22");
  env[n++] =
      xasprintf("ACTIONS_RUNTIME_URL=https://pipelines.actions.githubusercontent.com/%s/", runtime);
  env[n++] = xasprintf("ACTIONS_RUNTIME_TOKEN=eyJ%s.eyJ%s.%s", tok_h, tok_p, tok_s);
  env[n++] =
      xasprintf("ACTIONS_CACHE_URL=https://artifactcache.actions.githubusercontent.com/%s/", cache);
  env[n++] = xasprintf(
      "ACTIONS_ID_TOKEN_REQUEST_URL=https://pipelines.actions.githubusercontent.com/"
      "%s/00000000-0000-0000-0000-000000000000/_apis/distributedtask/hubs/build/plans/"
      "%s/jobs/%s/idtoken?api-version=2.0",
      runtime, u_id, u_id);
  env[n++] = xasprintf("CC=gcc");
  env[n++] = xasprintf("CFLAGS=-O2 -g -fstack-protector-strong -D_FORTIFY_SOURCE=2");
  env[n++] = xasprintf("MAKEFLAGS=-j2");
  env[n++] = xasprintf("INVOCATION_ID=%s", invocation);
  env[n] = NULL;

  *count = n;
  *bytes = 0;
  for (size_t i = 0; i < n; i++) *bytes += strlen(env[i]) + 1;
  free(sha), free(runtime), free(cache), free(u_env), free(u_path), free(u_out), free(u_sum);
  free(u_id), free(invocation), free(tok_h), free(tok_p), free(tok_s);
  return env;
}

static int variant_of(long i) { return (i % 50 == 49) ? 1 + (int)((i / 50) % 4) : 0; }

static int move_high(int fd) {
  int high = fcntl(fd, F_DUPFD_CLOEXEC, 10);
  if (high < 0) die("fcntl: %s", strerror(errno));
  close(fd);
  return high;
}

/* 1 if standard input has reached end-of-file (or was never open). */
static int stdin_ended(int timeout_ms) {
  struct pollfd p = {.fd = 0, .events = POLLIN};
  int r = poll(&p, 1, timeout_ms);
  if (r <= 0) return 0;
  if (p.revents & POLLNVAL) return 1;
  if (p.revents & POLLIN) {
    char buf[512];
    ssize_t got = read(0, buf, sizeof buf);
    return got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN);
  }
  return (p.revents & (POLLHUP | POLLERR)) != 0;
}

static int signal_pending(int sfd) {
  struct signalfd_siginfo si;
  return read(sfd, &si, sizeof si) == (ssize_t)sizeof si;
}

static void count_reports(const char *buf, ssize_t got, long *ready, long *failed) {
  for (ssize_t k = 0; k < got; k++) {
    if (buf[k] == 'R') {
      (*ready)++;
    } else {
      (*failed)++;
    }
  }
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--show-env") == 0) {
    int v = atoi(argv[2]);
    if (v < 0 || v >= VARIANTS) die("variant must be 0..%d", VARIANTS - 1);
    size_t count, bytes;
    char **env = build_env(v, &count, &bytes);
    for (size_t i = 0; i < count; i++) puts(env[i]);
    fprintf(stderr, "variant %d: %zu variables, %zu bytes of environ\n", v, count, bytes);
    return 0;
  }
  if (argc != 3) {
    fprintf(
        stderr,
        "usage: spawn_idle N WORKER   (hold stdin open; EOF, SIGTERM or SIGINT ends the workers)\n"
        "       spawn_idle --show-env V\n");
    return 2;
  }
  char *end;
  long n = strtol(argv[1], &end, 10);
  if (*end != '\0' || n < 1 || n > MAX_WORKERS) die("N must be 1..%d", MAX_WORKERS);
  const char *worker = argv[2];
  if (access(worker, X_OK) != 0) die("%s: %s", worker, strerror(errno));

  /* Signals arrive through a signalfd; the old mask is restored in each child. */
  sigset_t mask, oldmask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGINT);
  sigaddset(&mask, SIGHUP);
  if (sigprocmask(SIG_BLOCK, &mask, &oldmask) != 0) die("sigprocmask: %s", strerror(errno));
  int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
  if (sfd < 0) die("signalfd: %s", strerror(errno));
  signal(SIGPIPE, SIG_IGN);
  prctl(PR_SET_PDEATHSIG, SIGTERM);

  int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (devnull < 0) die("/dev/null: %s", strerror(errno));
  devnull = move_high(devnull);
  int pfd[2];
  if (pipe2(pfd, O_CLOEXEC) != 0) die("pipe2: %s", strerror(errno));
  int rfd = move_high(pfd[0]), wfd = move_high(pfd[1]);
  fcntl(rfd, F_SETFL, O_NONBLOCK);

  char **envs[VARIANTS];
  for (int v = 0; v < VARIANTS; v++) {
    size_t count, bytes;
    envs[v] = build_env(v, &count, &bytes);
    if (v == 0)
      fprintf(stderr, "spawn_idle: environment: %zu variables, %zu bytes\n", count, bytes);
  }

  pids = calloc((size_t)n, sizeof(pid_t));
  if (pids == NULL) die("out of memory");
  const pid_t self = getpid();
  long ready = 0, failed = 0;
  char buf[4096];
  rng = 0x5DEECE66DULL;
  double t0 = now_s();

  for (long i = 0; i < n; i++) {
    char *args[5];
    char *job = rand_str(32, kHex);
    args[0] = xasprintf("proctape-bench-worker-%ld", i);
    args[1] = xasprintf("--job-id=%s", job);
    args[2] = xasprintf("--shard=%ld/16", i % 16);
    args[3] = xasprintf("--workdir=/home/runner/work/proctape/proctape/build/shard-%02ld", i % 16);
    args[4] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
      sigprocmask(SIG_SETMASK, &oldmask, NULL);
      if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != self) _exit(1);
      dup2(devnull, 0);
      dup2(devnull, 1);
      dup2(devnull, 2);
      dup2(wfd, 3); /* not close-on-exec: the worker reports on it */
      execve(worker, args, envs[variant_of(i)]);
      char e = 'E';
      if (write(3, &e, 1) < 0) _exit(127);
      _exit(127);
    }
    if (pid < 0) fail("fork after %ld workers: %s", started, strerror(errno));
    pids[started++] = pid;
    for (int k = 0; k < 4; k++) free(args[k]);
    free(job);

    ssize_t got;
    while ((got = read(rfd, buf, sizeof buf)) > 0) {
      count_reports(buf, got, &ready, &failed);
    }
    if (signal_pending(sfd)) fail("signal received while starting workers");
    if (i % 64 == 0 && stdin_ended(0)) fail("standard input closed while starting workers");
  }
  close(wfd);
  double t1 = now_s();

  /* Wait until every worker has exec'd (or failed to). */
  while (ready + failed < n) {
    if (now_s() - t0 > READY_TIMEOUT_S)
      fail("only %ld of %ld workers ready after %d s", ready, n, READY_TIMEOUT_S);
    struct pollfd p[3] = {
        {.fd = rfd, .events = POLLIN}, {.fd = sfd, .events = POLLIN}, {.fd = 0, .events = POLLIN}};
    if (poll(p, 3, 1000) < 0 && errno != EINTR) fail("poll: %s", strerror(errno));
    if (p[1].revents) fail("signal received while waiting for workers");
    if (p[2].revents && stdin_ended(0)) fail("standard input closed while waiting for workers");
    if (p[0].revents) {
      ssize_t got = read(rfd, buf, sizeof buf);
      if (got == 0) {
        /* Every write end is closed: the rest died before reporting. */
        failed = n - ready;
        break;
      }
      count_reports(buf, got, &ready, &failed);
    }
  }
  if (failed > 0) fail("%ld of %ld workers failed to exec %s", failed, n, worker);
  fprintf(stderr, "spawn_idle: %ld workers ready (forked in %.2f s, all exec'd in %.2f s)\n", n,
          t1 - t0, now_s() - t0);

  for (long i = 0; i < started; i++) printf("%ld\n", (long)pids[i]);
  printf("ready %ld\n", n);
  fflush(stdout);

  for (;;) {
    struct pollfd p[2] = {{.fd = sfd, .events = POLLIN}, {.fd = 0, .events = POLLIN}};
    if (poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      fprintf(stderr, "spawn_idle: poll: %s\n", strerror(errno));
      break;
    }
    if (p[0].revents) {
      fprintf(stderr, "spawn_idle: signal received\n");
      break;
    }
    if (p[1].revents && stdin_ended(0)) break;
  }
  end_all();
  return 0;
}
