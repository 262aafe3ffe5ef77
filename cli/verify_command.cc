// SPDX-License-Identifier: Apache-2.0
// `proctape verify FILE...`: says whether each snapshot file is intact, or
// names its first damage (chunk and byte offset) with the exit status of its
// kind (replay/file_verify.h reads and checks it). Several files are
// verified in the order given, each on its own line; the exit status is the
// largest of theirs (0 only when every file is intact).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/command_io.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/outputs.h"
#include "cli/options.h"
#include "cli/exit_codes.h"
#include "cli/inputs.h"
#include "proto/convert.h"
#include "replay/file_verify.h"

namespace proctape {
namespace {

struct VerifyOptions {
  std::vector<std::string> files;
  bool json = false;
};

// One file: its line (text) or its report (JSON, into *json), then its
// damage or warnings (under --json as well: the damage as the ErrorReport
// every failure is, docs/cli.md §3, the report being the finding on
// standard output); its status.
int VerifyOne(const std::string& file, bool json, std::string* report) {
  const FileVerified verified = VerifyFile(file);
  if (json) {
    *report = ToJson(verified.report);
  } else {
    std::fputs(verified.line.c_str(), stdout);
  }
  if (verified.damage) {
    std::fflush(stdout);
    return Fail(*verified.damage);
  }
  for (const std::string& warning : verified.warnings) {
    std::fflush(stdout);
    Warn(warning);
  }
  return kExitOk;
}

int RunVerify(const VerifyOptions& o) {
  if (int entered = EnterCommand({"verify", InputsNamed("FILE", o.files)}); entered != kExitOk) {
    return entered;
  }
  int worst = kExitOk;
  std::vector<std::string> reports;
  for (const std::string& file : o.files) {
    std::string json;
    worst = Worst(worst, VerifyOne(file, o.json, &json));
    if (o.json) reports.push_back(json);
  }
  // One JSON document: the report of one file, or {"files": [...]} of them.
  if (o.json) std::printf("%s\n", JsonList(reports).c_str());
  return worst;
}

}  // namespace

void RegisterVerify(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<VerifyOptions>();
  CLI::App* sub = app.add_subcommand(
      "verify",
      "Read a snapshot file whole and check it: every chunk's size, checksum and order.\n"
      "Prints what it holds, or the first damage (chunk and byte offset); a capture that\n"
      "was killed (NAME.partial) reports where it was cut, and what came before it counts.");
  sub->add_option("FILE", o->files,
                  "a .ptape file, or - for standard input; several are "
                  "verified in order")
      ->check(NonEmptyPath())
      ->required();
  sub->add_flag("--json", o->json, "print the report as one JSON object");
  sub->footer(std::string("Examples:\n"
                          "  proctape verify host-20261130T120000Z.ptape\n"
                          "  proctape verify *.ptape --json\n"
                          "  ssh ci cat failure.ptape | proctape verify -\n\n") +
              ExitStatusFooter("0 intact, 2 usage error, 10-16 the kind of damage (several files: "
                               "the largest of their statuses)"));
  sub->callback([o, exit_code] { *exit_code = RunVerify(*o); });
}

}  // namespace proctape
