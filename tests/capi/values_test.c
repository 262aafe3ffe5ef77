// SPDX-License-Identifier: Apache-2.0
// What the C ABI gives out (include/proctape.h; docs/library.md, "The C ABI"):
//   1. every *_name is the enumerator's name without its prefix, "UNKNOWN"
//      for a value without one, and a zeroed verdict's pin message says so;
//   2. proctape_liveness_pidfd refuses a descriptor that is not a pidfd;
//   3. boot ids come without their newline, and go back in as they came;
//   4. absent values are the documented none (0), never a real-looking one;
//      an empty path is INVALID_ARGUMENT.
// values_test SOURCE_DIR (a corpus file is read). Starts no process.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proctape.h"

static int failures = 0;
#define CHECK(cond, ...)                                   \
  do {                                                     \
    if (!(cond)) {                                         \
      fprintf(stderr, "values_test:%d: FAIL: ", __LINE__); \
      fprintf(stderr, __VA_ARGS__);                        \
      fputc('\n', stderr);                                 \
      failures++;                                          \
    }                                                      \
  } while (0)
#define NAME(fn, value, want)                                                                    \
  CHECK(strcmp(fn(value), want) == 0, #fn "(%d) is \"%s\", not \"%s\"", (int)(value), fn(value), \
        want)

static void Names(void) {
  NAME(proctape_status_name, PROCTAPE_OK, "OK");
  NAME(proctape_status_name, PROCTAPE_E_INVALID_ARGUMENT, "INVALID_ARGUMENT");
  NAME(proctape_status_name, PROCTAPE_E_NOT_PINNED, "NOT_PINNED");
  NAME(proctape_status_name, 999, "UNKNOWN");
  NAME(proctape_status_name, -1, "UNKNOWN");
  NAME(proctape_verdict_status_name, PROCTAPE_VERDICT_NONE, "NONE");
  NAME(proctape_verdict_status_name, PROCTAPE_RESOLVED, "RESOLVED");
  NAME(proctape_verdict_status_name, PROCTAPE_INVALID_REQUEST, "INVALID_REQUEST");
  NAME(proctape_verdict_status_name, -1, "UNKNOWN");
  NAME(proctape_verdict_status_name, 999, "UNKNOWN");
  NAME(proctape_liveness_name, PROCTAPE_LIVENESS_NONE, "NONE");
  NAME(proctape_liveness_name, PROCTAPE_LIVENESS_ERROR, "ERROR");
  NAME(proctape_liveness_name, 4, "UNKNOWN");
  NAME(proctape_replay_outcome_name, PROCTAPE_VERDICT_CHANGED, "VERDICT_CHANGED");
  NAME(proctape_replay_outcome_name, 0, "UNKNOWN");
  NAME(proctape_replay_outcome_name, -1, "UNKNOWN");

  proctape_verdict zero;
  memset(&zero, 0, sizeof zero);
  proctape_error err;
  int fd = 7;
  CHECK(proctape_pin(&zero, NULL, &fd, &err) == PROCTAPE_E_INVALID_ARGUMENT && fd == -1,
        "a zeroed verdict was pinned");
  CHECK(strstr(err.message, "NONE") && !strstr(err.message, "unknown status"),
        "the pin message of a zeroed verdict: %s", err.message);
}

static void NotPidfds(const char* file) {
  int regular = open(file, O_RDONLY | O_CLOEXEC);
  CHECK(regular >= 0, "open %s", file);
  const int fds[] = {0, regular};
  for (size_t i = 0; i < sizeof fds / sizeof fds[0]; ++i) {
    proctape_liveness_verdict lv;
    proctape_error err;
    char want[64];
    snprintf(want, sizeof want, "fd %d is not a pidfd", fds[i]);
    CHECK(proctape_liveness_pidfd(fds[i], NULL, &lv, &err) == PROCTAPE_E_INVALID_ARGUMENT,
          "fd %d (not a pidfd) is %s: %s", fds[i], proctape_liveness_name(lv.status), lv.detail);
    CHECK(strcmp(err.message, want) == 0, "message: %s", err.message);
  }
  close(regular);
}

static void BootIdsAndNones(const char* corpus_file) {
  proctape_fingerprint fp;
  proctape_error err;
  int root_status = -1;
  CHECK(proctape_fingerprint_take(getpid(), "/bin/sleep", NULL, &fp, &root_status, &err) ==
            PROCTAPE_OK,
        "fingerprint_take: %s", err.message);
  CHECK(strlen(fp.boot_id) == 36 && !strchr(fp.boot_id, '\n'), "boot_id \"%s\"", fp.boot_id);
  CHECK(root_status == PROCTAPE_VERDICT_NONE, "root_status %d when fingerprinted", root_status);
  root_status = -1;
  CHECK(proctape_fingerprint_take(0, NULL, NULL, &fp, &root_status, &err) ==
            PROCTAPE_E_INVALID_ARGUMENT,
        "fingerprint_take(0): %s", err.message);
  CHECK(root_status == PROCTAPE_VERDICT_NONE, "root_status %d (%s) after INVALID_ARGUMENT",
        root_status, proctape_verdict_status_name(root_status));
  if (proctape_fingerprint_take(getpid(), NULL, NULL, &fp, NULL, &err) != PROCTAPE_OK) return;

  // The boot id given out goes back in: this boot, not OTHER_BOOT.
  proctape_identity id;
  memset(&id, 0, sizeof id);
  id.pid = fp.root_pid;
  id.start_ticks = fp.root_start_ticks;
  memcpy(id.boot_id, fp.boot_id, sizeof id.boot_id);
  proctape_liveness_verdict lv;
  CHECK(proctape_liveness_check(&id, NULL, &lv, &err) == PROCTAPE_OK, "liveness: %s", err.message);
  CHECK(lv.status == PROCTAPE_ALIVE, "this process is %s", proctape_liveness_name(lv.status));
  CHECK(lv.reason == PROCTAPE_VERDICT_NONE, "an ALIVE verdict's reason is %d (%s)", lv.reason,
        proctape_verdict_status_name(lv.reason));

  proctape_request request;
  proctape_request_init(&request);
  request.token = "t";
  proctape_record_policy always = {PROCTAPE_RECORD_ALWAYS, NULL, 0};
  proctape_resolve_result r;
  CHECK(proctape_resolve(&request, &fp, &always, NULL, &r, &err) != PROCTAPE_OK,
        "RECORD_ALWAYS without a path was accepted");
  CHECK(!r.ran && r.verdict.status == PROCTAPE_VERDICT_NONE,
        "a resolution that did not run holds verdict %s",
        proctape_verdict_status_name(r.verdict.status));
  CHECK(strcmp(err.message, "") != 0 && proctape_status_name(err.status)[0] != 'U', "status %d",
        (int)err.status);

  proctape_file_summary* s = NULL;
  CHECK(proctape_read_file(corpus_file, &s, &err) == PROCTAPE_OK, "read %s: %s", corpus_file,
        err.message);
  for (size_t i = 0; s && i < s->check_count; ++i) {
    const proctape_recorded_check* c = &s->checks[i];
    if (c->liveness) {
      CHECK(c->verdict.status == PROCTAPE_VERDICT_NONE, "check %zu: a liveness check's verdict", i);
    } else {
      CHECK(c->liveness_verdict.status == PROCTAPE_LIVENESS_NONE &&
                c->liveness_verdict.reason == PROCTAPE_VERDICT_NONE,
            "check %zu: a resolution's liveness verdict is %s reason %d", i,
            proctape_liveness_name(c->liveness_verdict.status), c->liveness_verdict.reason);
      CHECK(!strchr(c->verdict.boot_id, '\n'), "check %zu: boot_id \"%s\"", i, c->verdict.boot_id);
    }
  }
  for (size_t i = 0; s && i < s->fingerprint_count; ++i) {
    CHECK(!strchr(s->fingerprints[i].boot_id, '\n'), "fingerprint %zu: boot_id \"%s\"", i,
          s->fingerprints[i].boot_id);
  }
  CHECK(s && s->check_count > 0, "%s has no check", corpus_file);
  proctape_file_summary_free(s);

  // An empty path is a wrong argument, not a file that is missing.
  s = NULL;
  CHECK(proctape_read_file("", &s, &err) == PROCTAPE_E_INVALID_ARGUMENT && s == NULL,
        "read_file(\"\"): %s %s", proctape_status_name(err.status), err.message);
  proctape_replay_report* report = NULL;
  CHECK(proctape_replay("", &report, &err) == PROCTAPE_E_INVALID_ARGUMENT && report == NULL,
        "replay(\"\"): %s %s", proctape_status_name(err.status), err.message);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: values_test SOURCE_DIR\n");
    return 2;
  }
  char corpus[4096];
  snprintf(corpus, sizeof corpus, "%s/corpus/051df0283b135a91.ptape", argv[1]);
  Names();
  NotPidfds(corpus);
  BootIdsAndNones(corpus);
  if (failures) return 1;
  printf("values_test: passed\n");
  return 0;
}
