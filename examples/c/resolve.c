// SPDX-License-Identifier: Apache-2.0
// A launcher in C over libproctape.so.0 (include/proctape.h; docs/library.md,
// "The C ABI"): fingerprint itself, start `unshare --pid --fork --kill-child
// /bin/sleep 120` with a token in its environment only, resolve the sleep
// (recording on failure to --record FILE), pin it to a pidfd, end the sandbox
// by its pid and see the pin turn DEAD. With --replay FILE instead: a
// recording's summary and its replay.
//
//   resolve [--record FILE] [--wrong-token] | --replay FILE
//
// Exit: 0 RESOLVED (or REPRODUCED), 1 another verdict or outcome, 2 usage,
// 3 an error of the library or of starting the sandbox.
#define _GNU_SOURCE
#include <proctape.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int Fail(const char* what, const proctape_error* err) {
  fprintf(stderr, "resolve: %s: %s: %s\n", what, proctape_status_name(err->status), err->message);
  return 3;
}

static int Replay(const char* path) {
  proctape_error err;
  proctape_file_summary* summary = NULL;
  if (proctape_read_file(path, &summary, &err) != PROCTAPE_OK) {
    proctape_file_summary_free(summary);
    return Fail(path, &err);
  }
  printf("%s: %llu chunks, %llu frames, %zu checks\n", path, (unsigned long long)summary->chunks,
         (unsigned long long)summary->frames, summary->check_count);
  proctape_file_summary_free(summary);
  proctape_replay_report* report = NULL;
  if (proctape_replay(path, &report, &err) != PROCTAPE_OK) return Fail(path, &err);
  for (size_t i = 0; i < report->check_count; ++i) printf("%s\n", report->checks[i].description);
  const int worst = report->worst;
  proctape_replay_report_free(report);
  return worst == PROCTAPE_REPRODUCED ? 0 : 1;
}

// Our child: the sandbox, PROCTAPE_TOKEN=token in its environment; it dies with us.
static pid_t StartSandbox(const char* token) {
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(127);
    if (setenv("PROCTAPE_TOKEN", token, 1) != 0) _exit(127);
    execlp("unshare", "unshare", "--pid", "--fork", "--kill-child", "/bin/sleep", "120",
           (char*)NULL);
    _exit(127);
  }
  return pid;
}

int main(int argc, char** argv) {
  const char* record = NULL;
  int wrong_token = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--replay") == 0 && i + 1 < argc) return Replay(argv[i + 1]);
    if (strcmp(argv[i], "--record") == 0 && i + 1 < argc) {
      record = argv[++i];
    } else if (strcmp(argv[i], "--wrong-token") == 0) {
      wrong_token = 1;
    } else {
      fprintf(stderr, "usage: resolve [--record FILE] [--wrong-token] | --replay FILE\n");
      return 2;
    }
  }
  proctape_error err;
  proctape_fingerprint root;  // before the turn: the root is this process
  if (proctape_fingerprint_take(getpid(), "/bin/sleep", NULL, &root, NULL, &err) != PROCTAPE_OK)
    return Fail("fingerprint", &err);
  char token[33];
  srand((unsigned)time(NULL) ^ (unsigned)getpid());  // an example; use a CSPRNG
  for (int i = 0; i < 32; ++i) token[i] = "0123456789abcdef"[rand() % 16];
  token[32] = '\0';
  const pid_t sandbox = StartSandbox(token);
  if (sandbox < 0) return 3;

  proctape_request request;
  proctape_request_init(&request);
  request.token = wrong_token ? "not-the-token" : token;
  if (wrong_token) request.deadline_ms = 300;
  proctape_record_policy policy = {PROCTAPE_RECORD_ON_FAILURE, record, 0};
  proctape_resolve_result result;
  const proctape_status s =
      proctape_resolve(&request, &root, record ? &policy : NULL, NULL, &result, &err);
  int rc = 0;
  if (s != PROCTAPE_OK) {
    rc = Fail("resolve", &err);
  } else if (result.verdict.status != PROCTAPE_RESOLVED) {
    printf("%s: %s%s%s\n", proctape_verdict_status_name(result.verdict.status),
           result.verdict.detail, result.recording[0] ? "; recorded in " : "", result.recording);
    rc = 1;
  } else {
    int pidfd = -1;
    if (proctape_pin(&result.verdict, NULL, &pidfd, &err) != PROCTAPE_OK) {
      rc = Fail("pin", &err);
    } else {
      proctape_liveness_verdict before, after;
      proctape_liveness_pidfd(pidfd, NULL, &before, &err);
      kill(sandbox, SIGKILL);  // our child, by its pid: --kill-child takes the sleep along
      waitpid(sandbox, NULL, 0);
      for (int i = 0; i < 200; ++i) {  // until the sleep has ended (at most 10 s)
        if (proctape_liveness_pidfd(pidfd, NULL, &after, &err) != PROCTAPE_OK ||
            after.status == PROCTAPE_DEAD)
          break;
        nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL);
      }
      printf("RESOLVED host pid %lld, start tick %llu (pinned: %s, then %s)\n",
             (long long)result.verdict.pid, (unsigned long long)result.verdict.start_ticks,
             proctape_liveness_name(before.status), proctape_liveness_name(after.status));
      close(pidfd);
      return before.status == PROCTAPE_ALIVE && after.status == PROCTAPE_DEAD ? 0 : 1;
    }
  }
  kill(sandbox, SIGKILL);
  waitpid(sandbox, NULL, 0);
  return rc;
}
