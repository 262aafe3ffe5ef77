// SPDX-License-Identifier: Apache-2.0
// `proctape replay FILE`: runs the identical resolver code against the tape of
// every resolution recorded in FILE and says whether each verdict reproduced.
// `--model frames` runs it against the captured frames instead (what-if, on
// any capture); `--legacy-marker N` reports what the legacy kill(N, 0) check
// would have concluded from the first frame. Never reads the live /proc,
// never sleeps in real time. The replay is replay/file_replay.h's; this file
// checks the options, says what it gives and its verdicts' exit status.
#include <cstdio>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/command_io.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/outputs.h"
#include "cli/options.h"
#include "cli/recording_input.h"
#include "cli/exit_codes.h"
#include "cli/inputs.h"
#include "cli/fingerprint_load.h"
#include "cli/request_words.h"
#include "core/proc_parse.h"
#include "proto/convert.h"
#include "replay/file_replay.h"
#include "replay/legacy_replay.h"
#include "replay/replay.h"

namespace proctape {
namespace {

struct ReplayOptions {
  std::string file;
  bool json = false;
  RequestOverrides overrides;
  std::int64_t root = 0;
  std::uint64_t root_start = 0;
  std::string token;
  std::string token_var;
  std::vector<std::string> argv;
  std::string exe_identity;  // DEV:INO
  std::string model = "tape";
  std::int64_t exe_like = 0;
  bool has_exe_like = false;
  bool has_root = false;
  bool has_token = false;
  std::string legacy_marker;
  bool has_legacy = false;
  std::string fingerprint;  // --fingerprint FILE
};

// The usage errors of the options, and --exe-identity and the argv words
// into the overrides, before the file is read.
int CheckOptions(ReplayOptions* o) {
  if (o->has_legacy && (o->model != "tape" || o->overrides.any() || !o->argv.empty() ||
                        !o->exe_identity.empty() || o->has_exe_like || !o->fingerprint.empty())) {
    return Fail(kExitUsage, "--legacy-marker takes no --model and no request option");
  }
  if (!o->exe_identity.empty() && o->has_exe_like) {
    return Fail(kExitUsage, "give --exe-identity or --exe-like, not both");
  }
  if (!o->exe_identity.empty()) {
    const std::size_t colon = o->exe_identity.find(':');
    auto dev = ParseCanonicalDecimal(o->exe_identity.substr(0, colon));
    auto ino = colon == std::string::npos
                   ? std::nullopt
                   : ParseCanonicalDecimal(o->exe_identity.substr(colon + 1));
    if (!dev || !ino) return Fail(kExitUsage, "--exe-identity wants DEV:INO, e.g. 2049:1311");
    o->overrides.exe = Identity{0, *dev, *ino};
  }
  if (!o->argv.empty()) o->overrides.argv = o->argv;
  // The words replacing the recorded ones, checked as resolve checks its own
  // (cli/request_words.h).
  const RequestOverrides& w = o->overrides;
  int code = kExitOk;
  RequestWordsValid(w.token ? &*w.token : nullptr, w.token_var ? &*w.token_var : nullptr,
                    w.argv ? &*w.argv : nullptr, &code);
  return code;
}

// The tape model's replays, printed or as one ReplayReport (--json); the
// worst outcome's status.
int PrintTape(const ReplayOptions& o, const FileReplayOutcome& out) {
  if (o.json) {
    std::printf("%s\n", ToJson(out.report).c_str());
  } else {
    for (const v1::ReplayResult& r : out.tape) std::fputs(DescribeReplay(r).c_str(), stdout);
  }
  switch (WorstOutcome(out.tape)) {
    case v1::ReplayResult::DIVERGED: return kExitDiverged;
    case v1::ReplayResult::VERDICT_CHANGED: return kExitVerdictChanged;
    default: return kExitOk;
  }
}

// The frame model's runs, printed or as one ReplayReport (--json); the
// status is the first run's that is not 0.
int PrintFrameRuns(const ReplayOptions& o, const FileReplayOutcome& out) {
  int code = kExitOk;
  for (const FrameReplay& r : out.frame_runs) {
    if (!o.json) std::fputs(r.text.c_str(), stdout);
    // A run the frames could not answer has no verdict: it diverged.
    int c = r.run.unanswered != v1::UNANSWERED_NONE ? kExitDiverged
            : r.run.liveness                        ? ExitCodeFor(r.run.liveness_verdict)
                                                    : ExitCodeFor(r.run.verdict.status);
    if (!r.run.cut.empty()) c = kExitBound;  // no decision: the frame model's bound on work
    if (code == kExitOk) code = c;
  }
  if (o.json) std::printf("%s\n", ToJson(out.report).c_str());
  return code;
}

// The library's request of the checked options; a refused --fingerprint's
// status into *fingerprint_status.
FileReplayRequest RequestOf(const ReplayOptions& o, int* fingerprint_status) {
  FileReplayRequest request;
  request.file = o.file;
  request.model = o.model == "frames" ? ReplayModel::kFrames : ReplayModel::kTape;
  request.overrides = o.overrides;
  request.root_given = o.has_root;
  request.token_given = o.has_token;
  if (o.has_legacy) request.legacy_marker = o.legacy_marker;
  if (o.has_exe_like) request.exe_like = o.exe_like;
  if (!o.fingerprint.empty()) {
    // What if the root had been fingerprinted before the turn: a
    // fingerprint taken in the recording's boot.
    request.fingerprint = [path = o.fingerprint, fingerprint_status](const std::string& boot_id) {
      return LoadFingerprint(path, boot_id, "the recording's",
                             "the fingerprint and the recording come from different boots: give "
                             "the fingerprint taken before the turn this recording recorded",
                             fingerprint_status);
    };
  }
  return request;
}

int RunReplay(ReplayOptions o) {
  if (int bad = CheckOptions(&o); bad != kExitOk) return bad;
  if (int entered = EnterCommand({"replay", {{"FILE", o.file}, {"--fingerprint", o.fingerprint}}});
      entered != kExitOk) {
    return entered;
  }
  int fingerprint_status = kExitOk;
  const FileReplayOutcome out = ReplayFileAsRequested(RequestOf(o, &fingerprint_status));
  if (out.fingerprint_refused) return fingerprint_status;
  for (const std::string& note : out.notes) Note(note);
  if (out.failure) return FailFile(*out.failure);
  if (out.legacy) {
    // --legacy-marker N: the legacy check's conclusion, from the first frame.
    if (o.json) {
      std::printf("%s\n", ToJson(*out.legacy).c_str());
    } else {
      std::fputs(DescribeLegacy(*out.legacy).c_str(), stdout);
    }
    return kExitOk;
  }
  return o.model == "frames" ? PrintFrameRuns(o, out) : PrintTape(o, out);
}

}  // namespace

// What `--help` says of the command, above its options.
constexpr const char* kDescription =
    "Run the identical resolver against the tape of every resolution recorded in FILE\n"
    "(by 'resolve --record' or 'liveness --record'): each call is answered with its\n"
    "recorded result, the clock is the recorded one, nothing live is read. Says\n"
    "REPRODUCED, VERDICT CHANGED (same evidence, another decision: both shown), or\n"
    "DIVERGED (the resolver asked for something the tape does not hold: where, and what).\n"
    "The request options below change the recorded request (a what-if: docs/replay.md).\n\n"
    "--model frames answers every call from the captured frames instead: from the latest\n"
    "frame scanned by the virtual time (a listing of /proc takes as long as that frame's\n"
    "scan did; sleeping moves the clock), and a pid absent from it answers ENOENT, like a\n"
    "live /proc. Recorded resolutions are re-run and compared with the recorded verdict\n"
    "(status, pid, start tick); a plain 'proctape capture' needs --root, --token and\n"
    "--exe-identity or --exe-like, and a token check a capture taken with --env keep\n"
    "(its environ is redacted otherwise). It exits with the verdict's status, as\n"
    "'resolve' does.\n\n"
    "--legacy-marker N reports what treating the marker N as a host pid and probing it\n"
    "with kill(N, 0) would have concluded at capture time, from the first frame (the\n"
    "capturer's uid from the file's header), beside the sandboxed sleep's real host pid\n"
    "when FILE records a RESOLVED resolution. It exits 0 once reported.";

constexpr const char* kExamples =
    "Examples:\n"
    "  proctape replay failure.ptape\n"
    "  proctape replay failure.ptape --token other   # what if...\n"
    "  proctape replay late.ptape --fingerprint root.ptape\n"
    "  proctape replay host.ptape --model frames --root 42 --token T --exe-like 43\n"
    "  proctape replay failure.ptape --legacy-marker 3\n\n";

// The options that change the recorded request (a what-if), and
// --legacy-marker; what RunReplay needs to know was given.
struct RequestOptions {
  CLI::Option* root;
  CLI::Option* root_start;
  CLI::Option* token;
  CLI::Option* token_var;
  CLI::Option* exe_like;
  CLI::Option* legacy;
};

RequestOptions AddRequestOptions(CLI::App* sub, ReplayOptions* o) {
  CLI::Option* root = AddLivePid(sub, "--root", o->root, "replace the recorded root pid");
  CLI::Option* root_start = AddUnsigned(sub, "--root-start", o->root_start, 1, UINT64_MAX,
                                        "replace the recorded root start tick (--model "
                                        "frames of a plain capture: the root's in the first "
                                        "frame)",
                                        "TICKS");
  CLI::Option* token =
      sub->add_option("--token", o->token, "replace the recorded token")->type_name("TOKEN");
  CLI::Option* token_var =
      sub->add_option("--token-var", o->token_var, "replace the recorded token variable")
          ->type_name("NAME");
  OneValueEach(
      sub->add_option("--argv", o->argv, "replace the expected argv; repeat for each element")
          ->type_name("ARG"));
  CLI::Option* exe_identity =
      sub->add_option("--exe-identity", o->exe_identity,
                      "replace the attested executable identity, as DEV:INO")
          ->check(NonEmpty("an empty DEV:INO identifies no executable"))
          ->type_name("DEV:INO");
  CLI::Option* exe_like = AddSigned(
      sub, "--exe-like", o->exe_like, 1, kMaxPidValue,
      "attest the executable of this captured pid: its exe identity in the first frame", "PID");
  sub->add_option("--fingerprint", o->fingerprint,
                  "what if the root had been fingerprinted before the turn: this file's root, "
                  "start tick and executable replace the recorded ones (exit 9: another boot)")
      ->check(NonEmptyPath())
      ->type_name("FILE")
      ->excludes(root)
      ->excludes(root_start)
      ->excludes(exe_identity)
      ->excludes(exe_like);
  CLI::Option* legacy =
      sub->add_option("--legacy-marker", o->legacy_marker,
                      "report what the legacy kill(N, 0) check on this marker would have concluded")
          ->type_name("MARKER");
  return {root, root_start, token, token_var, exe_like, legacy};
}

void RegisterReplay(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<ReplayOptions>();
  CLI::App* sub = app.add_subcommand("replay", kDescription);
  sub->add_option("FILE", o->file, "a recording or a capture; - for standard input")
      ->check(NonEmptyPath())
      ->required();
  sub->add_flag("--json", o->json,
                "print one JSON object for the file: a ReplayReport (its replays, or with "
                "--model frames its frame runs); --legacy-marker: a LegacyReport");
  sub->add_option("--model", o->model,
                  "tape: answer from the recorded tape; frames: from the captured frames")
      ->capture_default_str()
      ->check(CLI::IsMember({"tape", "frames"}));
  const RequestOptions given = AddRequestOptions(sub, o.get());
  sub->footer(
      std::string(kExamples) +
      ExitStatusFooter(
          "0 reproduced, 2 usage error, 3-8 the verdict's (--model frames), 9 another boot, 10-16 damaged file, 20 verdict changed, 21 diverged"));
  sub->callback([=] {
    // Only the options given change the recorded request.
    if (given.root->count() > 0) o->overrides.root_pid = o->root;
    if (given.root_start->count() > 0) o->overrides.root_start_ticks = o->root_start;
    if (given.token->count() > 0) o->overrides.token = o->token;
    if (given.token_var->count() > 0) o->overrides.token_var = o->token_var;
    o->has_root = given.root->count() > 0;
    o->has_token = given.token->count() > 0;
    o->has_exe_like = given.exe_like->count() > 0;
    o->has_legacy = given.legacy->count() > 0;
    *exit_code = RunReplay(*o);
  });
}

}  // namespace proctape
