// SPDX-License-Identifier: Apache-2.0
// `proctape export FILE --format json|dot|proc-dir`: a snapshot file in a form
// other tools read (docs/export.md): the whole file as one JSON document, a
// frame's process tree as Graphviz DOT, or a frame as a /proc-like directory
// that `proctape capture --proc-root` reads back.
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <string>

#include "analyze/export.h"
#include "analyze/export_json.h"
#include "procdir/writer.h"
#include "cli/command_io.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/inputs.h"
#include "cli/options.h"
#include "cli/outputs.h"
#include "cli/exit_codes.h"
#include "cli/progress.h"
#include "cli/sql_database.h"
#include "core/proc_parse.h"
#include "format/file_holds.h"
#include "format/reader.h"
#include "proto/convert.h"
#include "proto/summary.h"
#include "replay/token_mask.h"
#include "written.pb.h"

namespace proctape {
namespace {

struct ExportOptions {
  std::string file;
  std::string format;
  std::string out;
  std::uint64_t frame = 0;
  bool has_frame = false;
  bool has_out = false;
  bool force = false;
  bool json = false;
};

// What was written, as one line (text) or one ExportReport (--json). The
// output may be standard output: the report then goes to standard error.
// `processes` is what was written of them: json the process records of every
// frame, dot the processes drawn (proc-dir: its stats).
// The names of the input and the output are masked with the input's tokens.
void Report(const ExportOptions& o, const TokenMask& mask, const std::string& out,
            std::size_t frame, const std::string& what, const ProcDirStats* stats,
            std::size_t bytes, std::uint64_t processes = 0) {
  const bool to_stdout = out == "-";
  if (o.json) {
    v1::ExportReport report;
    report.set_file(EscapedText(to_stdout ? "standard output" : mask.Masked(out)));
    report.set_input(EscapedText(mask.Masked(o.file)));
    report.set_format(o.format);
    if (o.format == "dot" || o.format == "proc-dir") report.set_frame(Count32(frame));
    report.set_processes(Count32(stats ? stats->processes : processes));
    if (stats) report.set_files(Count32(stats->files));
    report.set_bytes(static_cast<double>(stats ? stats->bytes : bytes));
    std::fprintf(to_stdout ? stderr : stdout, "%s\n", ToJson(report).c_str());
    return;
  }
  if (to_stdout) return;  // the data is the output
  std::printf("wrote %s: %s\n", mask.Shown(out).c_str(), what.c_str());
}

// sqlite and csv: the file loaded into the tables of `proctape sql`
// (analyze/sql/schema.sql), written as one SQLite database or as a directory
// of TABLE.csv. Its output is open, the jail entered.
int ExportTables(const ExportOptions& o, const std::string& out,
                 std::unique_ptr<OutputFile> output) {
  const std::string name = EscapeBytes(o.file, 4096);
  Progress progress;
  progress.Show("export: loading " + name);
  int exit_code = kExitOk;
  std::unique_ptr<sql::Database> d = LoadDatabase({o.file}, /*damage_loads=*/false, &exit_code);
  progress.Done();
  if (!d) return exit_code;
  const TokenMask& mask = d->tokens();
  if (d->keeps_environ()) output->KeepOwnerOnly();
  std::string error;
  std::uint64_t csv_bytes = 0;
  if (o.format == "sqlite") {
    error = d->SaveTo(*output);
  } else {
    error = d->WriteCsv(output->fd(), d->keeps_environ(), &csv_bytes);
  }
  const std::uint64_t bytes = o.format == "csv" ? csv_bytes : d->ImageBytes();
  if (!error.empty()) return FailAbout(kExitIo, "--output", out, error);
  if (MaybeFailure failed = output->Commit()) return FailAbout("--output", out, *failed);
  const std::uint64_t processes = d->Count("processes");
  const std::size_t tables = d->Tables().size();
  ProcDirStats csv{processes, o.format == "csv" ? tables : 1, bytes};
  Report(o, mask, out, 0,
         "the whole file of " + mask.Shown(o.file) + " in the tables of 'proctape sql' (" +
             Plural(processes, "process record", "process records") + ", " +
             Plural(d->Count("observations"), "observation", "observations") + ")" +
             (o.format == "csv" ? ", " + Plural(tables, "CSV file", "CSV files")
                                : ", " + Plural(bytes, "byte", "bytes")),
         &csv, bytes, processes);
  return kExitOk;
}

// The usage errors of the options together; kExitOk when none.
int CheckOptions(const ExportOptions& o) {
  const bool whole = o.format == "json" || o.format == "sqlite" || o.format == "csv";
  if (whole && o.has_frame) {
    return Fail(kExitUsage,
                "--frame: --format " + o.format + " exports the whole file, every frame");
  }
  // '-' is refused as standard output is by every directory output
  // (OpenOutput): one wording for one cause.
  if ((o.format == "proc-dir" || o.format == "csv") && !o.has_out) {
    return Fail(kExitUsage, "--format " + o.format + " writes a directory: name it with -o DIR");
  }
  if (std::string why = ForceWithoutOutput(o.force, "-o", o.has_out, o.out); !why.empty()) {
    return Fail(kExitUsage, why);
  }
  return kExitOk;
}

// The output each format writes: proc-dir and csv a directory that only an
// earlier export of theirs may replace, the others a file.
OutputRequest Request(const ExportOptions& o, const std::string& out) {
  if (o.format == "proc-dir") return ProcDirRequest(out, o.force);
  OutputRequest request;
  request.path = out;
  request.force = o.force;
  if (o.format == "csv") {
    request.directory = true;
    request.directory_marker = "files.csv";  // an earlier csv export holds it
    request.directory_entry = [](std::string_view entry, bool is_directory) {
      for (const char* table : sql::kTables) {
        if (!is_directory && entry == std::string(table) + ".csv") return true;
      }
      return false;  // and nothing else
    };
    return request;
  }
  request.stdout_allowed = true;
  request.binary = o.format == "sqlite";
  return request;
}

// The input as json, dot and proc-dir read it, without holding the file:
// json streams it (a first read checks it whole, then each list is printed
// as it is read again, from a copy when it is no regular file); dot and
// proc-dir keep the one frame they draw, the shells of the others and the
// resolutions, no observation.
struct ExportInput {
  Snapshot snapshot;
  JsonExport json;
  InputCopy copy;
  const v1::Header& header(bool is_json) const { return is_json ? json.header() : snapshot.header; }
};

int ReadInput(const ExportOptions& o, ExportInput* in) {
  // A file of many frames takes seconds to read: where it is, on a terminal.
  Progress progress;
  progress.Show("export: reading " + EscapeBytes(o.file, 4096));
  FormatError read;
  if (o.format == "json") {
    if (MaybeFailure failed = in->copy.Open(o.file)) {
      return Fail(kExitIo, EscapeBytes(failed->message));
    }
    read = in->json.Survey(StreamSource{o.file, in->copy.fd()});
  } else {
    ReadKeep keep;
    keep.frames = std::vector<std::uint64_t>{o.frame};
    keep.observations = false;
    read = ReadSnapshot(o.file, &in->snapshot, keep);
  }
  progress.Done();
  if (!read.ok()) return FailAbout(ExitCodeFor(read.kind), "", o.file, read.message);
  return kExitOk;
}

// json as it is printed, a MiB at a time (the document of a large file is
// tens of MB): past protobuf's 2 GiB an error, never an empty document; a
// failed write, the output's error. *size: what was written.
int WriteJson(JsonExport& json, OutputFile& output, const std::string& out, const std::string& name,
              Progress& progress, std::uint64_t* size) {
  std::string data, error, write_error;
  auto drain = [&](std::string* piece, std::string* why) {
    if (MaybeFailure failed = output.Write(*piece)) {
      write_error = failed->message;
      *why = write_error;
      return false;
    }
    *size += piece->size();
    piece->clear();
    return true;
  };
  const bool complete = json.Write(&data, &error, drain);
  if (complete) data.push_back('\n');
  MaybeFailure failed = complete ? output.WriteAndCommit(data) : std::nullopt;
  progress.Done();  // before any error line
  if (!complete) {
    if (!write_error.empty()) return FailAbout(kExitIo, "--output", out, write_error);
    return Fail(kExitTooLarge, name + ": " + error);
  }
  if (failed) return FailAbout("--output", out, *failed);
  *size += data.size();
  return kExitOk;
}

// What is exported from a file that keeps environment values (capture --env
// keep, a --record's token entry) is the owner's only, as that file; said
// for the values of --env keep (every recording has a token entry).
void KeepOwnerOnly(const ExportOptions& o, const v1::Header& header, const std::string& out,
                   const std::string& name, const std::string& shown, OutputFile& output) {
  if (!KeepsEnvironValues(header)) return;
  output.KeepOwnerOnly();
  if (out != "-" && header.redaction().environ() == v1::RedactionPolicy::ENVIRON_KEPT) {
    Warn(name + " keeps environment values: " + shown +
         (o.format == "proc-dir" ? " holds them in files of mode 0600"
                                 : " is created with mode 0600"));
  }
}

// json, dot or proc-dir of the read input into the open output.
int WriteExport(const ExportOptions& o, ExportInput& in, const std::string& out,
                std::unique_ptr<OutputFile> output) {
  const bool is_json = o.format == "json";
  // What is said names the input and output masked with the input's tokens.
  const TokenMask mask = is_json ? TokenMask::Of(in.json.header(), {}) : TokenMask::Of(in.snapshot);
  const std::string name = mask.Shown(o.file);
  if (!is_json && o.frame >= in.snapshot.frames.size()) {
    return Fail(kExitUsage, NoSuchFrameIn("--frame", o.frame, name, in.snapshot));
  }
  const std::size_t frame = static_cast<std::size_t>(o.frame);
  const std::string shown = mask.Shown(out);
  KeepOwnerOnly(o, in.header(is_json), out, name, shown, *output);
  Progress progress;  // standard output may be this terminal: its data never shares the line
  if (out != "-") progress.Show("export: writing " + shown);
  if (o.format == "proc-dir") {
    ProcDirStats stats;
    MaybeFailure failed = WriteProcDir(in.snapshot, frame, std::move(output), &stats);
    progress.Done();
    if (failed) return FailAbout("--output", out, *failed);
    Report(o, mask, out, frame,
           "frame " + std::to_string(frame) + " of " + name + ", " +
               Plural(stats.processes, "process", "processes") + ", " +
               Plural(stats.files, "file", "files") + ", " + Plural(stats.bytes, "byte", "bytes"),
           &stats, 0);
    return kExitOk;
  }
  std::uint64_t size = 0;
  std::size_t drawn = 0;  // dot: the processes drawn
  if (is_json) {
    if (int written = WriteJson(in.json, *output, out, name, progress, &size); written != kExitOk) {
      return written;
    }
  } else {
    const std::string data = FrameDot(in.snapshot, frame, &drawn);
    size = data.size();
    MaybeFailure failed = output->WriteAndCommit(data);
    progress.Done();
    if (failed) return FailAbout("--output", out, *failed);
  }
  Report(o, mask, out, frame,
         (is_json ? std::string("the whole file")
                  : "the process tree of frame " + std::to_string(frame)) +
             " of " + name + ", " + Plural(size, "byte", "bytes"),
         nullptr, size, is_json ? in.json.records() : drawn);
  return kExitOk;
}

int RunExport(const ExportOptions& o) {
  if (int bad = CheckOptions(o); bad != kExitOk) return bad;
  const std::string out = o.has_out ? o.out : "-";
  const bool tables = o.format == "sqlite" || o.format == "csv";
  // The output before the input is read: checked, its temporary made.
  CommandIo io{"export", {{"FILE", o.file}}, Request(o, out)};
  if (tables) io.reads_beside = ManifestsBeside({o.file});
  std::unique_ptr<OutputFile> output;
  if (int entered = EnterCommand(io, &output); entered != kExitOk) return entered;
  if (tables) return ExportTables(o, out, std::move(output));
  ExportInput input;
  if (int read = ReadInput(o, &input); read != kExitOk) return read;
  return WriteExport(o, input, out, std::move(output));
}

}  // namespace

// What `--help` says of the command, above its options.
constexpr const char* kDescription =
    "Write a .ptape file in a form other tools read:\n"
    "  json      the whole file (header, frames, observations, resolutions, footer) as one\n"
    "            JSON object, protobuf's JSON mapping of proctape.v1.SnapshotExport: field\n"
    "            names as in proto/proctape.proto, raw /proc bytes (bytes fields) in base64,\n"
    "            64-bit integers as strings. Lossless, unlike the views' --json (escaped\n"
    "            text): the one output that holds a recording's token (every other shows\n"
    "            it as '*' of its length). Keep it as you keep the .ptape file.\n"
    "  dot       the process tree of one frame as a Graphviz digraph: a node per process\n"
    "            (pid, start tick, state, command name escaped as \\xNN), an edge per parent;\n"
    "            the process a recorded resolution RESOLVED is filled, its root has a double\n"
    "            border. Render it with 'dot -Tsvg' (graphviz is not needed by proctape).\n"
    "  proc-dir  one frame as a directory laid out like /proc: DIR/PID/stat, cmdline,\n"
    "            environ, status, cgroup holding exactly the recorded bytes (a failed read:\n"
    "            no file; the token masked to '*'), DIR/PID/proctape-identity (exe and\n"
    "            pid-namespace identity, errnos, truncation) and DIR/proctape-frame (times,\n"
    "            host facts, redaction). Read it back with 'proctape capture --proc-root DIR'.\n"
    "  sqlite    the tables of 'proctape sql' (docs/sql.md) as one SQLite database.\n"
    "  csv       the same tables as DIR/TABLE.csv (RFC 4180, NULL empty, bytes as \\xNN).\n"
    "Outputs are written as a temporary PATH.XXXXXX.partial beside PATH and renamed when\n"
    "complete; nothing is left behind on a failure or Ctrl-C. A damaged FILE is not\n"
    "exported at all (unlike show and tree): nothing is written, exit 11-16.";

void RegisterExport(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<ExportOptions>();
  CLI::App* sub = app.add_subcommand("export", kDescription);
  sub->add_option("FILE", o->file, "a .ptape file: a capture or a recording")
      ->check(NonEmptyPath())
      ->required();
  sub->add_option("--format", o->format, "json, dot, proc-dir, sqlite or csv")
      ->required()
      ->check(CLI::IsMember({"json", "dot", "proc-dir", "sqlite", "csv"}));
  CLI::Option* out = AddOutputOption(
      sub, o->out,
      "the file (json, dot, sqlite; '-' or absent: standard output) or the directory "
      "(proc-dir, csv) to write",
      "PATH");
  CLI::Option* frame =
      AddUnsigned(sub, "--frame", o->frame, 0, 4294967295,
                  "dot, proc-dir: the frame, counted from 0 in file order (default 0)");
  AddForceOption(sub, o->force,
                 "replace an existing output file, or a directory holding an earlier proc-dir "
                 "or csv export (a directory that is not one is never replaced)");
  sub->add_flag("--json", o->json,
                "print what was written as one JSON object (ExportReport; on standard error "
                "when the data goes to standard output)");
  sub->footer(std::string("Examples:\n"
                          "  proctape export failure.ptape --format json | jq .resolutions\n"
                          "  proctape export failure.ptape --format dot --frame 1 -o tree.dot\n"
                          "  dot -Tsvg tree.dot > tree.svg\n"
                          "  proctape export failure.ptape --format proc-dir -o frame0\n"
                          "  cat frame0/283/proctape-identity\n"
                          "  proctape capture --proc-root frame0 -o again.ptape\n"
                          "  proctape export failure.ptape --format sqlite -o failure.db\n\n") +
              ExitStatusFooter("0 written, 2 usage error, 10 the output refused or cannot be "
                               "written, 11-16 damaged input"));
  sub->callback([o, out, frame, exit_code] {
    o->has_out = out->count() > 0;
    o->has_frame = frame->count() > 0;
    *exit_code = RunExport(*o);
  });
}

}  // namespace proctape
