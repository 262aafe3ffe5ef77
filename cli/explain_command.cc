// SPDX-License-Identifier: Apache-2.0
// `proctape explain FILE`: each recorded check told step by step, from a
// replay of the identical resolver against the file's tape (analyze/explain.h).
// Never reads the live /proc, never sleeps.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "analyze/explain.h"
#include "analyze/explain_file.h"
#include "cli/command_io.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/options.h"
#include "cli/outputs.h"
#include "cli/exit_codes.h"
#include "proto/convert.h"

namespace proctape {
namespace {

struct ExplainOptions {
  std::string file;
  bool json = false;
  bool all = false;
  std::optional<std::size_t> check;
};

// The status of what was explained: a check that diverged (21), else one
// whose verdict changed (20), else 0.
int ReplayStatus(const v1::Explanation& explanation) {
  int code = kExitOk;
  for (const v1::ExplainCheck& c : explanation.checks()) {
    if (c.replay() == v1::ReplayResult::DIVERGED) return kExitDiverged;
    if (c.replay() == v1::ReplayResult::VERDICT_CHANGED) code = kExitVerdictChanged;
  }
  return code;
}

int RunExplain(const ExplainOptions& o) {
  if (int entered = EnterCommand({"explain", {{"FILE", o.file}}}); entered != kExitOk)
    return entered;
  const ExplainedFile explained = ExplainFile({o.file, o.check, "--check"});
  // The file's name may hold a piece of its token: said masked.
  if (explained.input_failure) {
    return FailAbout("", explained.mask.Masked(o.file), *explained.input_failure);
  }
  if (explained.failure) return Fail(*explained.failure);
  if (o.json) {
    std::printf("%s\n", ToJson(explained.explanation).c_str());
  } else {
    std::fputs(RenderExplanation(explained.explanation, o.all).c_str(), stdout);
  }
  return ReplayStatus(explained.explanation);
}

}  // namespace

void RegisterExplain(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<ExplainOptions>();
  CLI::App* sub = app.add_subcommand(
      "explain",
      "Tell each check recorded in FILE (by 'resolve --record', 'liveness --record' or\n"
      "'lab') step by step. The check is replayed with the identical resolver against its\n"
      "tape and every call it makes is told with the recorded answer:\n"
      "  - each attempt: when it started, how many /proc entries it listed, the root's\n"
      "    record, the processes beneath the root;\n"
      "  - each of them the resolver inspected, and why it is or is not the process:\n"
      "    argv (shown escaped) not the expected one; no token entry, another token, the\n"
      "    token in more than one entry; the executable not the attested one; the ancestry\n"
      "    re-read (a start tick or a parent that changed, a process gone or dead);\n"
      "  - why it retried, and what ended it: the verdict, the deadline, a bound.\n"
      "A liveness check is its one stat re-read: gone, another start tick, or the state.\n"
      "Environ values are never shown: only how many entries carry the token variable.\n"
      "Consecutive attempts that read alike are told once (--all tells each), also when\n"
      "processes unrelated to the check (not beneath the root) came and went between them.\n"
      "Checks count from 0, as 'proctape replay' numbers its resolutions. When the tape no\n"
      "longer replays to its recorded verdict (as 'proctape replay' says), what is told is\n"
      "what the resolver does now, up to where the tape diverged.");
  sub->add_option(
         "FILE", o->file,
         "a recording: 'resolve --record', 'liveness --record', 'lab'; - for standard input")
      ->check(NonEmptyPath())
      ->required();
  sub->add_flag("--json", o->json,
                "one JSON object, an Explanation (proto/explain.proto; host bytes as escaped "
                "text, docs/cli/json.md); every attempt, as with --all");
  sub->add_flag("--all", o->all,
                "tell every attempt, also those alike the one before (--json holds every attempt)");
  AddUnsigned(sub, "--check", o->check, 0, 4294967295, "explain only recorded check N (from 0)");
  sub->footer(std::string("Examples:\n"
                          "  proctape explain failure.ptape\n"
                          "  proctape explain failure.ptape --check 1\n"
                          "  proctape explain never-exec.ptape --all      # every retry\n"
                          "  proctape explain failure.ptape --json | jq '.checks[0].attempts[-1]'\n"
                          "  proctape explain corpus/703c44185d6f3686.ptape\n\n") +
              ExitStatusFooter("0 explained, 2 usage error: no such check, or a plain capture, "
                               "which holds none (try 'proctape replay FILE --model frames'), "
                               "10-16 damaged file, 20 verdict changed, 21 diverged"));
  sub->callback([o, exit_code] { *exit_code = RunExplain(*o); });
}

}  // namespace proctape
