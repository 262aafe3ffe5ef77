// SPDX-License-Identifier: Apache-2.0
// `proctape resolve` on the live host.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "capture/host_facts.h"
#include "capture/live_checks.h"
#include "capture/procfs_evidence.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/options.h"
#include "cli/exit_codes.h"
#include "cli/live_proc.h"
#include "cli/progress.h"
#include "cli/request_words.h"
#include "cli/fingerprint_load.h"
#include "cli/live_run.h"
#include "cli/outputs.h"
#include "core/proc_parse.h"
#include "core/resolver.h"
#include "proto/convert.h"
#include "proto/summary.h"
#include "replay/token_mask.h"

namespace proctape {
namespace {

struct ResolveOptions {
  std::int64_t root = 0;
  bool has_root = false;
  std::uint64_t root_start = 0;
  bool has_root_start = false;
  std::string fingerprint;  // --fingerprint FILE
  std::string token;
  std::string token_var = "PROCTAPE_TOKEN";
  std::vector<std::string> argv;
  std::string exe = "/bin/sleep";
  std::int64_t deadline_ms = 5000;
  std::uint64_t byte_budget = Bounds{}.byte_budget;
  std::string proc = "/proc";
  bool json = false;
  std::string record;  // --record FILE
  bool has_record = false;
  bool force = false;
  std::vector<std::string> command_line;
};

// One line: STATUS, then what decided it; a line more for the offending
// bytes, one naming the process it is about (its pid and the start tick
// read for it), one per near miss, and one when the root was fingerprinted
// late. `s` is `v` as --json prints it (its near misses masked).
void PrintVerdict(const Verdict& v, const v1::VerdictSummary& s, std::int64_t root,
                  std::FILE* out = stdout) {
  const std::string counts = "(" + Plural(v.attempts, "attempt", "attempts") + ", " +
                             Plural(v.bytes_read, "byte", "bytes") + " read)";
  if (v.resolved()) {
    std::fprintf(out, "RESOLVED host pid %lld, start tick %llu %s\n", static_cast<long long>(v.pid),
                 static_cast<unsigned long long>(v.start_ticks), counts.c_str());
  } else {
    std::fprintf(out, "%s: %s %s\n", std::string(StatusName(v.status)).c_str(),
                 EscapeBytes(v.detail, 1024).c_str(), counts.c_str());
    if (!v.evidence.empty()) std::fprintf(out, "  evidence: %s\n", EscapeBytes(v.evidence).c_str());
    if (const std::string subject = SubjectText(s); !subject.empty()) {
      std::fprintf(out, "  subject: %s\n", subject.c_str());
    }
    std::fputs(NearMissLines(s, "  ").c_str(), out);
  }
  if (v.late_fingerprint) {
    std::fprintf(out,
                 "  late fingerprint: root %lld's start tick was read, and the executable "
                 "attested, at resolve time, not before the turn: a restarted root or a "
                 "replaced executable cannot be detected\n",
                 static_cast<long long>(root));
  }
}

// The request's root and executable: from the fingerprint file taken before
// the turn, or from --root, --root-start and --exe now (then *late says what
// was not fixed before the turn, for a warning). False (after one line) when
// the fingerprint is refused, with *exit_code its status.
bool RootAndExe(const ResolveOptions& o, ProcfsEvidence& live, Request* request,
                std::optional<v1::RootFingerprint>* fingerprint, std::string* late,
                int* exit_code) {
  if (!o.fingerprint.empty()) {
    const std::string boot_id = CollectHostFacts(o.proc).boot_id();
    if (boot_id.empty()) {
      *exit_code = Fail(kExitInternal, "cannot read " + EscapeBytes(o.proc, 4096) +
                                           "/sys/kernel/random/boot_id: the fingerprint's boot "
                                           "cannot be checked");
      return false;
    }
    *fingerprint = LoadFingerprint(o.fingerprint, boot_id, "this host's",
                                   "fingerprint the root again", exit_code);
    if (!*fingerprint) return false;
    if (o.has_root && o.root != (*fingerprint)->root_pid()) {
      *exit_code = Fail(kExitUsage, "--root " + std::to_string(o.root) + " is not the root " +
                                        std::to_string((*fingerprint)->root_pid()) + " that " +
                                        EscapeBytes(o.fingerprint, 4096) + " fingerprinted");
      return false;
    }
    ApplyFingerprint(**fingerprint, request);
    return true;
  }
  if (!o.has_root) {
    *exit_code = Fail(kExitUsage, "give --fingerprint FILE (taken before the turn) or --root PID");
    return false;
  }
  request->root_pid = o.root;
  // The executable is attested by device and inode: a path that is not an
  // executable file cannot be attested (cli/live_proc.h).
  std::string why = ExeFileError(o.exe);
  if (why.empty()) {
    request->exe = live.PathIdentity(o.exe);
    if (!request->exe.ok()) why = std::strerror(request->exe.err);
  }
  if (!why.empty()) {
    *exit_code = FailAbout(kExitUsage, "--exe", o.exe, "cannot attest it: " + why);
    return false;
  }
  if (o.has_root_start) {
    request->root_start_ticks = o.root_start;
    *late = "--exe " + EscapeBytes(o.exe, 1024) +
            " is attested now, not before the turn: an executable replaced since cannot be "
            "detected (use 'proctape fingerprint' before the turn and --fingerprint)";
  } else {
    *late = "root " + std::to_string(o.root) +
            " is fingerprinted late: its start tick is read, and --exe attested, now, not "
            "before the turn, so a restarted root or a replaced executable cannot be detected "
            "(use 'proctape fingerprint' before the turn and --fingerprint)";
  }
  return true;
}

// The verdict, its token masked: its value is shown nowhere, not even in an
// environ excerpt quoting it (TOKEN_MISMATCH), only its length, as every
// view shows it. Only the excerpt, the host's bytes: the detail is
// proctape's sentence, and masking a short token there would rewrite its
// words. The near misses' argv quote the host's bytes too (a sandbox's
// shell holds the token it exports): masked whole.
void PrintMasked(const ResolveOptions& o, const Request& request, Verdict verdict) {
  TokenMask mask;
  mask.Add(request.token);
  mask.Mask(&verdict.evidence);
  v1::VerdictSummary summary = ToSummary(ToProto(verdict));
  for (v1::NearMissSummary& m : *summary.mutable_near_misses()) mask.Mask(&m);
  std::FILE* out = VerdictStream(o.record);
  if (o.json) {
    std::fprintf(out, "%s\n", ToJson(summary).c_str());
  } else {
    PrintVerdict(verdict, summary, request.root_pid, out);
  }
}

// The check on the live host, recorded when asked. A resolution that
// retries until its deadline (5 s by default) says so on a terminal, each
// wait between attempts, by the CLI's own clock (a call to the evidence
// would be recorded). False when the recording could not be begun or
// written (said); *ran: the check ran, and its verdict stands.
bool Resolve(const ResolveOptions& o, ProcfsEvidence& evidence, std::unique_ptr<OutputFile> record,
             const Request& request, const LiveCheck& check, bool* ran) {
  Progress progress;
  const auto started = std::chrono::steady_clock::now();
  int waits = 0;
  const bool recorded = RunMaybeRecorded(
      evidence, std::move(record), o.proc, o.command_line, {TokenEntry(request)},
      [&](Evidence& ev, v1::Resolution* r) {
        SleepWatch watched(ev, [&] {
          const std::int64_t elapsed = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                           std::chrono::steady_clock::now() - started)
                                           .count();
          progress.Show("resolve: nothing matches yet after " +
                        Plural(static_cast<std::uint64_t>(++waits), "attempt", "attempts") + ", " +
                        DurationText(elapsed) + " of the " +
                        DurationText(request.bounds.deadline_ns) + " deadline; retrying");
        });
        check(progress.active() ? static_cast<Evidence&>(watched) : ev, r);
        *ran = true;
      });
  progress.Done();
  return recorded;
}

int RunResolve(const ResolveOptions& o) {
  int exit_code = kExitOk;
  // The request's words first: nothing is read for one the resolver refuses.
  if (!RequestWordsValid(&o.token, &o.token_var, o.argv.empty() ? nullptr : &o.argv, &exit_code)) {
    return exit_code;
  }
  CommandIo io{"resolve", {{"--fingerprint", o.fingerprint}, {"--exe", o.exe, false}}};
  if (!AddRecordOutput(o.has_record, o.record, o.force, &io, &exit_code)) return exit_code;
  std::unique_ptr<OutputFile> record;
  if (int entered = EnterCommand(io, &record); entered != kExitOk) return entered;
  auto evidence = OpenLiveProc(o.proc, &exit_code);
  if (!evidence) return exit_code;
  if (o.has_root && !PidBelowPidMax("--root", o.root, o.proc, &exit_code)) return exit_code;
  Request request;
  request.token = o.token;
  request.token_var = o.token_var;
  if (!o.argv.empty()) request.argv = o.argv;
  request.bounds.deadline_ns = o.deadline_ms * 1'000'000;
  request.bounds.byte_budget = o.byte_budget;
  std::optional<v1::RootFingerprint> fingerprint;
  std::string late_warning;
  if (!RootAndExe(o, *evidence, &request, &fingerprint, &late_warning, &exit_code)) {
    return exit_code;
  }
  Verdict verdict;
  const bool late = !fingerprint && !o.has_root_start;
  LiveCheck check = ResolveCheck(&request, fingerprint ? fingerprint->exe_path() : o.exe, late,
                                 &verdict, fingerprint ? &*fingerprint : nullptr);
  bool ran = false;
  const bool recorded = Resolve(o, *evidence, std::move(record), request, check, &ran);
  if (!ran) return kExitIo;  // the recording could not be begun (said)
  PrintMasked(o, request, verdict);
  // After the verdict: with --record - the verdict itself is on standard
  // error. Only for a resolution that used what was read late (not one that
  // failed at the root's fingerprint or was refused as a request).
  const bool used_late =
      o.has_root_start ? verdict.status != Status::kInvalidRequest : verdict.late_fingerprint;
  if (!late_warning.empty() && used_late) Warn(late_warning);
  if (!recorded) return kExitIo;
  return ExitCodeFor(verdict.status);
}

}  // namespace

// What `--help` says of the command, above its options.
constexpr const char* kDescription =
    "Find the host pid of the exact process a sandbox started beneath a known root.\n"
    "Scans /proc for the unique descendant of the root whose argv is exactly --argv, whose\n"
    "environment holds --token-var=--token exactly once, and whose executable is the\n"
    "attested one; retries every 100 ms until the deadline while nothing matches; fails\n"
    "closed otherwise. The root, its start time and the executable come from\n"
    "--fingerprint FILE, taken before the turn by 'proctape fingerprint' (docs/resolver.md,\n"
    "'When the root is fingerprinted').\n"
    "Without it, --root's start time (unless --root-start gives it) and --exe are read now:\n"
    "a restarted root cannot be detected, which is said on standard error, in the verdict\n"
    "(late_fingerprint) and in a recording.";

constexpr const char* kExamples =
    "Examples:\n"
    "  proctape fingerprint --root 4242 -o root.ptape      # before the turn\n"
    "  proctape resolve --fingerprint root.ptape --token 7f3c9e\n"
    "  proctape resolve --fingerprint root.ptape --token 7f3c9e \\\n"
    "      --argv /bin/sleep --argv 120\n"
    "  proctape resolve --root 4242 --token 7f3c9e       # late: warns\n\n";

void RegisterResolve(CLI::App& app, int* exit_code, std::vector<std::string> command_line) {
  auto o = std::make_shared<ResolveOptions>();
  o->command_line = std::move(command_line);
  CLI::App* sub = app.add_subcommand("resolve", kDescription);
  CLI::Option* fingerprint =
      sub->add_option(
             "--fingerprint", o->fingerprint,
             "the root's fingerprint file, taken before the turn ('proctape fingerprint'): root pid, "
             "start time and executable identity; refused from another boot (exit 9)")
          ->check(NonEmptyPath())
          ->type_name("FILE");
  AddLivePid(sub, "--root", o->root,
             "host pid of the app-server that started the sandbox (with --fingerprint: "
             "optional, and it must be the fingerprint's)")
      ->each([o](const std::string&) { o->has_root = true; });
  AddUnsigned(sub, "--root-start", o->root_start, 1, UINT64_MAX,
              "without --fingerprint: the root's start time (stat field 22, clock ticks) "
              "recorded before the turn; default: read it now (late)",
              "TICKS")
      ->each([o](const std::string&) { o->has_root_start = true; })
      ->excludes(fingerprint);
  sub->add_option("--token", o->token, "the per-invocation token the sandbox exported")
      ->type_name("TOKEN")
      ->required();
  sub->add_option("--token-var", o->token_var, "environment variable carrying the token")
      ->type_name("NAME")
      ->capture_default_str();
  OneValueEach(
      sub->add_option("--argv", o->argv,
                      "one element of the expected argv; repeat it (default: /bin/sleep 120)")
          ->type_name("ARG"));
  sub->add_option("--exe", o->exe,
                  "without --fingerprint: the expected executable, attested now by device and "
                  "inode")
      ->check(NonEmptyPath())
      ->type_name("FILE")
      ->capture_default_str()
      ->excludes(fingerprint);
  AddSigned(sub, "--deadline-ms", o->deadline_ms, 0, 3'600'000,
            "give up after this long; 0 ends at the first check, as the listing of /proc "
            "begins: DEADLINE, nothing read",
            "MS")
      ->capture_default_str();
  AddUnsigned(sub, "--byte-budget", o->byte_budget, 1, std::uint64_t{1} << 40,
              "bytes all /proc reads may total (at most 1 TiB)", "BYTES")
      ->capture_default_str();
  AddProcOption(sub, o->proc);
  sub->add_flag("--json", o->json, "print the verdict as one JSON object (VerdictSummary)");
  AddSideOutputOption(sub, "--record", o->record,
                      "also write FILE (.ptape): a host frame before, every call the resolver "
                      "made with its result and time, a frame after, request and verdict; "
                      "- writes it to standard output (the verdict then goes to standard error)")
      ->each([o](const std::string&) { o->has_record = true; });
  AddForceOption(sub, o->force, "with --record FILE: replace an existing FILE");
  sub->footer(
      std::string(kExamples) +
      ExitStatusFooter(
          "0 RESOLVED, 2 usage error, 4 identity changed, 5 not found, 6 ambiguous, 7 bad evidence, 8 bound, 9 fingerprint of another boot, 10 --record refused or cannot be written"));
  sub->callback([o, exit_code] { *exit_code = RunResolve(*o); });
}

}  // namespace proctape
