// `proctape corpus add|check|list`: the regression corpus (docs/corpus.md).
// A corpus directory holds a MANIFEST and the recordings it names; `add` puts
// a recording in once its replay gives its recorded verdict (or the one
// --expect states), `check` replays every entry and reports each that
// drifted, `list` shows the entries. The work is done by corpus/corpus.h;
// this file reads options, prints, and picks the exit status.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/options.h"
#include "cli/exit_codes.h"
#include "core/proc_parse.h"
#include "corpus/corpus.h"
#include "proto/convert.h"

namespace proctape {
namespace {

constexpr char kDefaultDir[] = "corpus";

// ---- add --------------------------------------------------------------------

struct AddOptions {
  AddRequest request;
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

int RunAdd(const AddOptions& o) {
  AddOutcome out = AddToCorpus(o.request);
  const int code = ExitFor(out);
  if (code != kExitOk) return Fail(code, out.message);
  for (const std::string& w : out.warnings) Warn(w);
  const bool added = out.kind == AddOutcome::Kind::kAdded;
  if (o.json) {
    v1::CorpusAddResult result;
    result.set_added(added);
    *result.mutable_entry() = ToProto(out.entry);
    for (const std::string& w : out.warnings) result.add_warnings(w);
    std::printf("%s\n", ToJson(result).c_str());
  } else if (added) {
    std::printf("added %s as %s/%s: expect %s\n", out.entry.name.c_str(),
                EscapeBytes(o.request.dir, 4096).c_str(), out.entry.file.c_str(),
                Expects(out.entry).c_str());
  } else {
    std::printf("%s is already in the corpus as %s (%s)\n",
                EscapeBytes(o.request.file, 4096).c_str(), out.entry.name.c_str(),
                out.entry.file.c_str());
  }
  return kExitOk;
}

// ---- check ------------------------------------------------------------------

struct CheckCliOptions {
  std::string dir = kDefaultDir;
  unsigned jobs = 0;  // 0: one per core
  std::string junit;
  bool json = false;
  std::vector<std::string> only;
};

int RunCheck(const CheckCliOptions& o) {
  Manifest manifest;
  std::string error;
  if (!LoadManifest(o.dir, false, &manifest, &error)) return Fail(kExitCorpusManifest, error);
  std::vector<ManifestEntry> entries;
  for (const std::string& name : o.only) {
    auto it = std::find_if(manifest.entries.begin(), manifest.entries.end(),
                           [&](const ManifestEntry& e) { return e.name == name; });
    if (it == manifest.entries.end()) {
      return Fail(kExitUsage, "no entry " + EscapeBytes(name) + " in " +
                                  EscapeBytes(ManifestPath(o.dir), 4096));
    }
  }
  for (const ManifestEntry& e : manifest.entries) {  // manifest order, --entry or not
    if (o.only.empty() || std::count(o.only.begin(), o.only.end(), e.name) > 0) {
      entries.push_back(e);
    }
  }
  CheckOptions options;
  options.jobs = o.jobs > 0 ? o.jobs : std::max(std::thread::hardware_concurrency(), 1u);
  const bool terminal = ::isatty(STDERR_FILENO) == 1;
  if (terminal) {
    options.progress = [](std::size_t done, std::size_t total, const std::string& name) {
      std::fprintf(stderr, "\r\033[K[%zu/%zu] %s", done, total, name.c_str());
      std::fflush(stderr);
    };
  }
  v1::CorpusReport report = CheckCorpus(o.dir, entries, options);
  if (terminal && !entries.empty()) std::fputs("\r\033[K", stderr);

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
  if (!o.junit.empty() && !WriteFileAtomic(o.junit, JUnitXml(report), &error)) {
    return Fail(kExitIo, error);
  }
  for (const v1::CorpusEntryResult& r : report.results()) {
    if (r.file_missing()) return kExitCorpusManifest;  // the manifest names a missing file
  }
  return report.drifted() + report.unreadable() > 0 ? kExitCorpusDrift : kExitOk;
}

// ---- list -------------------------------------------------------------------

struct ListOptions {
  std::string dir = kDefaultDir;
  bool json = false;
};

int RunList(const ListOptions& o) {
  Manifest manifest;
  std::string error;
  if (!LoadManifest(o.dir, false, &manifest, &error)) return Fail(kExitCorpusManifest, error);
  if (o.json) {
    v1::CorpusList list;
    list.set_dir(EscapeBytes(o.dir, 4096));
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

}  // namespace

void RegisterCorpus(CLI::App& app, int* exit_code) {
  CLI::App* corpus = app.add_subcommand(
      "corpus",
      "The regression corpus: a directory holding recordings (.ptape files named by their\n"
      "content's SHA-256) and a MANIFEST that says, for each, the verdict every recorded\n"
      "resolution must replay to, what it shows and how it was captured. 'add' puts a\n"
      "recording in, 'check' replays them all and reports drift, 'list' shows them.\n"
      "Each entry of the repository's corpus/ is also a ctest test (corpus/NAME).");
  corpus->require_subcommand(1);
  corpus->footer(
      "Examples:\n"
      "  proctape corpus add failure.ptape --note 'sleep resolved under bwrap'\n"
      "  proctape corpus check\n"
      "  proctape corpus list\n"
      "Run 'proctape corpus COMMAND --help' for one command; docs/corpus.md has the MANIFEST\n"
      "format.");

  auto add = std::make_shared<AddOptions>();
  add->request.dir = kDefaultDir;
  CLI::App* a = corpus->add_subcommand(
      "add",
      "Add a recording to the corpus. FILE must be intact and hold at least one recorded\n"
      "resolution; each is replayed against its tape. A replay that DIVERGED is refused\n"
      "(exit 21); a VERDICT CHANGED is refused (exit 20) unless --expect states the\n"
      "verdict wanted (one --expect per recorded resolution, in order), for a bug not yet\n"
      "fixed: the entry is then added with a warning and drifts in 'check' until the\n"
      "resolver gives it. FILE is copied (never moved) to DIR/<sha256 prefix>.ptape and\n"
      "its entry written to DIR/MANIFEST (both created when missing, entries sorted by\n"
      "name). Content already in the corpus is not added twice: its name is printed,\n"
      "exit 0.");
  a->add_option("FILE", add->request.file, "a recording: 'proctape resolve|liveness|lab ... "
                                            "--record FILE'")
      ->required();
  a->add_option("--corpus", add->request.dir, "the corpus directory")->capture_default_str();
  a->add_option("--name", add->request.name,
                "the entry's name (default: SCENARIO-SANDBOX for a lab recording, else FILE's "
                "base name); [A-Za-z0-9._-], at most 64");
  a->add_option("--note", add->request.note, "what the recording shows, in a sentence");
  a->add_option("--expect", add->request.expects,
                "the verdict resolution K must give, K = 0, 1, ...: a status (NO_MATCH, DEAD, "
                "ERROR PID_REUSED; RESOLVED or ERROR alone take the identity or reason from "
                "the replay) or RESOLVED pid=N start=T")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  a->add_flag("--json", add->json, "print the entry as one JSON object (CorpusAddResult)");
  a->footer(std::string("Examples:\n"
                        "  proctape corpus add failure.ptape --note 'pid reused under load'\n"
                        "  proctape corpus add lab.ptape --corpus corpus --name plain-bwrap\n"
                        "  proctape corpus add bug.ptape --expect NO_MATCH   # pins the verdict "
                        "a fix must give\n\n") +
            ExitStatusFooter("0 added, 20/21 the file does not replay to its verdict, 22-23 corpus problems"));
  a->callback([add, exit_code] { *exit_code = RunAdd(*add); });

  auto check = std::make_shared<CheckCliOptions>();
  CLI::App* c = corpus->add_subcommand(
      "check",
      "Replay every entry of the corpus in DIR and compare each replayed verdict with the\n"
      "MANIFEST's expect lines. Prints one line per entry that drifted (DRIFT NAME: expected\n"
      "X; got Y; a replay that DIVERGED drifts too) or cannot be checked (UNREADABLE NAME:\n"
      "why: missing, changed since added, damaged), then a summary line. Entries are\n"
      "replayed in parallel; the output is in manifest order. Progress is shown on standard\n"
      "error when it is a terminal. Exit 0 when every entry reproduced, 22 otherwise, 23\n"
      "when the MANIFEST does not parse or names a missing file.");
  c->add_option("DIR", check->dir, "the corpus directory")->capture_default_str();
  AddUnsigned(c, "--jobs,-j", check->jobs, 1, 1024,
              "entries replayed at once (default: one per core)");
  c->add_option("--junit", check->junit,
                "also write JUnit XML to this file: a testcase per entry, <failure> for a drift, "
                "<error> for an unreadable entry");
  c->add_option("--entry", check->only, "check only this entry; repeat for more")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  c->add_flag("--json", check->json, "print the report as one JSON object (CorpusReport)");
  c->footer(std::string("Examples:\n"
                        "  proctape corpus check                     # ./corpus\n"
                        "  proctape corpus check corpus --junit corpus.xml --jobs 4\n"
                        "  proctape corpus check corpus --entry plain-unshare\n\n") +
            ExitStatusFooter("0 every entry reproduced, 22 an entry drifted or is unreadable, 23 bad MANIFEST"));
  c->callback([check, exit_code] { *exit_code = RunCheck(*check); });

  auto list = std::make_shared<ListOptions>();
  CLI::App* l = corpus->add_subcommand(
      "list", "One line per entry of the corpus in DIR: name, expected verdicts, kernel,\n"
              "capture time, what it shows.");
  l->add_option("DIR", list->dir, "the corpus directory")->capture_default_str();
  l->add_flag("--json", list->json, "print the entries as one JSON object (CorpusList)");
  l->footer(std::string("Example:\n  proctape corpus list corpus\n\n") + ExitStatusFooter("0, 23 bad MANIFEST"));
  l->callback([list, exit_code] { *exit_code = RunList(*list); });
}

}  // namespace proctape
