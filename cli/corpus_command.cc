// `proctape corpus add|check|list|rm`: the regression corpus (docs/corpus.md).
// A corpus directory holds a MANIFEST and the recordings it names; `add` puts
// a recording in once its replay gives its recorded verdict (or the one
// --expect states), `check` replays every entry and reports each that
// drifted, `list` shows the entries, `rm` takes entries out. The work is
// done by corpus/corpus.h; this file reads options, prints, and picks the
// exit status.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/options.h"
#include "cli/outputs.h"
#include "cli/exit_codes.h"
#include "cli/inputs.h"
#include "cli/progress.h"
#include "core/proc_parse.h"
#include "corpus/corpus.h"
#include "lab/lab.h"
#include "proto/convert.h"

namespace proctape {
namespace {

constexpr char kDefaultDir[] = "corpus";

// The corpus directory: --corpus DIR in every corpus command; check and list
// also take it as their one positional DIR, a shorthand. Both given is a
// usage error, even when they agree.
struct CorpusDirOption {
  std::string option = kDefaultDir;
  std::string positional;
  bool has_option = false;
  bool has_positional = false;

  void Register(CLI::App* sub, bool positional_too) {
    sub->add_option("--corpus", option, "the corpus directory")
        ->check(NonEmptyPath())
        ->type_name("DIR")
        ->capture_default_str()
        ->each([this](const std::string&) { has_option = true; });
    if (positional_too) {
      sub->add_option("DIR", positional, "the corpus directory: the same as --corpus DIR")
          ->check(NonEmptyPath())
          ->each([this](const std::string&) { has_positional = true; });
    }
  }
  // The directory, or "" after a usage error (*exit_code set).
  std::string Get(int* exit_code) const {
    if (has_option && has_positional) {
      *exit_code = Fail(kExitUsage, "the corpus is given twice (DIR and --corpus): give it once");
      return "";
    }
    return has_positional ? positional : option;
  }
};

// ---- add --------------------------------------------------------------------

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
  StdinCopy stdin_copy;
  if (file == "-") {
    // Read three times (hashed, replayed, copied): a copy of it is.
    std::string error;
    if (!stdin_copy.Open(&error)) return Fail(kExitIo, error);
    request.file = stdin_copy.path();
    request.shown = "-";
  }
  AddOutcome out = AddToCorpus(request);
  const int code = ExitFor(out);
  if (code != kExitOk) {
    std::fflush(stdout);
    return Fail(code, out.message);
  }
  for (const std::string& w : out.warnings) {
    std::fflush(stdout);
    Warn(w);
  }
  const bool added = out.kind == AddOutcome::Kind::kAdded;
  if (o.json) {
    v1::CorpusAddResult result;
    result.set_added(added);
    *result.mutable_entry() = ToProto(out.entry);
    for (const std::string& w : out.warnings) result.add_warnings(w);
    *json = ToJson(result);
  } else if (added) {
    std::printf("added %s as %s/%s: expect %s\n", out.entry.name.c_str(),
                EscapeBytes(o.request.dir, 4096).c_str(), out.entry.file.c_str(),
                Expects(out.entry).c_str());
  } else {
    std::printf("%s is already in the corpus as %s (%s)\n", EscapeBytes(file, 4096).c_str(),
                out.entry.name.c_str(), out.entry.file.c_str());
  }
  return kExitOk;
}

// Each file in the order given; a refusal does not stop the next. The exit
// status is the largest of theirs.
int RunAdd(AddOptions o) {
  if (std::string why = StdinOnce({{"FILE", o.files}}); !why.empty()) return Fail(kExitUsage, why);
  // The corpus directory, once for every file (checked by AddToCorpus before
  // each replay).
  int exit_code = kExitOk;
  o.request.dir = o.corpus.Get(&exit_code);
  if (o.request.dir.empty()) return exit_code;
  if (o.files.size() > 1 && !o.request.name.empty()) {
    return Fail(kExitUsage, "--name names one entry: give one FILE with it (" +
                                std::to_string(o.files.size()) + " given)");
  }
  if (o.files.size() > 1 && !o.request.expects.empty()) {
    return Fail(kExitUsage, "--expect states the verdicts of one FILE's resolutions: give one "
                            "FILE with it (" + std::to_string(o.files.size()) + " given)");
  }
  int worst = kExitOk;
  std::vector<std::string> results;
  for (const std::string& file : o.files) {
    std::string json;
    worst = Worst(worst, AddOne(o, file, &json));
    if (!json.empty()) results.push_back(json);
  }
  if (o.json && !results.empty()) std::printf("%s\n", JsonList(results).c_str());
  return worst;
}

// ---- check ------------------------------------------------------------------

struct CheckCliOptions {
  CorpusDirOption corpus;
  unsigned jobs = 0;  // 0: one per core
  std::string junit;
  bool has_junit = false;
  bool force = false;
  bool json = false;
  std::vector<std::string> only;
};

int RunCheck(const CheckCliOptions& o) {
  int exit_code = kExitOk;
  const std::string dir = o.corpus.Get(&exit_code);
  if (dir.empty()) return exit_code;
  if (std::string why = ForceWithoutOutput(o.force, "--junit", o.has_junit, o.junit);
      !why.empty()) {
    return Fail(kExitUsage, why);
  }
  // The JUnit file before any entry is replayed: checked, its temporary made.
  std::unique_ptr<OutputFile> junit;
  if (o.has_junit) {
    OutputRequest request;
    request.path = o.junit;
    request.force = o.force;
    junit = OpenOutput(request, &exit_code);
    if (!junit) return exit_code;
  }
  Manifest manifest;
  std::string error;
  if (!LoadManifest(dir, false, &manifest, &error)) return Fail(kExitCorpusManifest, error);
  std::vector<ManifestEntry> entries;
  for (const std::string& name : o.only) {
    auto it = std::find_if(manifest.entries.begin(), manifest.entries.end(),
                           [&](const ManifestEntry& e) { return e.name == name; });
    if (it == manifest.entries.end()) {
      return Fail(kExitUsage, "no entry " + EscapeBytes(name) + " in " +
                                  EscapeBytes(ManifestPath(dir), 4096));
    }
  }
  for (const ManifestEntry& e : manifest.entries) {  // manifest order, --entry or not
    if (o.only.empty() || std::count(o.only.begin(), o.only.end(), e.name) > 0) {
      entries.push_back(e);
    }
  }
  CheckOptions options;
  options.jobs = o.jobs > 0 ? o.jobs : std::max(std::thread::hardware_concurrency(), 1u);
  Progress progress;
  if (progress.active()) {
    options.progress = [&progress](std::size_t done, std::size_t total, const std::string& name) {
      progress.Show("[" + std::to_string(done) + "/" + std::to_string(total) + "] " + name);
    };
  }
  v1::CorpusReport report = CheckCorpus(dir, entries, options);
  progress.Done();

  if (o.json) {
    std::printf("%s\n", ToJson(report).c_str());
  } else {
    for (const v1::CorpusEntryResult& r : report.results()) {
      std::string line = CheckLine(r);
      if (!line.empty()) std::printf("%s\n", line.c_str());
    }
    std::printf("%s\n", SummaryLine(report).c_str());
  }
  std::fflush(stdout);
  if (junit && (!junit->Write(JUnitXml(report), &error) || !junit->Commit(&error))) {
    return Fail(kExitIo, error);
  }
  for (const v1::CorpusEntryResult& r : report.results()) {
    if (r.file_missing()) return kExitCorpusManifest;  // the manifest names a missing file
  }
  return report.drifted() + report.unreadable() > 0 ? kExitCorpusDrift : kExitOk;
}

// ---- list -------------------------------------------------------------------

struct ListOptions {
  CorpusDirOption corpus;
  bool json = false;
};

int RunList(const ListOptions& o) {
  int exit_code = kExitOk;
  const std::string dir = o.corpus.Get(&exit_code);
  if (dir.empty()) return exit_code;
  Manifest manifest;
  std::string error;
  if (!LoadManifest(dir, false, &manifest, &error)) return Fail(kExitCorpusManifest, error);
  if (o.json) {
    v1::CorpusList list;
    list.set_dir(EscapeBytes(dir, 4096));
    for (const ManifestEntry& e : manifest.entries) *list.add_entries() = ToProto(e);
    std::printf("%s\n", ToJson(list).c_str());
    return kExitOk;
  }
  std::size_t width = 0;
  for (const ManifestEntry& e : manifest.entries) width = std::max(width, e.name.size());
  for (const ManifestEntry& e : manifest.entries) {
    std::printf("%s\n", ListLine(e, width).c_str());
  }
  return kExitOk;
}

// ---- rm ---------------------------------------------------------------------

struct RmOptions {
  std::vector<std::string> names;
  CorpusDirOption corpus;
  bool json = false;
};

int RunRm(const RmOptions& o) {
  int exit_code = kExitOk;
  const std::string corpus_dir = o.corpus.Get(&exit_code);
  if (corpus_dir.empty()) return exit_code;
  RemoveOutcome out = RemoveFromCorpus(corpus_dir, o.names);
  const std::string dir = EscapeBytes(corpus_dir, 4096);
  if (o.json && !out.removed.empty()) {
    // The entries removed, as 'corpus list --json' shows entries.
    v1::CorpusList list;
    list.set_dir(dir);
    for (const ManifestEntry& e : out.removed) *list.add_entries() = ToProto(e);
    std::printf("%s\n", ToJson(list).c_str());
  } else {
    for (const ManifestEntry& e : out.removed) {
      std::printf("removed %s (%s/%s) from the corpus\n", e.name.c_str(), dir.c_str(),
                  e.file.c_str());
    }
  }
  std::fflush(stdout);
  for (const std::string& w : out.warnings) Warn(w);
  switch (out.kind) {
    case RemoveOutcome::Kind::kRemoved: return kExitOk;
    case RemoveOutcome::Kind::kUsage: return Fail(kExitUsage, out.message);
    case RemoveOutcome::Kind::kManifest: return Fail(kExitCorpusManifest, out.message);
    case RemoveOutcome::Kind::kIo: return Fail(kExitIo, out.message);
  }
  return kExitInternal;
}

}  // namespace

void RegisterCorpus(CLI::App& app, int* exit_code) {
  CLI::App* corpus = app.add_subcommand(
      "corpus",
      "The regression corpus: a directory holding recordings (.ptape files named by their\n"
      "content's SHA-256) and a MANIFEST that says, for each, the verdict every recorded\n"
      "resolution must replay to, what it shows and how it was captured. 'add' puts a\n"
      "recording in, 'check' replays them all and reports drift, 'list' shows them, 'rm'\n"
      "takes them out.\n"
      "Each entry of the repository's corpus/ is also a ctest test (corpus/NAME).");
  corpus->require_subcommand(1);
  corpus->footer(
      std::string("Examples:\n"
                  "  proctape corpus add failure.ptape --note 'sleep resolved under bwrap'\n"
                  "  proctape corpus check\n"
                  "  proctape corpus list\n"
                  "  proctape corpus rm ci-flake\n"
                  "Run 'proctape corpus COMMAND --help' for one command; docs/corpus.md has the\n"
                  "MANIFEST format.\n\n") +
      ExitStatusFooter("each command's own (its --help); 2 usage error: no command, or an unknown one"));

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
      ->required();
  add->corpus.Register(a, false);
  a->add_option("--name", add->request.name,
                "the entry's name (default: SCENARIO-SANDBOX for a lab recording, else FILE's "
                "base name); [A-Za-z0-9._-], at most 64")
      ->type_name("NAME");
  CLI::Option* note = a->add_option(
      "--note", add->request.note,
      "what the recording shows, in a sentence (default for a 'proctape lab' recording: what "
      "its scenario shows, docs/lab.md)")
      ->type_name("SENTENCE");
  a->add_option("--expect", add->request.expects,
                "the verdict resolution K must give, K = 0, 1, ...: a status (NO_MATCH, DEAD, "
                "ERROR PID_REUSED; RESOLVED or ERROR alone take the identity or reason from "
                "the replay) or RESOLVED pid=N start=T")
      ->type_name("VERDICT")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  a->add_flag("--json", add->json, "print the entry as one JSON object (CorpusAddResult)");
  a->footer(std::string("Examples:\n"
                        "  proctape corpus add failure.ptape --note 'pid reused under load'\n"
                        "  proctape corpus add lab.ptape --corpus corpus --name plain-bwrap\n"
                        "  proctape corpus add bug.ptape --expect NO_MATCH  # what a fix gives\n"
                        "  proctape lab plain --record p.ptape && proctape corpus add - < p.ptape\n\n") +
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

  auto check = std::make_shared<CheckCliOptions>();
  CLI::App* c = corpus->add_subcommand(
      "check",
      "Replay every entry and report each that drifted. Each entry of the corpus in DIR is\n"
      "replayed and its verdicts compared with the MANIFEST's expect lines. Prints one line\n"
      "per entry that drifted (DRIFT NAME: expected X; got Y; a replay that DIVERGED drifts\n"
      "too) or cannot be checked (UNREADABLE NAME: why: missing, changed since added,\n"
      "damaged), then a summary line. Entries are replayed in parallel; the output is in\n"
      "manifest order. Progress is shown on standard error when it is a terminal. Exit 0\n"
      "when every entry reproduced, 22 otherwise, 23 when the MANIFEST does not parse or\n"
      "names a missing file.");
  check->corpus.Register(c, true);
  AddUnsigned(c, "--jobs,-j", check->jobs, 1, 1024,
              "entries replayed at once (default: one per core)");
  AddSideOutputOption(c, "--junit", check->junit,
                      "also write JUnit XML to this file: a testcase per entry, <failure> for a "
                      "drift, <error> for an unreadable entry")
      ->each([check](const std::string&) { check->has_junit = true; });
  AddForceOption(c, check->force, "with --junit FILE: replace an existing FILE");
  c->add_option("--entry", check->only, "check only this entry; repeat for more")
      ->type_name("NAME")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  c->add_flag("--json", check->json, "print the report as one JSON object (CorpusReport)");
  c->footer(std::string("Examples:\n"
                        "  proctape corpus check                     # ./corpus\n"
                        "  proctape corpus check corpus --junit corpus.xml --jobs 4\n"
                        "  proctape corpus check corpus --entry plain-unshare\n\n") +
            ExitStatusFooter("0 every entry reproduced, 2 usage error, 10 --junit refused or cannot be written, "
                             "22 an entry drifted or is unreadable, 23 bad MANIFEST"));
  c->callback([check, exit_code] { *exit_code = RunCheck(*check); });

  auto list = std::make_shared<ListOptions>();
  CLI::App* l = corpus->add_subcommand(
      "list", "List the entries. One line per entry of the corpus in DIR: name, expected\n"
              "verdicts, kernel, capture time, what it shows.");
  list->corpus.Register(l, true);
  l->add_flag("--json", list->json, "print the entries as one JSON object (CorpusList)");
  l->footer(std::string("Example:\n  proctape corpus list corpus\n\n") + ExitStatusFooter("0, 2 usage error, 23 bad MANIFEST"));
  l->callback([list, exit_code] { *exit_code = RunList(*list); });

  auto rm = std::make_shared<RmOptions>();
  CLI::App* r = corpus->add_subcommand(
      "rm",
      "Take entries out of the corpus. Each NAME leaves the MANIFEST and its recording is\n"
      "deleted from the directory (the MANIFEST is rewritten first, under the directory's\n"
      "lock, as 'add' writes it). All the names or none: a NAME that is not an entry removes\n"
      "nothing (exit 2). The repository's corpus is in git: 'git checkout corpus/' undoes it.");
  r->add_option("NAME", rm->names, "an entry's name, as 'proctape corpus list' shows it")
      ->required();
  rm->corpus.Register(r, false);
  r->add_flag("--json", rm->json,
              "print the removed entries as one JSON object (CorpusList, as 'list --json')");
  r->footer(std::string("Examples:\n"
                        "  proctape corpus rm plain-bwrap\n"
                        "  proctape corpus rm ci-flake-1 ci-flake-2 --corpus my-corpus\n\n") +
            ExitStatusFooter("0 removed, 2 usage error, or no such entry (nothing removed), 10 a file cannot be "
                             "written or deleted, 23 no MANIFEST or a bad one"));
  r->callback([rm, exit_code] { *exit_code = RunRm(*rm); });
}

}  // namespace proctape
