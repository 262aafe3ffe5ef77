// SPDX-License-Identifier: Apache-2.0
/* proctape's C ABI (libproctape.so.0, pkg-config proctape-c): the C++ API of
 * include/proctape/ (docs/library.md) for launchers in any language.
 *
 * Contract of every function: nothing is thrown, printed, signalled or
 * written to another process. Each returns a proctape_status (PROCTAPE_OK or
 * the error) and, when `err` is not NULL, fills it with the same status and a
 * one-line message. Results go into structs the caller owns (fixed-size
 * fields, strings NUL-terminated and truncated to fit), except a file's
 * summary and a replay report, which are allocated and freed by their
 * proctape_*_free function. Threads: as the C++ API (no global state).
 * C99 and C++ both include this header. */
#ifndef PROCTAPE_H
#define PROCTAPE_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define PROCTAPE_API __attribute__((visibility("default")))
#else
#define PROCTAPE_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Errors: the values of proctape::api::ErrorCode, plus the pin's own. */
typedef enum proctape_status {
  PROCTAPE_OK = 0,
  PROCTAPE_E_INVALID_ARGUMENT = 1,
  PROCTAPE_E_PROC = 2,
  PROCTAPE_E_ROOT = 3,
  PROCTAPE_E_EXE = 4,
  PROCTAPE_E_OTHER_BOOT = 5,
  PROCTAPE_E_RECORD_REFUSED = 6,
  PROCTAPE_E_RECORD_FAILED = 7, /* the verdict stands; nothing was written */
  PROCTAPE_E_IO = 8,
  PROCTAPE_E_NOT_PTAPE = 9,
  PROCTAPE_E_NEWER_VERSION = 10,
  PROCTAPE_E_TRUNCATED = 11,
  PROCTAPE_E_CHECKSUM = 12,
  PROCTAPE_E_CORRUPT = 13,
  PROCTAPE_E_TOO_LARGE = 14,
  PROCTAPE_E_NOT_A_FINGERPRINT = 15,
  PROCTAPE_E_INTERNAL = 16,  /* out of memory, or an exception caught at the edge */
  PROCTAPE_E_NOT_PINNED = 17 /* proctape_pin: the identity is gone or not this process */
} proctape_status;

typedef struct proctape_error {
  proctape_status status;
  char message[512]; /* one line, host bytes escaped (\xNN) */
} proctape_error;

/* The resolver's verdicts (docs/resolver.md): the file format's values.
 * PROCTAPE_VERDICT_NONE (0) is no verdict: a field with nothing to say
 * (a liveness verdict's reason when not ERROR, a resolution that did not run). */
typedef enum proctape_verdict_status {
  PROCTAPE_VERDICT_NONE = 0,
  PROCTAPE_RESOLVED = 1,
  PROCTAPE_MISSING_ROOT = 2,
  PROCTAPE_ROOT_RESTARTED = 3,
  PROCTAPE_NO_MATCH = 4,
  PROCTAPE_MULTIPLE_MATCHES = 5,
  PROCTAPE_DUPLICATE_RECORD = 6,
  PROCTAPE_MALFORMED_RECORD = 7,
  PROCTAPE_CYCLE = 8,
  PROCTAPE_ENTRY_BOUND = 9,
  PROCTAPE_NODE_BOUND = 10,
  PROCTAPE_DEPTH_BOUND = 11,
  PROCTAPE_FILE_BOUND = 12,
  PROCTAPE_BYTE_BUDGET = 13,
  PROCTAPE_DEADLINE = 14,
  PROCTAPE_UNREADABLE = 15,
  PROCTAPE_TOKEN_MISMATCH = 16,
  PROCTAPE_EXE_MISMATCH = 17,
  PROCTAPE_ANCESTRY_CHANGED = 18,
  PROCTAPE_PID_REUSED = 19,
  PROCTAPE_INVALID_REQUEST = 20
} proctape_verdict_status;

/* PROCTAPE_LIVENESS_NONE (0): no liveness verdict (a resolution's). */
typedef enum proctape_liveness {
  PROCTAPE_LIVENESS_NONE = 0,
  PROCTAPE_ALIVE = 1,
  PROCTAPE_DEAD = 2,
  PROCTAPE_LIVENESS_ERROR = 3
} proctape_liveness;

typedef enum proctape_record_when {
  PROCTAPE_RECORD_NEVER = 0,
  PROCTAPE_RECORD_ON_FAILURE = 1,
  PROCTAPE_RECORD_ALWAYS = 2
} proctape_record_when;

typedef enum proctape_replay_outcome {
  PROCTAPE_REPRODUCED = 1,
  PROCTAPE_VERDICT_CHANGED = 2,
  PROCTAPE_DIVERGED = 3
} proctape_replay_outcome;

#define PROCTAPE_PATH_MAX 4096
#define PROCTAPE_BOOT_ID_MAX 64
#define PROCTAPE_MATCHES_MAX 16

/* Where the live host is read (NULL for the defaults: "/proc", the cores). */
typedef struct proctape_options {
  const char *proc_root;           /* NULL: "/proc" */
  unsigned scan_threads;           /* a recording's frame scans; 0: the cores, at most 4 */
  const char *const *command_line; /* stored in a recording's header; may be NULL */
  size_t command_line_len;
} proctape_options;

/* A process: pid and start tick (stat field 22), in the boot named. */
typedef struct proctape_identity {
  int64_t pid;
  uint64_t start_ticks;
  char boot_id[PROCTAPE_BOOT_ID_MAX]; /* "" when not known */
} proctape_identity;

/* Every boot_id given out is /proc/sys/kernel/random/boot_id's 36
 * characters without its newline ("" when none); one taken in may have it. */

/* Taken before the turn (docs/resolver.md, "The eight steps", step 1). */
typedef struct proctape_fingerprint {
  int64_t root_pid;
  uint64_t root_start_ticks;
  char root_comm[64];
  char exe_path[PROCTAPE_PATH_MAX];
  uint64_t exe_dev;
  uint64_t exe_ino;
  char boot_id[PROCTAPE_BOOT_ID_MAX];
  int64_t taken_mono_ns;
  int64_t taken_realtime_ns;
} proctape_fingerprint;

/* What to resolve; proctape_request_init sets the C++ API's defaults. */
typedef struct proctape_request {
  const char *token;       /* required */
  const char *token_var;   /* NULL: "PROCTAPE_TOKEN" */
  const char *const *argv; /* NULL: {"/bin/sleep", "120"} */
  size_t argc;
  int64_t deadline_ms;  /* 5000 */
  uint64_t byte_budget; /* 256 MiB */
} proctape_request;

typedef struct proctape_record_policy {
  int when;         /* proctape_record_when */
  const char *path; /* the .ptape to write */
  int replace;      /* replace an existing regular file at path */
} proctape_record_policy;

/* The verdict and its evidence. Only RESOLVED has an identity (pid,
 * start_ticks, boot_id). Text fields are truncated to fit. */
typedef struct proctape_verdict {
  int status; /* proctape_verdict_status */
  int64_t pid;
  uint64_t start_ticks;
  int64_t subject_pid;
  int has_subject_start_ticks;
  uint64_t subject_start_ticks;
  int has_expected_ticks;
  uint64_t expected_ticks;
  char file[64];               /* the /proc/PID file that decided, or "" */
  int err;                     /* errno of the deciding read */
  unsigned char evidence[256]; /* raw bytes: escape before printing */
  size_t evidence_len;
  char detail[1024];
  uint32_t attempts;
  uint64_t bytes_read;
  size_t match_count;                    /* every match of MULTIPLE_MATCHES ... */
  int64_t matches[PROCTAPE_MATCHES_MAX]; /* ... of which the first 16 */
  char boot_id[PROCTAPE_BOOT_ID_MAX];
} proctape_verdict;

typedef struct proctape_liveness_verdict {
  int status;     /* proctape_liveness */
  int reason;     /* proctape_verdict_status for PROCTAPE_LIVENESS_ERROR, else
                       PROCTAPE_VERDICT_NONE */
  char state[16]; /* stat field 3 as read */
  char detail[512];
  int err;
  int boot_unchecked; /* the identity named no boot */
} proctape_liveness_verdict;

typedef struct proctape_resolve_result {
  int ran; /* the resolver ran: verdict is its verdict; else
                                     verdict is zero (status PROCTAPE_VERDICT_NONE) */
  proctape_verdict verdict;
  char recording[PROCTAPE_PATH_MAX]; /* the path written, or "" */
} proctape_resolve_result;

typedef struct proctape_recorded_check {
  int liveness;                               /* a liveness check; otherwise a resolution */
  proctape_verdict verdict;                   /* a resolution's; zero for a liveness check */
  proctape_liveness_verdict liveness_verdict; /* a liveness check's; else zero (NONE) */
  uint64_t observations;
} proctape_recorded_check;

typedef struct proctape_file_summary {
  uint64_t chunks, frames, processes, observations;
  int environ_kept;
  size_t check_count;
  proctape_recorded_check *checks;
  size_t fingerprint_count;
  proctape_fingerprint *fingerprints;
} proctape_file_summary;

typedef struct proctape_replayed_check {
  size_t index;
  int outcome;  /* proctape_replay_outcome */
  int liveness; /* a liveness check: the *_liveness verdicts are
                                     set, recorded and replayed zero (NONE); else
                                     the reverse */
  proctape_verdict recorded;
  proctape_verdict replayed; /* valid when has_replayed */
  proctape_liveness_verdict recorded_liveness;
  proctape_liveness_verdict replayed_liveness;
  int has_replayed;
  char *description; /* `proctape replay`'s line(s), no final newline */
} proctape_replayed_check;

typedef struct proctape_replay_report {
  int worst; /* proctape_replay_outcome of every check */
  size_t check_count;
  proctape_replayed_check *checks;
} proctape_replay_report;

/* "0.1.0": the version of proctape the library ships with. */
PROCTAPE_API const char *proctape_version(void);
/* Static names: the enumerator's name without its prefix (PROCTAPE_E_,
 * PROCTAPE_, PROCTAPE_LIVENESS_, PROCTAPE_VERDICT_): "OK", "INVALID_ARGUMENT",
 * "RESOLVED", "NONE", "ALIVE", "ERROR", "REPRODUCED", "VERDICT_CHANGED";
 * "UNKNOWN" for a value that has no enumerator. */
PROCTAPE_API const char *proctape_status_name(int status);
PROCTAPE_API const char *proctape_verdict_status_name(int status);
PROCTAPE_API const char *proctape_liveness_name(int liveness);
PROCTAPE_API const char *proctape_replay_outcome_name(int outcome);

PROCTAPE_API void proctape_request_init(proctape_request *request);

/* TakeFingerprint: `root_status` (may be NULL) gets the verdict status that
 * says why the root cannot be fingerprinted (PROCTAPE_E_ROOT), otherwise
 * PROCTAPE_VERDICT_NONE. */
PROCTAPE_API proctape_status proctape_fingerprint_take(int64_t root_pid, const char *exe_path,
                                                       const proctape_options *options,
                                                       proctape_fingerprint *out, int *root_status,
                                                       proctape_error *err);

/* Resolve, recording by `record` (NULL: never). `out` is filled whatever the
 * status: out->ran says whether out->verdict is the resolver's (it is, with
 * PROCTAPE_E_RECORD_FAILED). */
PROCTAPE_API proctape_status proctape_resolve(const proctape_request *request,
                                              const proctape_fingerprint *fingerprint,
                                              const proctape_record_policy *record,
                                              const proctape_options *options,
                                              proctape_resolve_result *out, proctape_error *err);

/* CheckLiveness: one stat read, in the identity's boot. */
PROCTAPE_API proctape_status proctape_liveness_check(const proctape_identity *identity,
                                                     const proctape_options *options,
                                                     proctape_liveness_verdict *out,
                                                     proctape_error *err);

/* A RESOLVED verdict's identity pinned: a pidfd (pidfd_open, close-on-exec)
 * opened, then the pid's stat re-read: the start tick must be the verdict's
 * and the process not dead, else the pidfd is closed and the call fails
 * closed (PROCTAPE_E_NOT_PINNED). A verdict other than RESOLVED is
 * PROCTAPE_E_INVALID_ARGUMENT; one of another boot PROCTAPE_E_OTHER_BOOT.
 * The caller closes *pidfd (close(2)). */
PROCTAPE_API proctape_status proctape_pin(const proctape_verdict *verdict,
                                          const proctape_options *options, int *pidfd,
                                          proctape_error *err);

/* Liveness of a pinned process, by its pidfd: the "Pid:" line of
 * /proc/self/fdinfo/FD (-1: DEAD, it was reaped), then its stat
 * state (Z, X, x: DEAD), then the fdinfo again (still the same pid: the
 * state read was this process's). 0 (the process is in no PID namespace of
 * ours) is PROCTAPE_LIVENESS_ERROR with reason UNREADABLE. A reused pid never
 * makes a pidfd alive. A descriptor that is not open, or not a pidfd (its
 * fdinfo has no "Pid:" line): INVALID_ARGUMENT "fd N is not a pidfd". */
PROCTAPE_API proctape_status proctape_liveness_pidfd(int pidfd, const proctape_options *options,
                                                     proctape_liveness_verdict *out,
                                                     proctape_error *err);

/* ReadFile: reads and checks a whole .ptape. *out is set (free it with
 * proctape_file_summary_free) unless the status is INVALID_ARGUMENT or
 * INTERNAL: on damage it holds the counts of what was read before it. An
 * empty path is INVALID_ARGUMENT (as a NULL one), for Replay too. */
PROCTAPE_API proctape_status proctape_read_file(const char *path, proctape_file_summary **out,
                                                proctape_error *err);
PROCTAPE_API void proctape_file_summary_free(proctape_file_summary *summary);

/* Replay: every check of a recording against its tape. *out is NULL unless
 * PROCTAPE_OK; free it with proctape_replay_report_free. */
PROCTAPE_API proctape_status proctape_replay(const char *path, proctape_replay_report **out,
                                             proctape_error *err);
PROCTAPE_API void proctape_replay_report_free(proctape_replay_report *report);

#ifdef __cplusplus
}
#endif

#endif /* PROCTAPE_H */
