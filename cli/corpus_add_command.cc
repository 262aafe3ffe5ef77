// SPDX-License-Identifier: Apache-2.0
// `proctape corpus add`: recordings into the corpus once they replay to their
// verdict (cli/corpus_command.cc).
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/command_io.h"
#include "cli/corpus_cli.h"
#include "cli/errors.h"
#include "cli/options.h"
#include "cli/outputs.h"
#include "cli/exit_codes.h"
#include "cli/inputs.h"
#include "core/proc_parse.h"
#include "corpus/corpus.h"
#include "lab/lab.h"
#include "proto/convert.h"
#include "proto/summary.h"

namespace proctape {
namespace {

struct AddOptions {
  std::vector<std::string> files;
  AddRequest request;  // for every file: its note, and one file's name and expects
  CorpusDirOption corpus;
  bool json = false;
};

int ExitFor(const AddOutcome& out) {
  switch (out.kind) {
    case AddOutcome::Kind::kAdded:
    case AddOutcome::Kind::kAlreadyPresent: return kExitOk;
    case AddOutcome::Kind::kUsage: return kExitUsage;
    case AddOutcome::Kind::kFile: return ExitCodeFor(out.file_error);
    case AddOutcome::Kind::kVerdictChanged: return kExitVerdictChanged;
    case AddOutcome::Kind::kDiverged: return kExitDiverged;
    case AddOutcome::Kind::kManifest: return kExitCorpusManifest;
    case AddOutcome::Kind::kIo: return kExitIo;
  }
  return kExitInternal;
}

std::string Expects(const ManifestEntry& e) {
  std::string out;
  for (const std::string& x : e.expects) out += (out.empty() ? "" : ", ") + EscapeValue(x);
  return out;
}

// One file, added or refused: its line (JSON: into *json), its status.
int AddOne(const AddOptions& o, const std::string& file, std::string* json) {
  AddRequest request = o.request;
  request.file = file;
  // Read three times (hashed, replayed, copied): standard input or a pipe
  // is copied once.
  InputCopy input_copy;
  if (MaybeFailure failed = input_copy.Open(file)) {
    return Fail(kExitIo, EscapeBytes(failed->message));
  }
  if (input_copy.copied()) {
    request.file = input_copy.path();
    request.shown = file;
  }
  AddOutcome out = AddToCorpus(request);
  const int code = ExitFor(out);
  v1::CorpusAddResult result;
  result.set_file(EscapedText(file));
  if (code != kExitOk) {
    // Its entry in the document too (with several FILEs every input has
    // one); the line on standard error is the failure's.
    result.set_outcome("refused");
    result.set_error(out.message);  // proctape's line, its host bytes escaped already
    result.set_exit_status(code);
    if (o.json) *json = ToJson(result);
    std::fflush(stdout);
    return Fail(code, out.message);
  }
  for (const std::string& w : out.warnings) {
    std::fflush(stdout);
    Warn(w);
  }
  const bool added = out.kind == AddOutcome::Kind::kAdded;
  if (o.json) {
    result.set_added(added);
    result.set_outcome(added ? "added" : "duplicate");
    *result.mutable_entry() = ToProto(out.entry);
    for (const std::string& w : out.warnings) result.add_warnings(w);
    *json = ToJson(result);
  } else if (added) {
    std::printf("added %s as %s/%s: expect %s\n", out.entry.name.c_str(),
                EscapeBytes(o.request.dir, 4096).c_str(), out.entry.file.c_str(),
                Expects(out.entry).c_str());
  } else {
    std::printf("%s is already in the corpus as %s (%s, expect %s): not added again\n",
                EscapeBytes(file, 4096).c_str(), out.entry.name.c_str(), out.entry.file.c_str(),
                Expects(out.entry).c_str());
  }
  return kExitOk;
}

// Each file in the order given; a refusal does not stop the next. The exit
// status is the largest of theirs.
int RunAdd(AddOptions o) {
  // The corpus directory, once for every file (checked by AddToCorpus before
  // each replay).
  int exit_code = kExitOk;
  o.request.dir = o.corpus.Get(&exit_code);
  if (o.request.dir.empty()) return exit_code;
  std::vector<InputPath> inputs = InputsNamed("FILE", o.files);
  inputs.push_back({"the corpus", o.request.dir, false, true});
  if (int entered = EnterCommand({"corpus add", inputs}); entered != kExitOk) return entered;
  if (o.files.size() > 1 && !o.request.name.empty()) {
    return Fail(kExitUsage, "--name names one entry: give one FILE with it (" +
                                std::to_string(o.files.size()) + " given)");
  }
  if (o.files.size() > 1 && !o.request.expects.empty()) {
    return Fail(kExitUsage,
                "--expect states the verdicts of one FILE's resolutions: give one "
                "FILE with it (" +
                    std::to_string(o.files.size()) + " given)");
  }
  int worst = kExitOk;
  std::vector<std::string> results;
  for (const std::string& file : o.files) {
    std::string json;
    worst = Worst(worst, AddOne(o, file, &json));
    if (!json.empty()) results.push_back(json);
  }
  // One FILE refused: its failure is the JSON object on standard error, and
  // standard output holds no document (as every command's failure). Several:
  // every FILE has its entry, refused ones included.
  const bool one_refused = o.files.size() == 1 && worst != kExitOk;
  if (o.json && !results.empty() && !one_refused) std::printf("%s\n", JsonList(results).c_str());
  return worst;
}

}  // namespace

constexpr const char* kExamples =
    "Examples:\n"
    "  proctape corpus add failure.ptape --note 'pid reused under load'\n"
    "  proctape corpus add lab.ptape --corpus corpus --name plain-bwrap\n"
    "  proctape corpus add bug.ptape --expect NO_MATCH  # what a fix gives\n"
    "  proctape lab plain --record p.ptape && proctape corpus add - < p.ptape\n\n";

void RegisterCorpusAdd(CLI::App* corpus, int* exit_code) {
  auto add = std::make_shared<AddOptions>();
  CLI::App* a = corpus->add_subcommand(
      "add",
      "Add recordings to the corpus. FILE must be intact and hold at least one recorded\n"
      "resolution; each is replayed against its tape. A replay that DIVERGED is refused\n"
      "(exit 21); a VERDICT CHANGED is refused (exit 20) unless --expect states the\n"
      "verdict wanted (one --expect per recorded resolution, in order), for a bug not yet\n"
      "fixed: the entry is then added with a warning and drifts in 'check' until the\n"
      "resolver gives it. FILE is copied (never moved) to DIR/<sha256 prefix>.ptape and\n"
      "its entry written to DIR/MANIFEST (both created when missing, entries sorted by\n"
      "name). Content already in the corpus is not added twice: its name is printed,\n"
      "exit 0.");
  a->add_option("FILE", add->files,
                "a recording ('proctape resolve|liveness|lab ... --record FILE'), or - for "
                "standard input; several are added in order, a refusal does not stop the next")
      ->check(NonEmptyPath())
      ->required();
  add->corpus.Register(a, false);
  a->add_option("--name", add->request.name,
                "the entry's name (default: SCENARIO-SANDBOX for a lab recording, else FILE's "
                "base name); [A-Za-z0-9._-], at most 64")
      ->check(NonEmpty("an empty name names no entry"))
      ->type_name("NAME");
  CLI::Option* note =
      a->add_option(
           "--note", add->request.note,
           "what the recording shows, in a sentence (default for a 'proctape lab' recording: what "
           "its scenario shows, docs/lab.md)")
          ->check(NonEmpty("an empty note says nothing (leave --note out for the default)"))
          ->type_name("SENTENCE");
  OneValueEach(
      a->add_option("--expect", add->request.expects,
                    "the verdict resolution K must give, K = 0, 1, ...: a status (NO_MATCH, DEAD, "
                    "ERROR PID_REUSED; RESOLVED or ERROR alone take the identity or reason from "
                    "the replay) or RESOLVED pid=N start=T")
          ->check(NonEmpty("an empty verdict states nothing"))
          ->type_name("VERDICT"));
  a->add_flag("--json", add->json, "print the entry as one JSON object (CorpusAddResult)");
  a->footer(std::string(kExamples) +
            ExitStatusFooter("0 added, 2 usage error, 10 the corpus cannot be written (checked "
                             "first), 11-16 a damaged file, 20/21 the file does not replay to its "
                             "verdict, 23 bad MANIFEST (several files: the largest of their "
                             "statuses)"));
  a->callback([add, note, exit_code] {
    // Without --note, a lab recording says what its scenario shows.
    add->request.scenario_note = nullptr;
    if (note->count() == 0) {
      add->request.scenario_note = [](const std::string& scenario) {
        const lab::ScenarioInfo* s = lab::FindScenario(scenario);
        return s != nullptr ? std::string(s->shows) : std::string();
      };
    }
    *exit_code = RunAdd(*add);
  });
}

}  // namespace proctape
