// SPDX-License-Identifier: Apache-2.0
#include "procdir/facts.h"

#include <climits>
#include <unordered_set>

#include "core/proc_parse.h"
#include "proto/convert.h"

namespace proctape {
namespace {

constexpr const char* kFrameFile = kProcDirFrameFile;
constexpr const char* kIdentityFile = kProcDirIdentityFile;
constexpr const auto& kFiles = kProcDirFiles;

std::string Escape(std::string_view bytes) { return EscapeBytes(bytes, SIZE_MAX); }

// The inverse of Escape: printable ASCII, backslash only as \xNN.
bool Unescape(std::string_view text, std::string* out) {
  out->clear();
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c >= 0x7f) return false;
    if (c != '\\') {
      out->push_back(static_cast<char>(c));
      continue;
    }
    if (i + 3 >= text.size()) return false;
    if (text[i + 1] != 'x' || hex(text[i + 2]) < 0 || hex(text[i + 3]) < 0) return false;
    out->push_back(static_cast<char>(hex(text[i + 2]) * 16 + hex(text[i + 3])));
    i += 3;
  }
  return true;
}

std::optional<std::int64_t> ParseSigned(std::string_view text) {
  bool negative = !text.empty() && text[0] == '-';
  if (negative) text.remove_prefix(1);
  std::optional<std::uint64_t> v = ParseCanonicalDecimal(text, INT64_MAX);
  if (!v || (negative && *v == 0)) return std::nullopt;
  return negative ? -static_cast<std::int64_t>(*v) : static_cast<std::int64_t>(*v);
}

std::optional<int> ParseErrno(std::string_view text) {
  std::optional<std::int64_t> v = ParseSigned(text);
  if (!v || *v == 0 || *v < INT_MIN || *v > INT_MAX) return std::nullopt;
  return static_cast<int>(*v);
}

std::string PrintIdentity(const Identity& id) {
  if (id.err != 0) return "error " + std::to_string(id.err);
  return std::to_string(id.dev) + ":" + std::to_string(id.ino);
}

std::optional<Identity> ParseIdentity(std::string_view text) {
  if (text.substr(0, 6) == "error ") {
    std::optional<int> err = ParseErrno(text.substr(6));
    if (!err) return std::nullopt;
    return Identity{*err, 0, 0};
  }
  std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  auto dev = ParseCanonicalDecimal(text.substr(0, colon));
  auto ino = ParseCanonicalDecimal(text.substr(colon + 1));
  if (!dev || !ino) return std::nullopt;
  return Identity{0, *dev, *ino};
}

// The lines of a side file after its header "NAME 1": (key, value) pairs.
// False with *error when the text does not have that shape.
bool SplitLines(std::string_view text, std::string_view name,
                std::vector<std::pair<std::string_view, std::string_view>>* lines,
                std::string* error) {
  const std::string header = std::string(name) + " 1";
  std::size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    std::size_t nl = text.find('\n');
    if (nl == std::string_view::npos) {
      *error = "line " + std::to_string(line_no) + " has no newline";
      return false;
    }
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl + 1);
    if (line_no == 1) {
      if (line != header) {
        *error = "line 1 is not \"" + header + "\"";
        return false;
      }
      continue;
    }
    std::size_t space = line.find(' ');
    if (space == std::string_view::npos || space == 0) {
      *error = "line " + std::to_string(line_no) + " is not \"KEY VALUE\"";
      return false;
    }
    lines->emplace_back(line.substr(0, space), line.substr(space + 1));
  }
  if (line_no == 0) {
    *error = "empty (not a " + std::string(name) + " file)";
    return false;
  }
  return true;
}

std::string LineError(std::size_t index, std::string_view key, const std::string& why) {
  return "line " + std::to_string(index + 2) + " (" + EscapeBytes(key, 64) + "): " + why;
}

}  // namespace

bool ProcDirPid(std::int64_t pid) { return pid >= 1 && static_cast<std::uint64_t>(pid) <= kMaxPid; }

// ---- PID/proctape-identity -------------------------------------------------

IdentityFacts IdentityFactsOf(const v1::ProcessRecord& record) {
  IdentityFacts f;
  if (record.has_exe()) f.exe = FromProto(record.exe());
  if (!record.exe().link_text().empty()) f.exe_link = record.exe().link_text();
  if (record.has_pid_ns()) f.pid_ns = FromProto(record.pid_ns());
  if (!record.pid_ns().link_text().empty()) f.pid_ns_link = record.pid_ns().link_text();
  for (ProcFile file : kFiles) {
    const v1::FileRead* read = RecordedRead(record, file);
    if (read == nullptr) continue;
    if (read->err() != 0) {
      f.errors[file] = read->err();
    } else if (read->truncated()) {
      f.truncated.insert(file);
    }
  }
  return f;
}

std::string PrintIdentityFacts(const IdentityFacts& facts) {
  std::string out = std::string(kIdentityFile) + " 1\n";
  if (facts.exe) out += "exe " + PrintIdentity(*facts.exe) + "\n";
  if (facts.exe_link && !facts.exe_link->empty()) {
    out += "exe_link " + Escape(*facts.exe_link) + "\n";
  }
  if (facts.pid_ns) out += "pid_ns " + PrintIdentity(*facts.pid_ns) + "\n";
  if (facts.pid_ns_link && !facts.pid_ns_link->empty()) {
    out += "pid_ns_link " + Escape(*facts.pid_ns_link) + "\n";
  }
  for (ProcFile file : kFiles) {
    std::string name(ProcFileName(file));
    if (auto it = facts.errors.find(file); it != facts.errors.end()) {
      out += name + " error " + std::to_string(it->second) + "\n";
    } else if (facts.truncated.count(file) != 0) {
      out += name + " truncated\n";
    }
  }
  return out;
}

namespace {

bool ParseIdentityLines(std::string_view text, IdentityFacts* out, std::string* error) {
  *out = IdentityFacts{};
  std::vector<std::pair<std::string_view, std::string_view>> lines;
  if (!SplitLines(text, kIdentityFile, &lines, error)) return false;
  // Rank of a key: exe 0, exe_link 1, pid_ns 2, pid_ns_link 3, files 4..8.
  constexpr int kFirstFile = 4;
  int last = -1;  // rank of the previous line
  for (std::size_t i = 0; i < lines.size(); ++i) {
    auto [key, value] = lines[i];
    int rank = -1;
    if (key == "exe") rank = 0;
    if (key == "exe_link") rank = 1;
    if (key == "pid_ns") rank = 2;
    if (key == "pid_ns_link") rank = 3;
    for (std::size_t k = 0; k < std::size(kFiles); ++k) {
      if (key == ProcFileName(kFiles[k])) rank = kFirstFile + static_cast<int>(k);
    }
    if (rank < 0) {
      *error = LineError(i, key, "unknown key");
      return false;
    }
    if (rank <= last) {
      *error = LineError(i, key, "repeated or out of order");
      return false;
    }
    last = rank;
    if (rank == 0 || rank == 2) {
      std::optional<Identity> id = ParseIdentity(value);
      if (!id) {
        *error = LineError(i, key, "wants DEV:INO or \"error ERRNO\"");
        return false;
      }
      (rank == 0 ? out->exe : out->pid_ns) = *id;
      continue;
    }
    if (rank == 1 || rank == 3) {
      std::string link;
      if (!Unescape(value, &link) || link.empty()) {
        *error = LineError(i, key, "not printable ASCII with \\xNN escapes");
        return false;
      }
      (rank == 1 ? out->exe_link : out->pid_ns_link) = std::move(link);
      continue;
    }
    ProcFile file = kFiles[rank - kFirstFile];
    if (value == "truncated") {
      out->truncated.insert(file);
    } else if (std::optional<int> err =
                   value.substr(0, 6) == "error " ? ParseErrno(value.substr(6)) : std::nullopt) {
      out->errors[file] = *err;
    } else {
      *error = LineError(i, key, "wants \"error ERRNO\" or \"truncated\"");
      return false;
    }
  }
  return true;
}

// ---- proctape-frame --------------------------------------------------------

}  // namespace

MaybeFailure ParseIdentityFacts(std::string_view text, IdentityFacts* out) {
  std::string why;
  if (ParseIdentityLines(text, out, &why)) return std::nullopt;
  return Failure(FailureKind::kCorrupt, why);
}

FrameFacts FrameFactsOf(const Snapshot& snapshot, std::size_t frame) {
  const v1::Frame& f = snapshot.frames[frame];
  const v1::Header& h = snapshot.header;
  FrameFacts facts;
  facts.scan_start_mono_ns = f.scan_start_mono_ns();
  facts.scan_end_mono_ns = f.scan_end_mono_ns();
  std::int64_t since = 0, realtime = 0;
  if (h.capture_start_realtime_ns() != 0 &&
      !__builtin_sub_overflow(f.scan_start_mono_ns(), h.capture_start_mono_ns(), &since) &&
      !__builtin_add_overflow(h.capture_start_realtime_ns(), since, &realtime)) {
    facts.scan_start_realtime_ns = realtime;
  }
  facts.cut_reason = f.cut_reason();
  facts.host = h.host();
  facts.capturer_pid_ns_inode = h.capturer_pid_ns_inode();
  facts.environ = h.redaction().environ();
  for (const std::string& e : h.redaction().kept_entries()) facts.kept_entries.push_back(e);
  std::unordered_set<std::int64_t> seen;
  for (const v1::ProcessRecord& r : f.processes()) {
    if (!ProcDirPid(r.pid()) || !seen.insert(r.pid()).second) facts.dropped_pids.push_back(r.pid());
  }
  return facts;
}

namespace {

// proctape-frame keys in print order; the last two may repeat.
enum FrameKey : int {
  kScanStart,
  kScanEnd,
  kRealtime,
  kCutReason,
  kHostname,
  kKernel,
  kBootId,
  kPidMax,
  kTicks,
  kPageSize,
  kCapturerPidNs,
  kEnvironMode,
  kKeptEntry,
  kDroppedPid,
  kFrameKeys
};
constexpr const char* kFrameKeyNames[kFrameKeys] = {"scan_start_mono_ns",
                                                    "scan_end_mono_ns",
                                                    "scan_start_realtime_ns",
                                                    "cut_reason",
                                                    "hostname",
                                                    "kernel_release",
                                                    "boot_id",
                                                    "pid_max",
                                                    "clock_ticks_per_second",
                                                    "page_size",
                                                    "capturer_pid_ns_inode",
                                                    "environ",
                                                    "kept_entry",
                                                    "dropped_pid"};

}  // namespace

std::string PrintFrameFacts(const FrameFacts& facts) {
  std::string out = std::string(kFrameFile) + " 1\n";
  auto line = [&out](FrameKey key, const std::string& value) {
    out.append(kFrameKeyNames[key]).append(" ").append(value).append("\n");
  };
  auto number = [&line](FrameKey key, std::int64_t v) {
    if (v != 0) line(key, std::to_string(v));
  };
  auto bytes = [&line](FrameKey key, const std::string& v) {
    if (!v.empty()) line(key, Escape(v));
  };
  number(kScanStart, facts.scan_start_mono_ns);
  number(kScanEnd, facts.scan_end_mono_ns);
  number(kRealtime, facts.scan_start_realtime_ns);
  bytes(kCutReason, facts.cut_reason);
  bytes(kHostname, facts.host.hostname());
  bytes(kKernel, facts.host.kernel_release());
  bytes(kBootId, facts.host.boot_id());
  number(kPidMax, facts.host.pid_max());
  number(kTicks, facts.host.clock_ticks_per_second());
  number(kPageSize, facts.host.page_size());
  number(kCapturerPidNs, static_cast<std::int64_t>(facts.capturer_pid_ns_inode));
  if (facts.environ == v1::RedactionPolicy::ENVIRON_REDACTED) line(kEnvironMode, "redacted");
  if (facts.environ == v1::RedactionPolicy::ENVIRON_KEPT) line(kEnvironMode, "kept");
  for (const std::string& e : facts.kept_entries) line(kKeptEntry, Escape(e));
  for (std::int64_t pid : facts.dropped_pids) line(kDroppedPid, std::to_string(pid));
  return out;
}

namespace {

bool ParseFrameLines(std::string_view text, FrameFacts* out, std::string* error) {
  *out = FrameFacts{};
  std::vector<std::pair<std::string_view, std::string_view>> lines;
  if (!SplitLines(text, kFrameFile, &lines, error)) return false;
  int last = -1;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    auto [key, value] = lines[i];
    int rank = -1;
    for (int k = 0; k < kFrameKeys; ++k) {
      if (key == kFrameKeyNames[k]) rank = k;
    }
    if (rank < 0) {
      *error = LineError(i, key, "unknown key");
      return false;
    }
    const bool repeats = rank == kKeptEntry || rank == kDroppedPid;
    if (rank < last || (rank == last && !repeats)) {
      *error = LineError(i, key, "repeated or out of order");
      return false;
    }
    last = rank;
    std::string bytes;
    std::optional<std::int64_t> number;
    switch (rank) {
      case kCutReason:
      case kHostname:
      case kKernel:
      case kBootId:
      case kKeptEntry:
        if (!Unescape(value, &bytes)) {
          *error = LineError(i, key, "not printable ASCII with \\xNN escapes");
          return false;
        }
        break;
      case kEnvironMode: break;
      default:
        number = ParseSigned(value);
        if (!number) {
          *error = LineError(i, key, "not a decimal number");
          return false;
        }
    }
    switch (rank) {
      case kScanStart: out->scan_start_mono_ns = *number; break;
      case kScanEnd: out->scan_end_mono_ns = *number; break;
      case kRealtime: out->scan_start_realtime_ns = *number; break;
      case kCutReason: out->cut_reason = bytes; break;
      case kHostname: out->host.set_hostname(bytes); break;
      case kKernel: out->host.set_kernel_release(bytes); break;
      case kBootId: out->host.set_boot_id(bytes); break;
      case kPidMax: out->host.set_pid_max(*number); break;
      case kTicks: out->host.set_clock_ticks_per_second(*number); break;
      case kPageSize: out->host.set_page_size(*number); break;
      case kCapturerPidNs:
        if (*number < 0) {
          *error = LineError(i, key, "not a decimal number");
          return false;
        }
        out->capturer_pid_ns_inode = static_cast<std::uint64_t>(*number);
        break;
      case kEnvironMode:
        if (value == "redacted") {
          out->environ = v1::RedactionPolicy::ENVIRON_REDACTED;
        } else if (value == "kept") {
          out->environ = v1::RedactionPolicy::ENVIRON_KEPT;
        } else {
          *error = LineError(i, key, "wants \"redacted\" or \"kept\"");
          return false;
        }
        break;
      case kKeptEntry: out->kept_entries.push_back(bytes); break;
      case kDroppedPid: out->dropped_pids.push_back(*number); break;
    }
  }
  return true;
}

}  // namespace

MaybeFailure ParseFrameFacts(std::string_view text, FrameFacts* out) {
  std::string why;
  if (ParseFrameLines(text, out, &why)) return std::nullopt;
  return Failure(FailureKind::kCorrupt, why);
}

}  // namespace proctape
