// corpus check: every entry replayed (in parallel), compared with its expect
// lines; the lines, the summary and the JUnit XML that report it.
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <exception>
#include <mutex>
#include <new>
#include <thread>

#include "core/proc_parse.h"
#include "corpus/beside_file.h"
#include "corpus/corpus.h"
#include "corpus/corpus_internal.h"
#include "corpus/expect.h"
#include "corpus/sha256.h"
#include "format/reader.h"
#include "proto/summary.h"
#include "replay/replay.h"
#include "replay/replay_file.h"
#include "fs/interrupt.h"

namespace proctape {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string Join(const google::protobuf::RepeatedPtrField<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::string Seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  return buf;
}

v1::CorpusEntryResult Unreadable(v1::CorpusEntryResult r, const std::string& why) {
  r.set_state(v1::CorpusEntryResult::UNREADABLE);
  r.set_detail(why);
  return r;
}

}  // namespace

void CompareWithExpects(const std::vector<std::string>& expects,
                        const std::vector<v1::ReplayResult>& replays,
                        v1::CorpusEntryResult* result) {
  result->clear_expected();
  result->clear_got();
  bool drift = expects.size() != replays.size();
  for (const std::string& e : expects) result->add_expected(EscapeValue(e));
  for (std::size_t i = 0; i < replays.size(); ++i) {
    const v1::ReplayResult& r = replays[i];
    result->add_got(ReplayPhrase(r));
    drift |= r.outcome() == v1::ReplayResult::DIVERGED || i >= expects.size() ||
             ReplayedExpect(r) != expects[i];
  }
  result->set_state(drift ? v1::CorpusEntryResult::DRIFTED : v1::CorpusEntryResult::REPRODUCED);
  result->set_detail(drift ? "expected " + Join(result->expected()) + "; got " + Join(result->got())
                           : "");
}

namespace {

v1::CorpusEntryResult CheckEntryOrThrow(const std::string& dir, const ManifestEntry& entry) {
  const Clock::time_point start = Clock::now();
  const std::string path = dir + "/" + entry.file;
  v1::CorpusEntryResult r;
  r.set_name(entry.name);
  r.set_file(entry.file);
  for (const std::string& e : entry.expects) r.add_expected(EscapeValue(e));
  auto done = [&start](v1::CorpusEntryResult out) {
    out.set_seconds(SecondsSince(start));
    return out;
  };
  // An entry is a file beside the MANIFEST: a regular file, opened once
  // (no link followed, a FIFO refused, not waited on: corpus/beside_file.h),
  // hashed and read from the same descriptor.
  Failure why;
  corpus_internal::Fd fd{OpenFileBeside(path, &why)};
  if (fd.fd < 0 && why.sys_errno == ENOENT) {
    r.set_file_missing(true);
    return done(Unreadable(r, entry.file + " is missing from the corpus directory"));
  }
  if (fd.fd < 0) return done(Unreadable(r, entry.file + ": " + why.message));
  std::optional<std::string> sha256 = Sha256Fd(fd.fd, &why);
  if (!sha256) return done(Unreadable(r, entry.file + ": " + why.message));
  const std::string& hex = *sha256;
  if (hex != entry.sha256) {
    return done(Unreadable(r, entry.file + " changed: its sha256 is " + hex.substr(0, 16) +
                                  "..., the manifest's " + entry.sha256.substr(0, 16) + "..."));
  }
  // A recorded resolution replays against its tape: no frame's processes
  // are kept (replay/replay.h).
  Snapshot snapshot;
  ReadKeep keep;
  keep.frames.emplace();
  keep.compact_tape = true;  // the tape as replay keeps it (format/tape.h)
  FormatError damage = ReadSnapshot(StreamSource{path, fd.fd}, &snapshot, keep);
  if (!damage.ok()) return done(Unreadable(r, entry.file + ": " + damage.message));
  if (snapshot.resolutions.empty()) {
    return done(Unreadable(r, entry.file + " holds no recorded resolution"));
  }
  // Masked: a verdict's evidence may quote the token.
  const std::vector<v1::ReplayResult> replays = ReplayTape(snapshot);
  for (const v1::ReplayResult& replay : replays) *r.add_replays() = ToSummary(replay);
  CompareWithExpects(entry.expects, replays, &r);
  return done(r);
}

}  // namespace

v1::CorpusEntryResult CheckEntry(const std::string& dir, const ManifestEntry& entry) {
  const Clock::time_point start = Clock::now();
  // Out of memory is thrown here, not the end of the process
  // (fs/interrupt.h): the entry is said UNREADABLE and the others checked.
  ThrowOnOutOfMemory();
  try {
    return CheckEntryOrThrow(dir, entry);
  } catch (const std::exception& e) {
    // An entry too large for the memory proctape may use (std::bad_alloc)
    // cannot be checked: it is UNREADABLE, with why, and the other entries
    // are checked all the same. What it held is freed by the unwinding.
    v1::CorpusEntryResult r;
    r.set_name(entry.name);
    r.set_file(entry.file);
    for (const std::string& x : entry.expects) r.add_expected(EscapeValue(x));
    const std::string why = dynamic_cast<const std::bad_alloc*>(&e) != nullptr
                                ? std::string("out of memory (") + e.what() + ")"
                                : std::string(e.what());
    r = Unreadable(std::move(r), entry.file + ": " + why);
    r.set_seconds(SecondsSince(start));
    return r;
  }
}

v1::CorpusReport CheckCorpus(const std::string& dir, const std::vector<ManifestEntry>& entries,
                             const CheckOptions& options) {
  const Clock::time_point start = Clock::now();
  std::vector<v1::CorpusEntryResult> results(entries.size());
  std::atomic<std::size_t> next{0};
  std::mutex mutex;  // serializes progress calls
  std::size_t done = 0;
  // What escapes a worker besides an entry's own failure (CheckEntry keeps
  // those): the first, rethrown on this thread once every worker is joined,
  // for the caller to say; an exception leaving a thread would abort.
  std::exception_ptr escaped;
  auto work = [&] {
    try {
      for (std::size_t i; (i = next.fetch_add(1)) < entries.size();) {
        results[i] = CheckEntry(dir, entries[i]);
        std::lock_guard<std::mutex> lock(mutex);
        ++done;
        if (options.progress) options.progress(done, entries.size(), entries[i].name);
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex);
      if (!escaped) escaped = std::current_exception();
      next = entries.size();  // the others stop at their next entry
    }
  };
  std::size_t threads = std::min<std::size_t>(std::max(options.jobs, 1u), entries.size());
  std::vector<std::thread> workers;
  for (std::size_t t = 1; t < threads; ++t) workers.emplace_back(work);
  work();  // this thread is one of the workers
  for (std::thread& w : workers) w.join();
  if (escaped) std::rethrow_exception(escaped);

  v1::CorpusReport report;
  report.set_dir(EscapeBytes(dir, 4096));
  for (v1::CorpusEntryResult& r : results) {
    switch (r.state()) {
      case v1::CorpusEntryResult::REPRODUCED: report.set_reproduced(report.reproduced() + 1); break;
      case v1::CorpusEntryResult::DRIFTED: report.set_drifted(report.drifted() + 1); break;
      default: report.set_unreadable(report.unreadable() + 1); break;
    }
    *report.add_results() = std::move(r);
  }
  report.set_entries(Count32(entries.size()));
  report.set_seconds(SecondsSince(start));
  return report;
}

std::string CheckLine(const v1::CorpusEntryResult& r) {
  switch (r.state()) {
    case v1::CorpusEntryResult::REPRODUCED: return "";
    case v1::CorpusEntryResult::DRIFTED: return "DRIFT " + r.name() + ": " + r.detail();
    default: return "UNREADABLE " + r.name() + ": " + r.detail();
  }
}

std::string SummaryLine(const v1::CorpusReport& report) {
  const std::string shard = report.shards() == 0 ? ""
                                                 : ", shard " + std::to_string(report.shard()) +
                                                       "/" + std::to_string(report.shards());
  return "corpus " + report.dir() + shard + ": " + Plural(report.entries(), "entry", "entries") +
         ", " + std::to_string(report.reproduced()) + " reproduced, " +
         std::to_string(report.drifted()) + " drifted, " + std::to_string(report.unreadable()) +
         " unreadable (" + Seconds(report.seconds()) + " s)";
}

std::string XmlEscape(std::string_view text) {
  std::string out;
  for (char ch : text) {
    auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '\t': out += "&#9;"; break;
      case '\n': out += "&#10;"; break;
      default:
        if (c >= 0x20 && c < 0x7f) {
          out += ch;
        } else {
          char buf[5];
          std::snprintf(buf, sizeof buf, "\\x%02x", c);
          out += buf;
        }
    }
  }
  return out;
}

std::string JUnitXml(const v1::CorpusReport& report) {
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n";
  out += "  <testsuite name=\"proctape-corpus\" tests=\"" + std::to_string(report.entries()) +
         "\" failures=\"" + std::to_string(report.drifted()) + "\" errors=\"" +
         std::to_string(report.unreadable()) + "\" skipped=\"0\" time=\"" +
         Seconds(report.seconds()) + "\">\n";
  for (const v1::CorpusEntryResult& r : report.results()) {
    out += "    <testcase classname=\"proctape-corpus\" name=\"" + XmlEscape(r.name()) +
           "\" file=\"" + XmlEscape(report.dir() + "/" + r.file()) + "\" time=\"" +
           Seconds(r.seconds()) + "\"";
    if (r.state() == v1::CorpusEntryResult::REPRODUCED) {
      out += "/>\n";
      continue;
    }
    const bool drift = r.state() == v1::CorpusEntryResult::DRIFTED;
    std::string body;  // the replays, as `proctape replay` describes them
    for (const v1::ReplaySummary& replay : r.replays()) body += DescribeReplay(replay);
    out += ">\n      <" + std::string(drift ? "failure" : "error") + " type=\"" +
           (drift ? "drift" : "unreadable") + "\" message=\"" + XmlEscape(r.detail()) + "\">" +
           XmlEscape(body.empty() ? r.detail() : body) + "</" + (drift ? "failure" : "error") +
           ">\n    </testcase>\n";
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace proctape
