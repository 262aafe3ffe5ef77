// SPDX-License-Identifier: Apache-2.0
// `proctape verify FILE...`: reads each snapshot file chunk by chunk
// (format/snapshot_stream.h, holding none of it) and says whether it is intact, or names the first damage (chunk and byte offset) with the
// exit status of its kind. Complete chunks before damage are counted all the
// same. Several files are verified in the order given, each on its own line;
// the exit status is the largest of theirs (0 only when every file is intact).
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "cli/command_io.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/outputs.h"
#include "cli/options.h"
#include "cli/exit_codes.h"
#include "cli/inputs.h"
#include "core/proc_parse.h"
#include "format/snapshot_stream.h"
#include "proto/convert.h"
#include "proto/summary.h"
#include "replay/token_mask.h"

namespace proctape {
namespace {

struct VerifyOptions {
  std::vector<std::string> files;
  bool json = false;
};

struct FileOptions {
  std::string file;
  bool json = false;
};

// What verify says of a file: its counts, read chunk by chunk (nothing of
// the file is held but its header and fingerprint).
struct Verified {
  v1::Header header;
  std::optional<v1::RootFingerprint> fingerprint;
  StreamCounts counts;
  TokenMask mask;  // the file's tokens: its name may hold a piece of one
};

FormatError ReadVerified(const std::string& file, Verified* out) {
  FormatError error;
  std::unique_ptr<SnapshotStream> stream = SnapshotStream::Open(file, &error);
  if (!stream) return error;
  stream->set_resolve_same_as(false);  // checked, never copied: verify keeps no result
  for (;;) {
    const SnapshotStream::Result r = stream->Next();
    out->counts = stream->counts();
    if (r == SnapshotStream::Result::kEnd) return error;
    if (r == SnapshotStream::Result::kError) return stream->error();
    StreamItem& item = stream->item();
    if (item.kind == StreamItem::Kind::kHeader) {
      out->header = std::move(*item.chunk.mutable_header());
      out->mask.Add(TokenMask::Of(out->header, {}));
    } else if (item.kind == StreamItem::Kind::kResolution) {
      if (item.chunk.resolution().has_resolve()) {
        out->mask.Add(item.chunk.resolution().resolve().token());
      }
    } else if (item.kind == StreamItem::Kind::kFingerprint) {
      out->fingerprint = std::move(*item.chunk.mutable_fingerprint());
    }
  }
}

// One file: its line (text) or its report (JSON, into *json), and its status.
// The VerifyReport of a file as read.
std::string VerifyJson(const FileOptions& o, const Verified& snap, const FormatError& error) {
  const StreamCounts& n = snap.counts;
  const std::uint64_t processes = n.processes;
  const bool kept = snap.header.redaction().environ() == v1::RedactionPolicy::ENVIRON_KEPT;
  v1::VerifyReport report;
  report.set_file(EscapedText(snap.mask.Masked(o.file)));
  report.set_intact(error.ok());
  report.set_error_kind(FormatErrorName(error.kind));
  report.set_error_chunk(Count32(error.chunk));
  report.set_error_offset(static_cast<double>(error.offset));
  report.set_error(Printable(error.message));
  report.set_chunks(Count32(n.chunks));
  report.set_frames(Count32(n.frames));
  report.set_processes(Count32(processes));
  report.set_observations(Count32(n.observations));
  report.set_resolutions(Count32(n.resolutions));
  report.set_environ_kept(kept);
  report.set_fingerprints(Count32(n.fingerprints));
  return ToJson(report);
}

int VerifyOne(const FileOptions& o, std::string* json) {
  Verified snap;
  FormatError error = ReadVerified(o.file, &snap);
  const StreamCounts& n = snap.counts;
  const std::uint64_t processes = n.processes;
  const bool kept = snap.header.redaction().environ() == v1::RedactionPolicy::ENVIRON_KEPT;
  if (o.json) {
    *json = VerifyJson(o, snap, error);
  } else {
    const std::string name = snap.mask.Shown(o.file);
    if (error.ok() && snap.fingerprint && n.frames == 0 && n.resolutions == 0) {
      // A fingerprint file: what it fingerprinted, not frames and environs.
      const v1::RootFingerprint& f = *snap.fingerprint;
      std::printf("%s: intact: %s, %s: root %" PRId64 " at start tick %" PRIu64 ", exe %s %" PRIu64
                  ":%" PRIu64 "\n",
                  name.c_str(), Plural(n.chunks, "chunk", "chunks").c_str(),
                  Plural(n.fingerprints, "root fingerprint", "root fingerprints").c_str(),
                  f.root_pid(), f.root_start_ticks(), EscapeBytes(f.exe_path(), 1024).c_str(),
                  f.exe_identity().dev(), f.exe_identity().ino());
    } else if (error.ok()) {
      // The process records are summed over the frames.
      std::printf(
          "%s: intact: %s, %s, %s, %s, %s, environ %s\n", name.c_str(),
          Plural(n.chunks, "chunk", "chunks").c_str(), Plural(n.frames, "frame", "frames").c_str(),
          Plural(processes, "process record", "process records").c_str(),
          Plural(n.observations, "observation", "observations").c_str(),
          Plural(n.resolutions, "resolution", "resolutions").c_str(), kept ? "KEPT" : "redacted");
    }
  }
  if (!error.ok()) {
    // One line: the damage, then what came before it; under --json as well,
    // as the ErrorReport every failure is (docs/cli.md §3), the report
    // being the finding on standard output.
    std::string before;
    if (n.chunks > 0) {
      before = "; " + Plural(n.chunks, "complete chunk", "complete chunks") +
               " before it read back (" + Plural(n.frames, "frame", "frames") + ", " +
               Plural(n.observations, "observation", "observations") + ")";
    }
    std::fflush(stdout);
    Fail(ExitCodeFor(error.kind), snap.mask.Shown(o.file) + ": " + error.message + before);
  }
  if (kept && error.ok()) {
    std::fflush(stdout);
    Warn(snap.mask.Shown(o.file) + " stores environment values as read (--env keep)");
  }
  return error.ok() ? kExitOk : ExitCodeFor(error.kind);
}

int RunVerify(const VerifyOptions& o) {
  if (int entered = EnterCommand({"verify", InputsNamed("FILE", o.files)}); entered != kExitOk) {
    return entered;
  }
  int worst = kExitOk;
  std::vector<std::string> reports;
  for (const std::string& file : o.files) {
    std::string json;
    worst = Worst(worst, VerifyOne({file, o.json}, &json));
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
