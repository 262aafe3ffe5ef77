// SPDX-License-Identifier: Apache-2.0
#include "analyze/sql/load.h"

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "analyze/sql/row_mask.h"
#include "analyze/sql/schema.h"
#include "analyze/sql/statement.h"
#include "core/proc_parse.h"
#include "format/file_holds.h"
#include "format/held_budget.h"
#include "format/snapshot_stream.h"
#include "proto/convert.h"
#include "proto/summary.h"

namespace proctape::sql {
namespace {

// A file of one line, as read, without its newline (boot_id).
std::string_view OneLineOf(std::string_view text) {
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  return text;
}

// Each of `words` masked, then escaped and cut, joined by one space: argv, a
// request's argv, a header's command line.
template <typename Words>
std::string JoinEscaped(const Words& words, const RowMask& mask) {
  std::string out;
  for (std::string_view w : words) {
    if (!out.empty()) out += ' ';
    out += EscapeBytes(mask.Masked(w), 4096);
  }
  return out;
}

std::string_view FileName(int file) { return ProcFileName(static_cast<ProcFile>(file)); }

class Loader {
 public:
  Loader(sqlite3* db, std::int64_t id, const FileFacts& facts)
      : db_(db),
        id_(id),
        facts_(facts),
        process_(db,
                 "INSERT INTO processes VALUES "
                 "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"),
        observation_(db, "INSERT INTO observations VALUES (?,?,?,?,?,?,?,?,?)"),
        resolution_(
            db, "INSERT INTO resolutions VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"),
        frame_(db, "INSERT INTO frames VALUES (?,?,?,?,?,?,?)"),
        file_(db, "INSERT INTO files VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)") {}

  Loaded Go(const std::string& path) {
    Loaded out;
    if (!process_.ok() || !observation_.ok() || !resolution_.ok() || !frame_.ok() || !file_.ok()) {
      out.error = sqlite3_errmsg(db_);
      return out;
    }
    FormatError open;
    std::unique_ptr<SnapshotStream> stream = SnapshotStream::Open(path, &open);
    std::string failed;
    if (!stream) {
      out.refused = open;
      return out;
    }
    stream->set_resolve_same_as(false);  // Observation() resolves what it keeps
    // The database holds every process row it is given: their bytes are
    // charged as a whole-file reader's are (docs/format.md section 7, "What
    // a command holds"); past the limit the file is damaged there.
    ReadBudget held = HeldBudget();
    {
      for (;;) {
        const std::uint64_t before = stream->materialized();
        SnapshotStream::Result r = stream->Next();
        if (r == SnapshotStream::Result::kEnd) break;
        if (r == SnapshotStream::Result::kError) {
          out.damage = stream->error().message;
          out.damage_kind = stream->error().kind;
          break;
        }
        const StreamItem& item = stream->item();
        const std::uint64_t made = stream->materialized() - before;
        if (item.kind == StreamItem::Kind::kFramePart && !held.Charge(made, stream->bytes())) {
          out.damage = HeldRefusal(held, item.index, item.offset, made, stream->bytes());
          out.damage_kind = FormatErrorKind::kTooLarge;
          break;
        }
        failed = Item(stream->item(), &out);
        if (!failed.empty()) break;
      }
      bytes_ = stream->bytes();
      version_ = stream->version();
    }
    if (failed.empty() && open_frame_) failed = EndFrame();
    if (failed.empty()) failed = mask_.MaskLate(db_, id_);
    if (failed.empty()) failed = FileRow(path, out.damage);
    out.keeps_environ = KeepsEnvironValues(header_);
    out.tokens = mask_.tokens();
    out.error = failed;
    return out;
  }

 private:
  std::string Item(StreamItem& item, Loaded* out) {
    v1::Chunk& c = item.chunk;
    switch (item.kind) {
      case StreamItem::Kind::kHeader:
        header_ = c.header();
        mask_.Begin(header_);
        return "";
      case StreamItem::Kind::kFooter: footer_ = c.footer(); return "";
      case StreamItem::Kind::kFingerprint: return "";
      case StreamItem::Kind::kFramePart: {
        const v1::Frame& part = c.frame();
        if (item.first_part) {
          if (open_frame_) {
            if (std::string f = EndFrame(); !f.empty()) return f;
          }
          frame_row_ = FrameRow{part.index(), part.scan_start_mono_ns()};
          frame_processes_ = 0;
          open_frame_ = true;
        }
        for (const v1::ProcessRecord& p : part.processes()) {
          if (std::string f = Process(frame_row_.index, p); !f.empty()) return f;
          ++frame_processes_;
          ++out->processes;
        }
        if (item.last_part) {
          frame_row_.complete = part.complete();
          frame_row_.scan_end_mono_ns = part.scan_end_mono_ns();
          frame_row_.cut_by_bounds = part.cut_by_bounds();
          return EndFrame();
        }
        return "";
      }
      case StreamItem::Kind::kObservations:
        for (const v1::Observation& o : c.observations().observations()) {
          if (std::string f = Observation(o); !f.empty()) return f;
          ++out->observations;
        }
        return "";
      case StreamItem::Kind::kResolution: return Resolution(c.resolution());
    }
    return "";
  }

  std::string EndFrame() {
    open_frame_ = false;
    return frame_.Int(id_)
        .Int(static_cast<std::int64_t>(frame_row_.index))
        .Int(frame_row_.scan_start_mono_ns)
        .Int(frame_row_.scan_end_mono_ns)
        .Int(frame_row_.complete ? 1 : 0)
        .Int(frame_row_.cut_by_bounds ? 1 : 0)
        .Int(static_cast<std::int64_t>(frame_processes_))
        .Row();
  }

  std::string Process(std::uint64_t frame, const v1::ProcessRecord& p) {
    std::optional<StatFields> s;
    if (p.has_stat() && p.stat().err() == 0 && !p.stat().truncated())
      s = ParseStat(p.stat().data()).fields;
    std::optional<std::int64_t> uid;
    std::optional<std::string> nspid;
    std::optional<std::int64_t> threads;
    if (p.has_status() && p.status().err() == 0) {
      if (auto ids = StatusIds(p.status().data(), "Uid")) uid = (*ids)[0];
      if (auto line = StatusValue(p.status().data(), "NSpid")) {
        std::string levels(*line);
        for (char& c : levels) c = c == '\t' ? ' ' : c;
        nspid = EscapeBytes(levels, 256);
      }
      if (auto line = StatusValue(p.status().data(), "Threads")) {
        if (std::optional<std::uint64_t> v = ParseCanonicalDecimal(*line)) {
          threads = static_cast<std::int64_t>(*v);
        }
      }
    }
    Insert& q = process_;
    q.Int(id_).Int(static_cast<std::int64_t>(frame)).Int(p.pid());
    if (s) {
      q.Int(s->ppid).Int(s->pgrp).Int(s->session).Int(static_cast<std::int64_t>(s->start_ticks));
      q.Text(std::string(1, s->state)).Text(EscapeBytes(mask_.Masked(s->comm), 64));
    } else {
      q.Null().Null().Null().Null().Null().Null();
    }
    q.Maybe(uid);
    nspid ? q.Text(*nspid) : q.Null();
    q.Maybe(threads);
    if (p.has_exe()) {
      q.Int(static_cast<std::int64_t>(p.exe().dev()))
          .Int(static_cast<std::int64_t>(p.exe().ino()))
          .Int(p.exe().err());
    } else {
      q.Null().Null().Null();
    }
    p.has_pid_ns() ? q.Int(static_cast<std::int64_t>(p.pid_ns().ino())) : q.Null();
    p.has_cmdline() && p.cmdline().err() == 0
        ? q.Text(JoinEscaped(SplitNul(p.cmdline().data()), mask_))
        : q.Null();
    std::size_t slot = 0;
    for (const v1::FileRead* r :
         {&p.cmdline(), &p.environ(), &p.stat(), &p.status(), &p.cgroup()}) {
      r->err() == 0 ? q.Blob(mask_.MaskedBytes(r->data(), &blobs_[slot])) : q.Null();
      ++slot;
    }
    p.has_cgroup() && p.cgroup().err() == 0
        ? q.Text(EscapeBytes(mask_.Masked(p.cgroup().data()), 4096))
        : q.Null();
    for (const v1::FileRead* r :
         {&p.stat(), &p.cmdline(), &p.environ(), &p.status(), &p.cgroup()}) {
      q.Int(r->err());
    }
    q.Int(p.cmdline().truncated() ? 1 : 0).Int(p.environ().truncated() ? 1 : 0);
    return q.Row();
  }

  // An observation's result, as its row says it: errno, bytes, truncated
  // (NULL where the call has none).
  struct Result {
    std::optional<std::int64_t> err, bytes, truncated;
  };

  static Result ResultOf(const v1::Observation& o) {
    switch (o.call_case()) {
      case v1::Observation::kListPids:
        return {o.list_pids().err(), o.list_pids().names_size(), o.list_pids().truncated() ? 1 : 0};
      case v1::Observation::kReadFile: {
        const v1::FileRead& r = o.read_file().result();
        return {r.err(), static_cast<std::int64_t>(r.data().size()), r.truncated() ? 1 : 0};
      }
      case v1::Observation::kExeIdentity: return {o.exe_identity().result().err(), {}, {}};
      case v1::Observation::kPathIdentity: return {o.path_identity().result().err(), {}, {}};
      default: return {};
    }
  }

  std::string Observation(const v1::Observation& o) {
    // Version 2's "same as observation index - same_as" is resolved here from
    // that one's result (the stream, told not to, copies no bytes).
    const std::uint64_t index = o.index();
    if (results_.size() <= index) results_.resize(index + 1);
    results_[index] =
        o.same_as() != 0 && o.same_as() <= index ? results_[index - o.same_as()] : ResultOf(o);
    const Result& r = results_[index];
    Insert& q = observation_;
    q.Int(id_).Int(static_cast<std::int64_t>(index));
    switch (o.call_case()) {
      case v1::Observation::kListPids: q.Text("list_pids").Null().Null(); break;
      case v1::Observation::kReadFile:
        q.Text("read_file").Int(o.read_file().pid()).Text(FileName(o.read_file().file()));
        break;
      case v1::Observation::kExeIdentity:
        q.Text("exe_identity").Int(o.exe_identity().pid()).Text("exe");
        break;
      case v1::Observation::kPathIdentity: q.Text("path_identity").Null().Null(); break;
      case v1::Observation::kNow: q.Text("now").Null().Null(); break;
      case v1::Observation::kSleepUntil: q.Text("sleep_until").Null().Null(); break;
      default: q.Text("unknown").Null().Null(); break;
    }
    q.Maybe(r.err).Maybe(r.bytes).Maybe(r.truncated).Int(o.mono_ns());
    return q.Row();
  }

  std::string Resolution(const v1::Resolution& r) {
    Insert& q = resolution_;
    q.Int(id_).Int(static_cast<std::int64_t>(resolutions_++));
    if (r.has_liveness()) {
      const v1::LivenessVerdict& v = r.liveness_verdict();
      q.Text("liveness").Null().Null().Null().Null().Null().Null().Null();
      q.Int(r.liveness().pid()).Int(static_cast<std::int64_t>(r.liveness().start_ticks()));
      q.Text(LivenessStatusText(v.status()));
      v.status() == v1::LivenessVerdict::ERROR ? q.Text(StatusText(v.reason())) : q.Null();
      q.Null().Null().Null().Null().Null().Text(v.detail());
    } else {
      const v1::ResolutionRequest& req = r.resolve();
      const v1::Verdict& v = r.verdict();
      q.Text("resolve")
          .Int(req.root_pid())
          .Int(static_cast<std::int64_t>(req.root_start_ticks()))
          .Text(JoinEscaped(req.argv(), mask_))
          .Text(EscapeBytes(req.token_var(), 256))
          .Text(EscapeBytes(mask_.Masked(req.exe_path()), 4096));
      mask_.Request(req.token());
      if (req.has_exe_identity() && req.exe_identity().err() == 0) {
        q.Int(static_cast<std::int64_t>(req.exe_identity().dev()))
            .Int(static_cast<std::int64_t>(req.exe_identity().ino()));
      } else {
        q.Null().Null();
      }
      q.Null().Null();
      q.Text(StatusText(v.status())).Null();
      if (v.status() == v1::Verdict::RESOLVED) {
        q.Int(v.pid()).Int(static_cast<std::int64_t>(v.start_ticks())).Null();
      } else {
        q.Null().Null();
        v.subject_pid() != 0 ? q.Int(v.subject_pid()) : q.Null();
      }
      q.Int(v.attempts())
          .Int(static_cast<std::int64_t>(v.bytes_read()))
          .Text(EscapeBytes(mask_.Masked(v.detail()), 4096));
    }
    q.Int(static_cast<std::int64_t>(r.first_observation()))
        .Int(static_cast<std::int64_t>(r.observation_count()))
        .Int(r.start_mono_ns())
        .Int(r.end_mono_ns());
    return q.Row();
  }

  std::string FileRow(const std::string& path, const std::string& damage) {
    Insert& q = file_;
    auto text_or_null = [&](const std::string& v) { v.empty() ? q.Null() : q.Text(v); };
    q.Int(id_).Text(EscapeBytes(mask_.Masked(path), 4096));
    text_or_null(facts_.sha256);
    text_or_null(mask_.Masked(facts_.entry));  // the MANIFEST's values: host bytes too
    text_or_null(mask_.Masked(facts_.scenario));
    q.Text(JoinEscaped(header_.command_line(), mask_))
        .Int(version_)
        .Text(EscapeBytes(mask_.Masked(header_.tool_version()), 256))
        .Text(EscapeBytes(mask_.Masked(header_.host().hostname()), 256))
        .Text(EscapeBytes(mask_.Masked(header_.host().kernel_release()), 256))
        .Text(EscapeBytes(OneLineOf(header_.host().boot_id()), 256))
        .Int(header_.capture_start_mono_ns())
        .Int(header_.capture_start_realtime_ns());
    footer_ ? q.Int(footer_->capture_end_mono_ns()) : q.Null();
    q.Int(header_.redaction().environ() == v1::RedactionPolicy::ENVIRON_REDACTED ? 1 : 0)
        .Int(static_cast<std::int64_t>(bytes_));
    damage.empty() ? q.Null() : q.Text(damage);
    return q.Row();
  }

  sqlite3* db_;
  std::int64_t id_;
  const FileFacts& facts_;
  Insert process_, observation_, resolution_, frame_, file_;
  v1::Header header_;
  std::optional<v1::Footer> footer_;
  // The frame being loaded: its first part's facts, then its last part's.
  struct FrameRow {
    std::uint64_t index = 0;
    std::int64_t scan_start_mono_ns = 0;
    std::int64_t scan_end_mono_ns = 0;
    bool complete = false;
    bool cut_by_bounds = false;
  };
  FrameRow frame_row_;
  std::uint64_t frame_processes_ = 0;
  bool open_frame_ = false;
  std::uint64_t resolutions_ = 0;
  std::vector<Result> results_;  // each observation's, by index
  RowMask mask_;                 // the token masked in what is stored
  std::string blobs_[5];         // a row's masked BLOBs
  std::uint64_t bytes_ = 0;
  std::uint32_t version_ = 0;
};

}  // namespace

// The schema file's part after this line is its indexes.
constexpr std::string_view kIndexesMark = "-- @indexes";

std::string CreateSchema(sqlite3* db) {
  const std::string_view all = kSchema;
  return Exec(db, std::string(all.substr(0, all.find(kIndexesMark))));
}

std::string CreateIndexes(sqlite3* db) {
  const std::string_view all = kSchema;
  const std::size_t at = all.find(kIndexesMark);
  return at == std::string_view::npos ? "" : Exec(db, std::string(all.substr(at)));
}

Loaded LoadFile(sqlite3* db, std::int64_t file_id, const std::string& path,
                const FileFacts& facts) {
  Loaded out;
  if (std::string f = Exec(db, "BEGIN"); !f.empty()) {
    out.error = f;
    return out;
  }
  {
    Loader loader(db, file_id, facts);
    out = loader.Go(path);
  }
  const bool keep = out.error.empty() && !out.refused;
  if (std::string f = Exec(db, keep ? "COMMIT" : "ROLLBACK"); out.error.empty()) {
    out.error = f;
  }
  return out;
}

}  // namespace proctape::sql
