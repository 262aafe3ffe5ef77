#include "analyze/sql/load.h"

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "analyze/sql/schema.h"
#include "core/proc_parse.h"
#include "format/snapshot_stream.h"
#include "proto/convert.h"

namespace proctape::sql {
namespace {

// One prepared statement, reset after each row.
class Insert {
 public:
  Insert(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) stmt_ = nullptr;
  }
  ~Insert() { sqlite3_finalize(stmt_); }
  Insert(const Insert&) = delete;
  Insert& operator=(const Insert&) = delete;
  bool ok() const { return stmt_ != nullptr; }

  Insert& Int(std::int64_t v) {
    sqlite3_bind_int64(stmt_, ++at_, v);
    return *this;
  }
  Insert& Null() {
    sqlite3_bind_null(stmt_, ++at_);
    return *this;
  }
  Insert& Text(std::string_view v) {
    sqlite3_bind_text(stmt_, ++at_, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  // Bytes that outlive the row (a record of the item being loaded): not copied.
  Insert& Blob(std::string_view v) {
    sqlite3_bind_blob(stmt_, ++at_, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
    return *this;
  }
  template <typename T>
  Insert& Maybe(const std::optional<T>& v) {
    return v ? Int(static_cast<std::int64_t>(*v)) : Null();
  }
  // Runs it: "" or SQLite's message.
  std::string Row() {
    const int rc = sqlite3_step(stmt_);
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    at_ = 0;
    return rc == SQLITE_DONE ? "" : sqlite3_errmsg(db_);
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  int at_ = 0;
};

std::string Exec(sqlite3* db, const char* sql) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &message) == SQLITE_OK) return "";
  std::string out = message != nullptr ? message : "unknown SQLite error";
  sqlite3_free(message);
  return out;
}

std::string Argv(std::string_view cmdline) {
  std::string out;
  for (std::string_view a : SplitNul(cmdline)) {
    if (!out.empty()) out += ' ';
    out += EscapeBytes(a, 4096);
  }
  return out;
}

std::string_view FileName(int file) {
  return ProcFileName(static_cast<ProcFile>(file));
}

class Loader {
 public:
  Loader(sqlite3* db, std::int64_t id)
      : db_(db),
        id_(id),
        process_(db, "INSERT INTO processes VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"),
        observation_(db, "INSERT INTO observations VALUES (?,?,?,?,?,?,?,?,?)"),
        resolution_(db, "INSERT INTO resolutions VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"),
        frame_(db, "INSERT INTO frames VALUES (?,?,?,?,?,?,?)"),
        file_(db, "INSERT INTO files VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)") {}

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
    {
      for (;;) {
        SnapshotStream::Result r = stream->Next();
        if (r == SnapshotStream::Result::kEnd) break;
        if (r == SnapshotStream::Result::kError) {
          out.damage = stream->error().message;
          break;
        }
        failed = Item(stream->item(), &out);
        if (!failed.empty()) break;
      }
      bytes_ = stream->bytes();
      version_ = stream->version();
    }
    if (failed.empty() && open_frame_) failed = EndFrame();
    if (failed.empty()) failed = FileRow(path, out.damage);
    out.error = failed;
    return out;
  }

 private:
  std::string Item(StreamItem& item, Loaded* out) {
    v1::Chunk& c = item.chunk;
    switch (item.kind) {
      case StreamItem::Kind::kHeader: header_ = c.header(); return "";
      case StreamItem::Kind::kFooter: footer_ = c.footer(); return "";
      case StreamItem::Kind::kFingerprint: return "";
      case StreamItem::Kind::kFramePart: {
        const v1::Frame& part = c.frame();
        if (item.first_part) {
          if (open_frame_) {
            if (std::string f = EndFrame(); !f.empty()) return f;
          }
          frame_row_ = part;
          frame_row_.clear_processes();
          frame_processes_ = 0;
          open_frame_ = true;
        }
        for (const v1::ProcessRecord& p : part.processes()) {
          if (std::string f = Process(frame_row_.index(), p); !f.empty()) return f;
          ++frame_processes_;
          ++out->processes;
        }
        if (item.last_part) {
          frame_row_.set_complete(part.complete());
          frame_row_.set_scan_end_mono_ns(part.scan_end_mono_ns());
          frame_row_.set_cut_by_bounds(part.cut_by_bounds());
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
        .Int(static_cast<std::int64_t>(frame_row_.index()))
        .Int(frame_row_.scan_start_mono_ns())
        .Int(frame_row_.scan_end_mono_ns())
        .Int(frame_row_.complete() ? 1 : 0)
        .Int(frame_row_.cut_by_bounds() ? 1 : 0)
        .Int(static_cast<std::int64_t>(frame_processes_))
        .Row();
  }

  std::string Process(std::uint64_t frame, const v1::ProcessRecord& p) {
    std::optional<StatFields> s;
    if (p.has_stat() && p.stat().err() == 0 && !p.stat().truncated()) s = ParseStat(p.stat().data()).fields;
    std::optional<std::int64_t> uid;
    std::optional<std::string> nspid;
    if (p.has_status() && p.status().err() == 0) {
      if (auto line = StatusValue(p.status().data(), "Uid")) {
        std::optional<std::uint64_t> v = ParseCanonicalDecimal(line->substr(0, line->find('\t')));
        if (v) uid = static_cast<std::int64_t>(*v);
      }
      if (auto line = StatusValue(p.status().data(), "NSpid")) nspid = EscapeBytes(*line, 256);
    }
    Insert& q = process_;
    q.Int(id_).Int(static_cast<std::int64_t>(frame)).Int(p.pid());
    if (s) {
      q.Int(s->ppid).Int(s->pgrp).Int(s->session).Int(static_cast<std::int64_t>(s->start_ticks));
      q.Text(std::string(1, s->state)).Text(EscapeBytes(s->comm, 64));
    } else {
      q.Null().Null().Null().Null().Null().Null();
    }
    q.Maybe(uid);
    nspid ? q.Text(*nspid) : q.Null();
    if (p.has_exe()) {
      q.Int(static_cast<std::int64_t>(p.exe().dev())).Int(static_cast<std::int64_t>(p.exe().ino()))
          .Int(p.exe().err());
    } else {
      q.Null().Null().Null();
    }
    p.has_pid_ns() ? q.Int(static_cast<std::int64_t>(p.pid_ns().ino())) : q.Null();
    p.has_cmdline() && p.cmdline().err() == 0 ? q.Text(Argv(p.cmdline().data())) : q.Null();
    for (const v1::FileRead* r : {&p.cmdline(), &p.environ(), &p.stat(), &p.status(), &p.cgroup()}) {
      r->err() == 0 ? q.Blob(r->data()) : q.Null();
    }
    p.has_cgroup() && p.cgroup().err() == 0 ? q.Text(EscapeBytes(p.cgroup().data(), 4096)) : q.Null();
    for (const v1::FileRead* r : {&p.stat(), &p.cmdline(), &p.environ(), &p.status(), &p.cgroup()}) {
      q.Int(r->err());
    }
    q.Int(p.cmdline().truncated() ? 1 : 0).Int(p.environ().truncated() ? 1 : 0);
    return q.Row();
  }

  std::string Observation(const v1::Observation& o) {
    Insert& q = observation_;
    q.Int(id_).Int(static_cast<std::int64_t>(o.index()));
    switch (o.call_case()) {
      case v1::Observation::kListPids:
        q.Text("list_pids").Null().Null().Int(o.list_pids().err())
            .Int(o.list_pids().names_size()).Int(o.list_pids().truncated() ? 1 : 0);
        break;
      case v1::Observation::kReadFile: {
        const v1::FileRead& r = o.read_file().result();
        q.Text("read_file").Int(o.read_file().pid()).Text(FileName(o.read_file().file()))
            .Int(r.err()).Int(static_cast<std::int64_t>(r.data().size())).Int(r.truncated() ? 1 : 0);
        break;
      }
      case v1::Observation::kExeIdentity:
        q.Text("exe_identity").Int(o.exe_identity().pid()).Text("exe")
            .Int(o.exe_identity().result().err()).Null().Null();
        break;
      case v1::Observation::kPathIdentity:
        q.Text("path_identity").Null().Null().Int(o.path_identity().result().err()).Null().Null();
        break;
      case v1::Observation::kNow: q.Text("now").Null().Null().Null().Null().Null(); break;
      case v1::Observation::kSleepUntil:
        q.Text("sleep_until").Null().Null().Null().Null().Null();
        break;
      default: q.Text("unknown").Null().Null().Null().Null().Null(); break;
    }
    q.Int(o.mono_ns());
    return q.Row();
  }

  std::string Resolution(const v1::Resolution& r) {
    Insert& q = resolution_;
    q.Int(id_).Int(static_cast<std::int64_t>(resolutions_++));
    if (r.has_liveness()) {
      const v1::LivenessVerdict& v = r.liveness_verdict();
      q.Text("liveness").Null().Null().Null().Null();
      q.Int(r.liveness().pid()).Int(static_cast<std::int64_t>(r.liveness().start_ticks()));
      q.Text(v1::LivenessVerdict::Status_Name(v.status()));
      v.status() == v1::LivenessVerdict::ERROR ? q.Text(v1::Verdict::Status_Name(v.reason())) : q.Null();
      q.Null().Null().Null().Null().Null().Text(v.detail());
    } else {
      const v1::ResolutionRequest& req = r.resolve();
      const v1::Verdict& v = r.verdict();
      std::string argv;
      for (const std::string& a : req.argv()) {
        if (!argv.empty()) argv.push_back(' ');
        argv.append(EscapeBytes(a, 4096));
      }
      q.Text("resolve").Int(req.root_pid()).Int(static_cast<std::int64_t>(req.root_start_ticks()))
          .Text(argv).Text(EscapeBytes(req.token_var(), 256)).Null().Null();
      q.Text(v1::Verdict::Status_Name(v.status())).Null();
      if (v.status() == v1::Verdict::RESOLVED) {
        q.Int(v.pid()).Int(static_cast<std::int64_t>(v.start_ticks())).Null();
      } else {
        q.Null().Null().Int(v.subject_pid());
      }
      q.Int(v.attempts()).Int(static_cast<std::int64_t>(v.bytes_read())).Text(EscapeBytes(v.detail(), 4096));
    }
    q.Int(static_cast<std::int64_t>(r.first_observation()))
        .Int(static_cast<std::int64_t>(r.observation_count()))
        .Int(r.start_mono_ns())
        .Int(r.end_mono_ns());
    return q.Row();
  }

  std::string FileRow(const std::string& path, const std::string& damage) {
    Insert& q = file_;
    q.Int(id_).Text(path).Int(version_).Text(EscapeBytes(header_.tool_version(), 256))
        .Text(EscapeBytes(header_.host().hostname(), 256))
        .Text(EscapeBytes(header_.host().kernel_release(), 256))
        .Text(EscapeBytes(header_.host().boot_id(), 256))
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
  Insert process_, observation_, resolution_, frame_, file_;
  v1::Header header_;
  std::optional<v1::Footer> footer_;
  v1::Frame frame_row_;
  std::uint64_t frame_processes_ = 0;
  bool open_frame_ = false;
  std::uint64_t resolutions_ = 0;
  std::uint64_t bytes_ = 0;
  std::uint32_t version_ = 0;
};

}  // namespace

std::string CreateSchema(sqlite3* db) { return Exec(db, kSchema); }

Loaded LoadFile(sqlite3* db, std::int64_t file_id, const std::string& path) {
  Loaded out;
  if (std::string f = Exec(db, "BEGIN"); !f.empty()) {
    out.error = f;
    return out;
  }
  {
    Loader loader(db, file_id);
    out = loader.Go(path);
  }
  const bool keep = out.error.empty() && !out.refused;
  if (std::string f = Exec(db, keep ? "COMMIT" : "ROLLBACK"); out.error.empty()) {
    out.error = f;
  }
  return out;
}

}  // namespace proctape::sql
