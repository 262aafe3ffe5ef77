// SPDX-License-Identifier: Apache-2.0
// corpus check whole: the manifest loaded, the entries picked, checked, and
// what the report found.
#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "core/proc_parse.h"
#include "corpus/pipelines.h"
#include "corpus/sha256.h"
#include "proto/summary.h"

namespace proctape {
namespace {

// The entries picked, in manifest order: all, or those `only` names (each
// must be one); with their places in the manifest.
bool PickEntries(const CorpusCheckRequest& request, const Manifest& manifest,
                 CorpusCheckOutcome* outcome, std::vector<std::size_t>* picked) {
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
  for (std::size_t i = 0; i < manifest.entries.size(); ++i) {
    const std::string& name = manifest.entries[i].name;
    if (request.only.empty() || std::count(request.only.begin(), request.only.end(), name) > 0) {
      picked->push_back(i);
    }
  }
  return true;
}

}  // namespace

CorpusCheckOutcome CheckCorpusDir(const CorpusCheckRequest& request) {
  CorpusCheckOutcome outcome;
  Failure failure;
  std::string manifest_sha256;
  std::optional<Manifest> manifest = LoadManifest(request.dir, false, &failure, &manifest_sha256);
  if (!manifest) {
    outcome.failure = failure;
    return outcome;
  }
  std::vector<std::size_t> picked;
  if (!PickEntries(request, *manifest, &outcome, &picked)) return outcome;
  // The selection, every shard together; then this shard's part of it.
  Sha256 selection;
  std::vector<ManifestEntry> entries;
  std::vector<std::size_t> places;
  for (std::size_t i : picked) {
    const ManifestEntry& e = manifest->entries[i];
    selection.Update(e.name + "\n");
    if (!InShard(e.name, request.shard)) continue;
    entries.push_back(e);
    places.push_back(i);
  }
  CheckOptions options;
  options.jobs =
      request.jobs > 0 ? request.jobs : std::max(std::thread::hardware_concurrency(), 1u);
  options.progress = request.progress;
  outcome.report = CheckCorpus(request.dir, entries, options);
  for (std::size_t r = 0; r < places.size(); ++r) {
    outcome.report.mutable_results(static_cast<int>(r))->set_manifest_index(Count32(places[r]));
  }
  outcome.report.set_manifest_sha256(manifest_sha256);
  outcome.report.set_shard(request.shard.index);
  outcome.report.set_shards(request.shard.count);
  outcome.report.set_selected(Count32(picked.size()));
  outcome.report.set_selection_sha256(selection.Hex());
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
