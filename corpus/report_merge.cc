// SPDX-License-Identifier: Apache-2.0
// corpus report: the reports of the N shards of one `corpus check --shard
// K/N --json` run read, held to one another and merged into the report of
// one unsharded check (docs/corpus.md, "Shards").
#include <fcntl.h>
#include <unistd.h>

#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "core/proc_parse.h"
#include "corpus/pipelines.h"
#include "corpus/sha256.h"

namespace proctape {
namespace {

// A report larger than this is refused before it is parsed.
constexpr std::size_t kMaxReportBytes = std::size_t{1} << 30;

Failure Refused(const std::string& message) { return Failure(FailureKind::kShards, message); }

std::string Shown(const std::string& file) {
  return file == "-" ? "standard input" : EscapeBytes(file, 4096);
}

// The bytes of `file` ("-": standard input), or a kIo failure.
std::optional<std::string> ReadWhole(const std::string& file, Failure* failure) {
  const int fd = file == "-" ? 0 : ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *failure = IoFailure(Shown(file) + ": cannot open", errno);
    return std::nullopt;
  }
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *failure =
          IoFailure(Shown(file) + ": read failed at byte " + std::to_string(text.size()), errno);
      break;
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > kMaxReportBytes) {
      *failure = Failure(FailureKind::kIo, Shown(file) + ": holds more than " +
                                               std::to_string(kMaxReportBytes) +
                                               " bytes (the limit of a report)");
      break;
    }
  }
  if (fd != 0) ::close(fd);
  if (!failure->message.empty()) return std::nullopt;
  return text;
}

std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return text;
}

// What is wrong with one report on its own, or "".
std::string ProblemOf(const v1::CorpusReport& r) {
  if (r.manifest_sha256().empty()) {
    return "not the JSON of 'corpus check --json' (it has no manifest_sha256)";
  }
  if (r.shards() == 0) {
    return "a report of no shard (not of 'corpus check --shard K/N --json')";
  }
  if (r.shard() == 0 || r.shard() > r.shards()) {
    return "its shard " + std::to_string(r.shard()) + "/" + std::to_string(r.shards()) +
           " is no shard K/N with 1 <= K <= N";
  }
  std::uint32_t count[4] = {0, 0, 0, 0};
  for (const v1::CorpusEntryResult& e : r.results()) {
    if (ShardOfId(e.name(), r.shards()) != r.shard()) {
      return "its entry " + EscapeBytes(e.name()) + " is not of shard " +
             std::to_string(r.shard()) + "/" + std::to_string(r.shards());
    }
    ++count[std::min<int>(e.state(), 3)];
  }
  if (r.entries() != static_cast<std::uint32_t>(r.results_size()) ||
      r.reproduced() != count[v1::CorpusEntryResult::REPRODUCED] ||
      r.drifted() != count[v1::CorpusEntryResult::DRIFTED] ||
      r.unreadable() != count[0] + count[v1::CorpusEntryResult::UNREADABLE]) {
    return "its counts (" + std::to_string(r.entries()) + " entries, " +
           std::to_string(r.reproduced()) + " reproduced, " + std::to_string(r.drifted()) +
           " drifted, " + std::to_string(r.unreadable()) + " unreadable) are not its " +
           std::to_string(r.results_size()) + " results'";
  }
  return "";
}

// Whether `r` is of the run of `first`: one corpus, one selection, one N.
MaybeFailure SameRun(const v1::CorpusReport& r, const std::string& name,
                     const v1::CorpusReport& first, const std::string& first_name) {
  const std::string of = "shard " + std::to_string(r.shard()) + "/" + std::to_string(r.shards());
  if (r.manifest_sha256() != first.manifest_sha256()) {
    return Refused(name + " (" + of + ") is a report of another corpus than " + first_name +
                   ": its MANIFEST's SHA-256 is " + EscapeBytes(r.manifest_sha256().substr(0, 16)) +
                   "..., the other's " + EscapeBytes(first.manifest_sha256().substr(0, 16)) +
                   "...");
  }
  if (r.shards() != first.shards()) {
    return Refused(name + " is a report of " + of + ", " + first_name + " of shard " +
                   std::to_string(first.shard()) + "/" + std::to_string(first.shards()) +
                   ": the shards of one run have one N");
  }
  if (r.selected() != first.selected() || r.selection_sha256() != first.selection_sha256()) {
    return Refused(name + " (" + of + ") checked other entries than " + first_name + " (" +
                   std::to_string(r.selected()) + " selected, the other " +
                   std::to_string(first.selected()) + "): give every shard the same --entry");
  }
  return std::nullopt;
}

// "shard 2/3 is missing" or "shards 2/5, 4/5 are missing", or "".
std::string Missing(const std::vector<int>& given, std::uint32_t n) {
  std::vector<std::string> missing;
  for (std::uint32_t k = 1; k <= n; ++k) {
    if (given[k] < 0) missing.push_back(std::to_string(k) + "/" + std::to_string(n));
  }
  if (missing.empty()) return "";
  std::string list;
  for (std::size_t i = 0; i < missing.size() && i < 8; ++i) list += (i ? ", " : "") + missing[i];
  if (missing.size() > 8) list += ", ... (" + std::to_string(missing.size()) + " in all)";
  return std::string(missing.size() == 1 ? "shard " : "shards ") + list +
         (missing.size() == 1 ? " is" : " are") +
         " missing: give the report of each 'corpus check --shard K/N --json'";
}

// The results of every report, in manifest order; counts summed.
CorpusMerge Merged(const std::vector<v1::CorpusReport>& reports,
                   const std::vector<std::string>& names, const std::vector<int>& by_shard) {
  CorpusMerge out;
  v1::CorpusReport& m = out.report;
  const v1::CorpusReport& first = reports[static_cast<std::size_t>(by_shard[1])];
  m.set_dir(first.dir());
  std::map<std::uint32_t, std::pair<const v1::CorpusEntryResult*, std::size_t>> results;
  double seconds = 0;
  for (std::size_t i = 0; i < reports.size(); ++i) {
    for (const v1::CorpusEntryResult& e : reports[i].results()) {
      auto [at, added] = results.emplace(e.manifest_index(), std::make_pair(&e, i));
      if (!added) {
        out.failure = Refused("the entry at place " + std::to_string(e.manifest_index()) +
                              " of the MANIFEST is in " + names[at->second.second] + " and " +
                              names[i] + ": a report given twice under two names?");
        return out;
      }
    }
    m.set_reproduced(m.reproduced() + reports[i].reproduced());
    m.set_drifted(m.drifted() + reports[i].drifted());
    m.set_unreadable(m.unreadable() + reports[i].unreadable());
    seconds += reports[i].seconds();
  }
  Sha256 selection;
  for (const auto& [index, result] : results) {
    *m.add_results() = *result.first;
    selection.Update(result.first->name() + "\n");
  }
  m.set_entries(static_cast<std::uint32_t>(m.results_size()));
  m.set_seconds(seconds);
  m.set_manifest_sha256(first.manifest_sha256());
  m.set_selected(first.selected());
  m.set_selection_sha256(first.selection_sha256());
  if (m.entries() != first.selected() || selection.Hex() != first.selection_sha256()) {
    const std::string held =
        m.entries() == first.selected()
            ? "other entries than the " + std::to_string(first.selected())
            : std::to_string(m.entries()) + " entries, not the " + std::to_string(first.selected());
    out.failure = Refused("the shards' reports hold " + held +
                          " the run selected: they are not the reports of one run");
  }
  return out;
}

}  // namespace

CorpusMerge MergeCorpusReports(const std::vector<v1::CorpusReport>& reports,
                               const std::vector<std::string>& names) {
  CorpusMerge out;
  if (reports.empty()) {
    out.failure = Refused("no report to merge");
    return out;
  }
  std::vector<int> by_shard;  // shard K -> its report's index, -1: none
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const v1::CorpusReport& r = reports[i];
    if (const std::string problem = ProblemOf(r); !problem.empty()) {
      out.failure = Refused(names[i] + ": " + problem);
      return out;
    }
    if (i == 0) by_shard.assign(r.shards() + 1, -1);
    if (MaybeFailure other = SameRun(r, names[i], reports[0], names[0])) {
      out.failure = other;
      return out;
    }
    int& slot = by_shard[r.shard()];
    if (slot >= 0) {
      out.failure = Refused(names[i] + ": shard " + std::to_string(r.shard()) + "/" +
                            std::to_string(r.shards()) + " is given twice (" +
                            names[static_cast<std::size_t>(slot)] + " is it too)");
      return out;
    }
    slot = static_cast<int>(i);
  }
  if (const std::string missing = Missing(by_shard, reports[0].shards()); !missing.empty()) {
    out.failure = Refused(missing);
    return out;
  }
  return Merged(reports, names, by_shard);
}

CorpusMerge MergeCorpusReports(const std::vector<std::string>& files) {
  std::vector<v1::CorpusReport> reports(files.size());
  std::vector<std::string> names;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  for (std::size_t i = 0; i < files.size(); ++i) {
    names.push_back(Shown(files[i]));
    Failure failure;
    std::optional<std::string> text = ReadWhole(files[i], &failure);
    if (!text) return CorpusMerge{failure, {}};
    if (text->empty()) {
      return CorpusMerge{Refused(names[i] + ": is empty: its 'corpus check --json' wrote no "
                                            "report (its exit status and standard error say why)"),
                         {}};
    }
    const auto parsed = google::protobuf::util::JsonStringToMessage(*text, &reports[i], options);
    if (!parsed.ok()) {
      // The parser quotes the input: escaped, as every message shows bytes.
      return CorpusMerge{Refused(names[i] + ": not the JSON of 'corpus check --json' (" +
                                 EscapeBytes(OneLine(std::string(parsed.message())), 512) + ")"),
                         {}};
    }
  }
  return MergeCorpusReports(reports, names);
}

}  // namespace proctape
