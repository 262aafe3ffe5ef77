// SPDX-License-Identifier: Apache-2.0
// `proctape show FILE...`: what a snapshot file holds (analyze/show.h), as
// text or one JSON object. A damaged file is shown up to its damage, and the
// exit status is the damage's (10-16). Several files are shown in the order
// given, separated by a blank line (JSON: an array); the exit status is the
// largest of theirs.
#include <cstdio>
#include <memory>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "analyze/show.h"
#include "cli/command_io.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/outputs.h"
#include "cli/exit_codes.h"
#include "cli/inputs.h"
#include "cli/options.h"
#include "core/proc_parse.h"
#include "format/snapshot_stream.h"
#include "format/format_error.h"
#include "proto/convert.h"
#include "proto/summary.h"

namespace proctape {
namespace {

struct ShowOptions {
  std::vector<std::string> files;
  bool json = false;
  ProcessFilter filter;  // --pid, --uid, --comm when given
  std::int64_t pid = 0;
  std::uint32_t uid = 0;
  std::string comm;
};

void Print(const std::string& piece) { std::fwrite(piece.data(), 1, piece.size(), stdout); }

// One file: its text on standard output, after a blank line unless it is the
// first text shown (*shown says whether one was) (JSON: its report, after
// `json_before`); its status. Printed piece by piece, a frame at a time, each
// frame's selection read back for it alone (ShowBuilder).
// A file that cannot be read at all shows nothing in text; under --json it
// is still its report (the document itself, or an entry of its files[]), as
// verify's is: its file and its error, "intact": false, nothing else
// (docs/cli/json.md, "Several files").
// What ShowBuilder does not hold of a file read item by item: one frame
// held at a time (its parts joined, and added), with the header,
// resolutions, fingerprint and footer (small); observations counted. A
// frame cut by the damage is added as far as it was read.
struct ShowRead {
  std::vector<v1::Resolution> resolutions;
  std::vector<v1::RootFingerprint> fingerprints;
  std::optional<v1::Footer> footer;
  std::uint64_t chunks = 0, bytes = 0, observations = 0;
  FormatError error;
};

void ReadStreamed(const std::string& file, ShowBuilder& builder, ShowRead* read) {
  v1::Frame frame;
  bool open = false;  // `frame` holds parts of a frame not yet added
  std::unique_ptr<SnapshotStream> stream = SnapshotStream::Open(file, &read->error);
  while (stream) {
    const SnapshotStream::Result r = stream->Next();
    read->chunks = stream->counts().chunks;
    read->bytes = stream->bytes();
    read->observations = stream->counts().observations;
    if (r == SnapshotStream::Result::kEnd) break;
    if (r == SnapshotStream::Result::kError) {
      read->error = stream->error();
      break;
    }
    StreamItem& item = stream->item();
    switch (item.kind) {
      case StreamItem::Kind::kHeader: builder.SetHeader(item.chunk.header()); break;
      case StreamItem::Kind::kFramePart:
        JoinFramePart(&frame, std::move(*item.chunk.mutable_frame()), item.first_part);
        open = !item.last_part;
        if (item.last_part) builder.AddFrame(frame);
        break;
      case StreamItem::Kind::kObservations: break;
      case StreamItem::Kind::kResolution:
        read->resolutions.push_back(std::move(*item.chunk.mutable_resolution()));
        break;
      case StreamItem::Kind::kFingerprint:
        read->fingerprints.push_back(std::move(*item.chunk.mutable_fingerprint()));
        break;
      case StreamItem::Kind::kFooter: read->footer = std::move(*item.chunk.mutable_footer()); break;
    }
  }
  if (open) builder.AddFrame(frame);
}

int ShowOne(const std::string& file, bool json, const ProcessFilter& filter, bool* shown,
            const std::string& json_before) {
  const std::string name = EscapeBytes(file, 4096);
  ShowBuilder builder(name, filter);
  ShowRead read;
  ReadStreamed(file, builder, &read);
  const FormatError& error = read.error;
  const std::uint64_t chunks = read.chunks;
  if (!error.ok() && chunks == 0) {
    if (json) {
      v1::ShowReport unread;
      unread.set_file(name);
      unread.set_error_kind(FormatErrorName(error.kind));
      unread.set_error(Printable(error.message));
      Print(json_before + ToJson(unread));
    }
    std::fflush(stdout);
    return Fail(ExitCodeFor(error.kind), name + ": " + EscapeBytes(error.message));
  }
  const v1::ShowReport report =
      builder.Finish({chunks, read.bytes, read.footer ? &*read.footer : nullptr, read.observations,
                      &read.resolutions, &read.fingerprints},
                     error);
  // Its name as the report says it: masked with the file's tokens.
  const std::string& said = report.file();
  const ShowSelections selections = [&builder](int i) { return builder.Selection(i); };
  if (json) {
    Print(json_before);
    std::string failure;
    if (!ShowJson(report, selections, Print, &failure)) {
      std::fflush(stdout);
      return Fail(kExitInternal, said + ": cannot print JSON: " + failure);
    }
  } else {
    if (*shown) std::fputs("\n", stdout);
    RenderShow(report, selections, Print);
  }
  *shown = true;
  std::fflush(stdout);
  if (report.has_selected() && report.selected() == 0) {
    if (!error.ok()) Fail(ExitCodeFor(error.kind), said + ": " + EscapeBytes(error.message));
    return Fail(kExitNotFound,
                said + ": " + FilterText(report.filter()) + " selects no process in any frame");
  }
  if (error.ok()) return kExitOk;
  return Fail(ExitCodeFor(error.kind), said + ": " + EscapeBytes(error.message));
}

int RunShow(const ShowOptions& o) {
  if (int entered = EnterCommand({"show", InputsNamed("FILE", o.files)}); entered != kExitOk) {
    return entered;
  }
  int worst = kExitOk;
  bool shown = false;
  // --json: one report, or {"files":[...]} of several (JsonList), each
  // printed as it is read.
  const bool several = o.files.size() > 1;
  for (std::size_t i = 0; i < o.files.size(); ++i) {
    const std::string before = !o.json ? "" : !several ? "" : i == 0 ? "{\"files\":[" : ",";
    worst = Worst(worst, ShowOne(o.files[i], o.json, o.filter, &shown, before));
  }
  if (o.json) std::fputs(several ? "]}\n" : "\n", stdout);
  return worst;
}

}  // namespace

void RegisterShow(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<ShowOptions>();
  CLI::App* sub = app.add_subcommand(
      "show",
      "Print what a snapshot file holds: who wrote it and how; the capturing host\n"
      "(hostname, kernel, boot id, pid_max, clock ticks per second); when the capture\n"
      "started and ended; the capturer's pid, uid and pid namespace (not the initial one:\n"
      "every pid in the file is a pid of that namespace); each frame (processes, scan\n"
      "duration, bytes read, reads truncated at their bound, a scan cut by a bound, and the\n"
      "recorded resolution it precedes); the tape; each recorded resolution (request,\n"
      "verdict, observations); how environments were stored (a WARNING when values were\n"
      "kept; a kept token entry shows its variable name and length, never its value); and\n"
      "whether the file is intact. A damaged file (a capture that was killed, a flipped\n"
      "bit) is shown up to the damage: the last line names it, and the exit status is its\n"
      "kind's (13 truncated, 14 checksum, ...). Names and other bytes from the host are\n"
      "printed escaped (\\xNN). 'proctape tree' draws the processes of one frame.\n\n"
      "--pid, --uid and --comm list, under each frame, the processes they select (all\n"
      "of them, when several are given), one line each as 'proctape tree' prints them.\n"
      "A filter that selects nothing in any frame exits 5.");
  sub->add_option("FILE", o->files,
                  "a .ptape file, or - for standard input; several are shown in order, "
                  "separated by a blank line")
      ->check(NonEmptyPath())
      ->required();
  CLI::Option* pid =
      AddSigned(sub, "--pid", o->pid, 1, kMaxPidValue, "list this process in each frame", "PID");
  CLI::Option* uid = AddUnsigned(sub, "--uid", o->uid, 0, 4294967294,
                                 "list the processes of this real uid in each frame", "UID");
  CLI::Option* comm = sub->add_option("--comm", o->comm,
                                      "list the processes whose command name (stat field 2) is "
                                      "exactly this, byte for byte, in each frame")
                          ->type_name("NAME");
  sub->add_flag("--json", o->json,
                "print one JSON object (ShowReport of proto/views.proto; docs/views.md)");
  sub->footer(std::string("Examples:\n"
                          "  proctape show failure.ptape\n"
                          "  proctape show host.ptape.partial      # a capture that was killed\n"
                          "  proctape show failure.ptape --json\n"
                          "  proctape show before.ptape after.ptape\n\n") +
              ExitStatusFooter("0, 2 usage error, 5 the filter selects no process, 10-16 the "
                               "file is damaged (shown up to the damage; several files: the "
                               "largest of their statuses)"));
  sub->callback([o, pid, uid, comm, exit_code] {
    if (pid->count() > 0) o->filter.pid = o->pid;
    if (uid->count() > 0) o->filter.uid = o->uid;
    if (comm->count() > 0) o->filter.comm = o->comm;
    *exit_code = RunShow(*o);
  });
}

}  // namespace proctape
