// SPDX-License-Identifier: Apache-2.0
// `proctape resolve` on the live host.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "capture/live_resolve.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/options.h"
#include "cli/exit_codes.h"
#include "cli/live_proc.h"
#include "cli/progress.h"
#include "cli/request_words.h"
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

// The resolution's request: the words (checked), the root and executable
// as the options give them, and, on a terminal, a progress line on each
// wait between attempts of a resolution that retries until its deadline
// (5 s by default), by the CLI's own clock (a call to the evidence would be
// recorded).
LiveResolveRequest ResolutionRequest(const ResolveOptions& o, Progress& progress) {
  LiveResolveRequest in;
  in.words.token = o.token;
  in.words.token_var = o.token_var;
  if (!o.argv.empty()) in.words.argv = o.argv;
  in.words.bounds.deadline_ns = o.deadline_ms * 1'000'000;
  in.words.bounds.byte_budget = o.byte_budget;
  in.fingerprint = o.fingerprint;
  if (o.has_root) in.root = o.root;
  if (o.has_root_start) in.root_start = o.root_start;
  in.exe = o.exe;
  // A path that is not an executable file cannot be attested (cli/live_proc.h).
  if (o.fingerprint.empty() && o.has_root) in.exe_problem = ExeFileError(o.exe);
  in.proc = o.proc;
  in.command_line = o.command_line;
  if (!progress.active()) return in;
  const auto started = std::chrono::steady_clock::now();
  const std::int64_t deadline_ns = in.words.bounds.deadline_ns;
  in.watch = [&progress, started, deadline_ns,
              waits = std::uint64_t{0}](Evidence& ev) mutable -> std::unique_ptr<Evidence> {
    return std::make_unique<SleepWatch>(ev, [&progress, started, deadline_ns, &waits] {
      const std::int64_t elapsed = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                       std::chrono::steady_clock::now() - started)
                                       .count();
      progress.Show("resolve: nothing matches yet after " + Plural(++waits, "attempt", "attempts") +
                    ", " + DurationText(elapsed) + " of the " + DurationText(deadline_ns) +
                    " deadline; retrying");
    });
  };
  return in;
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
  Progress progress;
  LiveResolution resolved =
      ResolveLive(*evidence, ResolutionRequest(o, progress), std::move(record));
  progress.Done();
  if (resolved.refused) return FailOption(*resolved.refused);
  if (resolved.record_failure) FailAbout("--record", o.record, *resolved.record_failure);
  if (!resolved.ran) return kExitIo;  // the recording could not be begun (said)
  PrintMasked(o, resolved.request, resolved.verdict);
  // After the verdict: with --record - the verdict itself is on standard
  // error.
  for (const std::string& warning : resolved.warnings) Warn(warning);
  if (resolved.record_failure) return kExitIo;
  return ExitCodeFor(resolved.verdict.status);
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
