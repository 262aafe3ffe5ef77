// SPDX-License-Identifier: Apache-2.0
// corpus check whole: the manifest loaded, the entries picked, checked, and
// what the report found.
#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "core/proc_parse.h"
#include "corpus/pipelines.h"

namespace proctape {
namespace {

// The entries checked, in manifest order: all, or those `only` names (each
// must be one).
bool PickEntries(const CorpusCheckRequest& request, const Manifest& manifest,
                 CorpusCheckOutcome* outcome, std::vector<ManifestEntry>* entries) {
  for (const std::string& name : request.only) {
    auto it = std::find_if(manifest.entries.begin(), manifest.entries.end(),
                           [&](const ManifestEntry& e) { return e.name == name; });
    if (it == manifest.entries.end()) {
      outcome->failure = Failure(
          FailureKind::kUsage, "no such entry in " + EscapeBytes(ManifestPath(request.dir), 4096));
      outcome->unknown_entry = name;
      return false;
    }
  }
  for (const ManifestEntry& e : manifest.entries) {
    if (request.only.empty() || std::count(request.only.begin(), request.only.end(), e.name) > 0) {
      entries->push_back(e);
    }
  }
  return true;
}

}  // namespace

CorpusCheckOutcome CheckCorpusDir(const CorpusCheckRequest& request) {
  CorpusCheckOutcome outcome;
  Failure failure;
  std::optional<Manifest> manifest = LoadManifest(request.dir, false, &failure);
  if (!manifest) {
    outcome.failure = failure;
    return outcome;
  }
  std::vector<ManifestEntry> entries;
  if (!PickEntries(request, *manifest, &outcome, &entries)) return outcome;
  CheckOptions options;
  options.jobs =
      request.jobs > 0 ? request.jobs : std::max(std::thread::hardware_concurrency(), 1u);
  options.progress = request.progress;
  outcome.report = CheckCorpus(request.dir, entries, options);
  return outcome;
}

std::string CheckReportText(const v1::CorpusReport& report) {
  std::string text;
  for (const v1::CorpusEntryResult& r : report.results()) {
    const std::string line = CheckLine(r);
    if (!line.empty()) text += line + "\n";
  }
  return text + SummaryLine(report) + "\n";
}

MaybeFailure CheckFinding(const v1::CorpusReport& report) {
  for (const v1::CorpusEntryResult& r : report.results()) {
    if (r.file_missing()) {
      return Failure(FailureKind::kManifest, "the manifest names a missing file");
    }
  }
  if (report.drifted() + report.unreadable() == 0) return std::nullopt;
  // What was found, by its counts: an unreadable entry is not a drift.
  return Failure(FailureKind::kCorpusDrift, Plural(report.drifted(), "entry", "entries") +
                                                " drifted, " + std::to_string(report.unreadable()) +
                                                " unreadable");
}

}  // namespace proctape
