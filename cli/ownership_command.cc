// SPDX-License-Identifier: Apache-2.0
// `proctape ownership`: the cleanup plan of `docs/ownership.md` over two
// snapshots (a baseline the verifier captured at bootstrap, and the current
// host): which same-uid, same-cgroup processes to keep and which to remove,
// each with its reason. It only plans: proctape never signals a process.
#include <cstdio>
#include <memory>
#include <string>

#include "ownership/plan_files.h"
#include "cli/command_io.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/outputs.h"
#include "cli/inputs.h"
#include "cli/options.h"
#include "cli/exit_codes.h"
#include "core/proc_parse.h"
#include "proto/convert.h"

namespace proctape {
namespace {

struct OwnershipOptions {
  OwnershipFiles files;
  bool json = false;
};

// A refused plan exits with the status of its first problem.
int PlanExitCode(const v1::OwnershipPlan& plan) {
  if (plan.outcome() == v1::OwnershipPlan::PLANNED) return kExitOk;
  if (plan.problems().empty()) return kExitInternal;
  switch (plan.problems(0).kind()) {
    case v1::OwnershipProblem::VERIFIER_MISSING: return kExitNotFound;
    case v1::OwnershipProblem::VERIFIER_RESTARTED: return kExitIdentityChanged;
    case v1::OwnershipProblem::FRAME_CUT: return kExitBound;
    case v1::OwnershipProblem::UNREADABLE_IDENTITY:
    case v1::OwnershipProblem::ANCESTRY_BROKEN:
    case v1::OwnershipProblem::OUTPUT_PARENT_SYMLINK:
    case v1::OwnershipProblem::OUTPUT_PARENT_NOT_DIRECTORY:
    case v1::OwnershipProblem::OUTPUT_UNREADABLE: return kExitBadEvidence;
    case v1::OwnershipProblem::SCOPE_WITHOUT_VERIFIER:
    case v1::OwnershipProblem::OTHER_SESSION: return kExitScope;
    default: return kExitUsage;  // the baseline is rejected for this request
  }
}

int RunOwnership(const OwnershipOptions& o) {
  if (MaybeFailure problem = OwnershipRequestProblem(o.files.request)) return Fail(*problem);
  if (int entered = EnterCommand(
          {"ownership", {{"--baseline", o.files.baseline}, {"--current", o.files.current}}});
      entered != kExitOk) {
    return entered;
  }
  OwnershipOutcome planned = PlanOwnershipFiles(o.files);
  if (planned.failure) {
    return FailAbout(planned.failed_option, planned.failed_path, *planned.failure);
  }
  if (o.json) {
    std::printf("%s\n", ToJson(planned.plan).c_str());
  } else {
    std::fputs(planned.text.c_str(), stdout);
  }
  std::fflush(stdout);
  for (const std::string& w : planned.warnings) Warn(w);
  const int code = PlanExitCode(planned.plan);
  if (code == kExitOk || planned.refusal.empty()) return code;
  // The status is the first problem's: Finish says it by that problem.
  return Finding(code, planned.refusal);
}

}  // namespace

// What `--help` says of the command, above its options.
constexpr const char* kDescription =
    "Plan a verifier's cleanup from two snapshots: which processes repository code started\n"
    "(REMOVE) and which the runtime owns (KEEP). It only plans: proctape never signals.\n\n"
    "The baseline is a 'proctape capture' the verifier runs as its very first command in\n"
    "its fresh sandbox; the current snapshot is a capture at cleanup time. Every process of\n"
    "the current snapshot's last frame whose real uid is --uid and whose cgroup v2 path is\n"
    "exactly --cgroup is decided, by identity (pid, start tick) alone:\n"
    "  KEEP   verifier  --self, the same (pid, start) in both snapshots\n"
    "  KEEP   ancestor  on the verifier's parent chain\n"
    "  KEEP   baseline  its exact (pid, start) is in the baseline, older than --self\n"
    "  REMOVE new       anything else, detached and double-forked children included\n"
    "  REMOVE pid-reused  the baseline had this pid with another start: no exemption\n"
    "Names and argv are shown, never consulted.\n\n"
    "The plan is REFUSED (nothing decided, every problem listed) when it cannot be sure:\n"
    "an identity that cannot be read, a frame cut by a bound, captures that do not fit\n"
    "(another boot or pid namespace, out of order, a baseline that is not the verifier's\n"
    "first command), --self missing or restarted, or a scope that is not the verifier's\n"
    "own (it does not hold --self, or it holds new processes of an older session:\n"
    "--force-scope plans them). --cgroup / is planned with a warning. Each --output\n"
    "gets a line. The rules and their reasons: docs/ownership.md.";

void RegisterOwnership(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<OwnershipOptions>();
  CLI::App* sub = app.add_subcommand("ownership", kDescription);
  sub->add_option("--baseline", o->files.baseline, "the capture taken at bootstrap (a .ptape file)")
      ->check(NonEmptyPath())
      ->type_name("FILE")
      ->required();
  sub->add_option("--current", o->files.current,
                  "the capture taken at cleanup time (a .ptape file)")
      ->check(NonEmptyPath())
      ->type_name("FILE")
      ->required();
  AddUnsigned(sub, "--uid", o->files.request.uid, 0, 4294967294,
              "the verifier's real uid (as 'id -u' prints it)", "UID")
      ->required();
  sub->add_option("--cgroup", o->files.request.cgroup,
                  "the verifier's cgroup v2 path (after \"0::\" in /proc/self/cgroup), "
                  "compared exactly")
      ->check(NonEmpty("an empty path names no cgroup (the root cgroup is /)"))
      ->type_name("PATH")
      ->required();
  AddSigned(sub, "--self", o->files.request.self_pid, 1, kMaxPidValue, "the verifier's pid", "PID")
      ->required();
  sub->add_flag("--all", o->files.request.all,
                "also list the processes out of scope (OUT) and those that vanished during the "
                "scan (GONE)");
  OneValueEach(
      sub->add_option("--output", o->files.request.outputs,
                      "a declared output of the task (repeat it): present, or already absent; a "
                      "parent that is a symbolic link or not a directory refuses the plan")
          ->check(NonEmptyPath("output"))
          ->type_name("PATH"));
  sub->add_flag("--force-scope", o->files.request.force_scope,
                "plan new processes of older sessions that are not the verifier's (refused "
                "without it: exit 26)");
  sub->add_flag("--json", o->json, "print the plan as one JSON object (OwnershipPlan)");
  sub->footer(
      std::string(
          "Examples (in the verifier, uid and cgroup its own):\n"
          "  proctape capture -o base.ptape        # first, at bootstrap\n"
          "  ... repository commands ...\n"
          "  proctape capture -o now.ptape\n"
          "  proctape ownership --baseline base.ptape --current now.ptape --self $$ \\\n"
          "    --uid \"$(id -u)\" --cgroup \"$(sed -n 's/^0:://p' /proc/self/cgroup)\"\n"
          "  ... --json | jq -r '.decisions[] | select(.action==\"REMOVE\") | .pid'\n\n"
          "A plan that removes processes is still exit 0: the plan is the output. A REFUSED\n"
          "plan exits with the status of its first problem.\n\n") +
      ExitStatusFooter("0 planned, 2 usage error; refused: 2 the baseline does not fit, 4 "
                       "the verifier restarted, 5 it is missing, 7 an unreadable identity or "
                       "output parent, 8 a frame cut, 26 not the verifier's scope; 10-16 a "
                       "damaged file"));
  sub->callback([o, exit_code] { *exit_code = RunOwnership(*o); });
}

}  // namespace proctape
