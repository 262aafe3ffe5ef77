// `proctape explore FILE`: every recorded check of FILE re-run on a host
// model built from its frames under histories of kernel events (a process
// exits, a pid is reused, an exec is caught half done, a second match
// appears, the root restarts, the clock jumps), each verdict judged against
// the model's truth (explore/). Never reads the live /proc, never sleeps.
#include <sys/stat.h>

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/exit_codes.h"
#include "cli/inputs.h"
#include "cli/jail.h"
#include "cli/options.h"
#include "cli/outputs.h"
#include "cli/progress.h"
#include "core/proc_parse.h"
#include "explore/counterexample.h"
#include "explore/search.h"
#include "format/file_holds.h"
#include "format/reader.h"

namespace proctape {
namespace {

using explore::CheckSetup;
using explore::SearchReport;
using google::protobuf::ListValue;
using google::protobuf::Struct;
using google::protobuf::Value;

struct ExploreOptions {
  std::string file;
  std::uint32_t depth = 2;
  std::uint64_t budget = 100000;
  std::string out;
  bool json = false;
  std::uint64_t seed = 0;
  bool has_seed = false;
  std::uint64_t check = 0;
  bool has_check = false;
};

Value Num(double v) {
  Value x;
  x.set_number_value(v);
  return x;
}
Value Text(const std::string& s) {
  Value x;
  x.set_string_value(s);
  return x;
}

std::string BaselineText(const CheckSetup& s, const explore::CheckOutcome& o) {
  std::string out = explore::OutcomeName(s, o);
  if (!s.liveness && o.verdict.resolved()) {
    out += " host pid " + std::to_string(o.verdict.pid) + ", start tick " +
           std::to_string(o.verdict.start_ticks);
  }
  return out;
}

struct CheckResult {
  std::unique_ptr<CheckSetup> setup;
  SearchReport report;
  std::vector<std::string> written;  // per kept violation ("" not written)
};

void PrintText(const ExploreOptions& o, const std::string& name,
               const std::vector<CheckResult>& results) {
  std::printf("explore %s: depth %u, budget %llu runs per check\n", name.c_str(), o.depth,
              static_cast<unsigned long long>(o.budget));
  std::uint64_t run = 0, pruned = 0, violations = 0;
  for (const CheckResult& c : results) {
    const SearchReport& r = c.report;
    run += r.run;
    pruned += r.pruned;
    violations += r.violation_count;
    std::printf("check %zu (%s) on frame %zu: baseline %s (%s)\n", c.setup->index,
                c.setup->liveness ? "liveness" : "resolve", c.setup->frame,
                BaselineText(*c.setup, r.baseline).c_str(),
                Plural(r.points, "schedule point", "schedule points").c_str());
    std::printf("  histories: %llu run, %llu pruned, %llu not applicable, %llu left by the budget; "
                "violations: %llu\n",
                static_cast<unsigned long long>(r.run), static_cast<unsigned long long>(r.pruned),
                static_cast<unsigned long long>(r.not_applicable),
                static_cast<unsigned long long>(r.left),
                static_cast<unsigned long long>(r.violation_count));
    for (const auto& [kinds, outcomes] : r.by_kind) {
      std::string line = "    " + kinds + ":";
      for (const auto& [outcome, n] : outcomes) line += " " + outcome + " " + std::to_string(n) + ",";
      line.pop_back();
      std::printf("%s\n", line.c_str());
    }
    for (std::size_t i = 0; i < r.violations.size(); ++i) {
      const explore::Violation& v = r.violations[i];
      std::printf("  VIOLATION %zu: %s\n", i + 1, v.why.c_str());
      for (const explore::Scheduled& s : v.history) std::printf("    %s\n", Describe(s).c_str());
      if (!c.written[i].empty()) std::printf("    written: %s\n", EscapeBytes(c.written[i], 4096).c_str());
    }
  }
  std::printf("total: %llu histories run, %llu pruned, %llu violations\n",
              static_cast<unsigned long long>(run), static_cast<unsigned long long>(pruned),
              static_cast<unsigned long long>(violations));
}

void PrintJson(const ExploreOptions& o, const std::string& name,
               const std::vector<CheckResult>& results) {
  Struct doc;
  auto& f = *doc.mutable_fields();
  f["file"] = Text(name);
  f["depth"] = Num(o.depth);
  f["budget"] = Num(static_cast<double>(o.budget));
  ListValue checks;
  std::uint64_t run = 0, pruned = 0, violations = 0;
  for (const CheckResult& c : results) {
    const SearchReport& r = c.report;
    run += r.run;
    pruned += r.pruned;
    violations += r.violation_count;
    Struct check;
    auto& cf = *check.mutable_fields();
    cf["index"] = Num(static_cast<double>(c.setup->index));
    cf["kind"] = Text(c.setup->liveness ? "liveness" : "resolve");
    cf["frame"] = Num(static_cast<double>(c.setup->frame));
    cf["baseline"] = Text(BaselineText(*c.setup, r.baseline));
    cf["points"] = Num(static_cast<double>(r.points));
    cf["run"] = Num(static_cast<double>(r.run));
    cf["pruned"] = Num(static_cast<double>(r.pruned));
    cf["not_applicable"] = Num(static_cast<double>(r.not_applicable));
    cf["left"] = Num(static_cast<double>(r.left));
    cf["violation_count"] = Num(static_cast<double>(r.violation_count));
    Struct by_kind;
    for (const auto& [kinds, outcomes] : r.by_kind) {
      Struct counts;
      for (const auto& [outcome, n] : outcomes) {
        (*counts.mutable_fields())[outcome] = Num(static_cast<double>(n));
      }
      *(*by_kind.mutable_fields())[kinds].mutable_struct_value() = counts;
    }
    *cf["by_kind"].mutable_struct_value() = by_kind;
    ListValue list;
    for (std::size_t i = 0; i < r.violations.size(); ++i) {
      Struct v;
      auto& vf = *v.mutable_fields();
      vf["outcome"] = Text(BaselineText(*c.setup, r.violations[i].outcome));
      vf["why"] = Text(r.violations[i].why);
      ListValue events;
      for (const explore::Scheduled& s : r.violations[i].history) {
        *events.add_values() = Text(Describe(s));
      }
      *vf["events"].mutable_list_value() = events;
      if (!c.written[i].empty()) vf["file"] = Text(EscapeBytes(c.written[i], 4096));
      *list.add_values()->mutable_struct_value() = v;
    }
    *cf["violations"].mutable_list_value() = list;
    *checks.add_values()->mutable_struct_value() = check;
  }
  *f["checks"].mutable_list_value() = checks;
  f["histories_run"] = Num(static_cast<double>(run));
  f["histories_pruned"] = Num(static_cast<double>(pruned));
  f["violations"] = Num(static_cast<double>(violations));
  std::string json;
  google::protobuf::util::JsonPrintOptions po;
  (void)google::protobuf::util::MessageToJsonString(doc, &json, po);
  std::printf("%s\n", json.c_str());
}

int RunExplore(const ExploreOptions& o) {
  if (std::string why = StdinOnce({{"FILE", {o.file}}}); !why.empty()) return Fail(kExitUsage, why);
  if (int refused = RefuseStandardStreams({{"FILE", o.file}}); refused != kExitOk) return refused;
  if (!o.out.empty()) {
    struct stat st {};
    if (::stat(o.out.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      return Fail(kExitUsage, "--out " + EscapeBytes(o.out, 4096) + ": not a directory");
    }
  } else if (int jailed = Jail({"explore", true, {o.file}, {}}); jailed != kExitOk) {
    // With --out it writes files it names as it finds them: not jailed (yet).
    return jailed;
  }
  Snapshot snapshot;
  FormatError error = ReadSnapshot(o.file, &snapshot);
  const std::string name = EscapeBytes(o.file, 4096);
  if (!error.ok()) return FailAbout(ExitCodeFor(error.kind), "", o.file, error.message);
  if (snapshot.resolutions.empty()) {
    return Fail(kExitUsage, name + " holds no recorded resolution (it is " + FileHolds(snapshot) +
                                "): explore starts from a recording");
  }
  if (o.has_check && o.check >= snapshot.resolutions.size()) {
    return Fail(kExitUsage, "--check " + std::to_string(o.check) + ": " + name + " records " +
                                Plural(snapshot.resolutions.size(), "check", "checks"));
  }
  const std::string base = std::filesystem::path(o.file).filename().string();
  const std::string stem = std::filesystem::path(o.file).stem().string();
  std::vector<CheckResult> results;
  Progress progress;
  for (std::size_t i = 0; i < snapshot.resolutions.size(); ++i) {
    if (o.has_check && i != o.check) continue;
    CheckResult c;
    std::string why;
    c.setup = explore::SetUp(snapshot, i, &why);
    if (!c.setup) return Fail(kExitUsage, name + ": check " + std::to_string(i) + ": " + why);
    explore::SearchOptions so;
    so.depth = o.depth;
    so.budget = o.budget;
    if (o.has_seed) so.seed = o.seed;
    so.progress = [&](std::uint64_t runs) {
      progress.Update("[check " + std::to_string(i + 1) + "/" +
                      std::to_string(snapshot.resolutions.size()) + "] " +
                      std::to_string(runs) + " histories");
    };
    c.report = explore::Search(*c.setup, so);
    for (std::size_t v = 0; v < c.report.violations.size(); ++v) {
      std::string path;
      if (!o.out.empty()) {
        path = o.out + "/" + stem + "-check" + std::to_string(i) + "-violation" +
               std::to_string(v + 1) + ".ptape";
        std::string failed = explore::WriteCounterexample(path, snapshot, base, *c.setup,
                                                          c.report.violations[v].history, {});
        if (!failed.empty()) return FailAbout(kExitIo, "--out", path, failed);
      }
      c.written.push_back(path);
    }
    results.push_back(std::move(c));
  }
  progress.Done();
  if (o.json) {
    PrintJson(o, EscapeBytes(base, 4096), results);
  } else {
    PrintText(o, EscapeBytes(base, 4096), results);
  }
  std::uint64_t violations = 0;
  for (const CheckResult& c : results) violations += c.report.violation_count;
  if (violations == 0) return kExitOk;
  return Finding(kExitVerdictChanged, Plural(violations, "violation", "violations") + " found");
}

}  // namespace

void RegisterExplore(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<ExploreOptions>();
  CLI::App* sub = app.add_subcommand(
      "explore",
      "Re-run every check recorded in FILE (a resolution or a liveness check) on a host model\n"
      "built from its frames, under every history of kernel events up to --depth: at each\n"
      "call the resolver makes, a process may exit (a zombie first, then gone, its children\n"
      "to init), its pid may be reused (by an unrelated process, an impostor with the argv,\n"
      "or one with the argv and token but another executable), an exec may be caught half\n"
      "done, a second match may appear, the root may restart, the clock may jump past a retry\n"
      "or the deadline. Each verdict is judged from the model's truth, never from the\n"
      "resolver: RESOLVED must name the exact process that matched argv, token and executable\n"
      "beneath the unchanged root at its final re-read, ALIVE a live process of that start\n"
      "tick; anything else must fail closed. A wrong verdict is a violation; with --out each\n"
      "is written as a recording that 'proctape replay' reproduces. Nothing live is read.\n"
      "See docs/explore.md.");
  sub->add_option("FILE", o->file, "a recording (resolve --record, liveness --record, lab)")
      ->check(NonEmpty("an empty path names no file"))
      ->required();
  AddUnsigned(sub, "--depth", o->depth, 1, 2, "events per history: 1, or 2 (pairs)")
      ->capture_default_str();
  AddUnsigned(sub, "--budget", o->budget, 1, 100000000, "histories started per check, at most")
      ->capture_default_str();
  sub->add_option("--out", o->out, "write each violation here as a .ptape (a directory)")
      ->check(NonEmpty("an empty path names no directory"))
      ->type_name("DIR");
  CLI::Option* seed = AddUnsigned(sub, "--seed", o->seed, 0, UINT64_MAX,
                                  "shuffle the order of histories by N (a budget then "
                                  "samples); without it the order is fixed");
  CLI::Option* check = AddUnsigned(sub, "--check", o->check, 0, UINT64_MAX,
                                   "explore only this recorded check (from 0)");
  sub->add_flag("--json", o->json, "print one JSON object: the same summary");
  sub->footer(std::string("Examples:\n"
                          "  proctape explore corpus/051df0283b135a91.ptape --depth 1\n"
                          "  proctape explore run.ptape --out found/ --json\n\n") +
              ExitStatusFooter("0 no violation, 2 usage error, 10-16 damaged file, 20 violations found"));
  sub->callback([=] {
    o->has_seed = seed->count() > 0;
    o->has_check = check->count() > 0;
    *exit_code = RunExplore(*o);
  });
}

}  // namespace proctape
