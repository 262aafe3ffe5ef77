// SPDX-License-Identifier: Apache-2.0
// Logical size (docs/format.md section 7: "a small file cannot make
// a reader allocate much"): files of a few kilobytes whose references make a
// reader materialize up to each copy limit, or past it where a copy is not
// counted. Each keeps every rule of sections 4 and 9a: a reader finds them
// intact.
#include <google/protobuf/unknown_field_set.h>

#include <string>

#include "core/memory_evidence.h"
#include "tests/hostile/recording.h"
#include "tests/hostile/shapes.h"

namespace proctape::hostile {
namespace {

std::uint64_t StartOf(std::uint32_t k) { return kRootStart + k; }

// A record whose key is (HostPid(k), StartOf(k)), with `stat` as its stat.
v1::ProcessRecord Keyed(std::uint32_t k, const std::string& stat) {
  v1::ProcessRecord r;
  r.set_pid(HostPid(k));
  r.mutable_stat()->set_data(stat);
  r.mutable_stat()->set_bound(4096);
  return r;
}

std::string StatOf(std::uint32_t k, const std::string& comm) {
  return MemoryEvidence::StatLine(HostPid(k), comm, 'S', kRootPid, StartOf(k));
}

// The next frame's reference to record k of the frame before, whole.
v1::ProcessRecord SameAsPrevious(std::uint32_t k) {
  v1::ProcessRecord r;
  r.set_pid(HostPid(k));
  r.set_previous_start_ticks(StartOf(k));
  r.set_same_as_previous(true);
  return r;
}

v1::Frame FrameAt(std::int64_t t) {
  v1::Frame f;
  f.set_scan_start_mono_ns(t);
  f.set_scan_end_mono_ns(t + 1000);
  return f;
}

// Frame 0 holds `records` records of `bytes` each (one per part); every
// further frame refers to them whole: each frame after the first copies
// records x bytes out of the one before (section 9a).
void PreviousFrameChain(const Params& p, Built* out) {
  const auto records = static_cast<std::uint32_t>(p.Num("records"));
  const std::uint64_t bytes = p.Num("bytes");
  const std::string field = p.Text("field");
  out->file.AddHeader(HostileHeader(""));
  v1::Frame first = FrameAt(1000);
  for (std::uint32_t k = 1; k <= records; ++k) {
    v1::ProcessRecord r = Keyed(k, StatOf(k, "big"));
    if (field == "cmdline") {
      r.mutable_cmdline()->set_data(std::string(bytes, 'A'));
      r.mutable_cmdline()->set_bound(bytes);
    } else if (field == "link_text") {  // not counted by a whole-record copy
      r.mutable_exe()->set_err(40);
      r.mutable_exe()->set_link_text(std::string(bytes, 'A'));
    } else {  // "unknown": a field this reader has no name for, kept and copied
      r.GetReflection()->MutableUnknownFields(&r)->AddLengthDelimited(99, std::string(bytes, 'A'));
    }
    *first.add_processes() = std::move(r);
  }
  out->file.AddFrame(first, 0);
  for (std::uint64_t f = 1; f < p.Num("frames"); ++f) {
    v1::Frame next = FrameAt(static_cast<std::int64_t>(1000 + f * 1000));
    for (std::uint32_t k = 1; k <= records; ++k) *next.add_processes() = SameAsPrevious(k);
    out->file.AddFrame(next);
  }
  out->file.AddFooter();
  out->pid = HostPid(1);
}

// One record whose stat (or status) has `fields` fields; each further frame
// refers to it as its fields with one change (FROM_PREVIOUS_FIELDS): a
// reader splits and joins the whole read per frame.
void PreviousFrameFields(const Params& p, Built* out) {
  const std::uint64_t fields = p.Num("fields");
  const bool status = p.Text("read") == "status";
  out->file.AddHeader(HostileHeader(""));
  std::string stat = StatOf(1, "fields");
  std::string many;
  many.reserve(fields * 2);
  if (status) {
    for (std::uint64_t i = 0; i < fields; ++i) many += "x\n";
  } else {
    stat.pop_back();  // the newline: the fields go before it
    for (std::uint64_t i = 0; i < fields; ++i) many += " 0";
    many += "\n";
  }
  v1::Frame first = FrameAt(1000);
  v1::ProcessRecord r = Keyed(1, status ? stat : stat + many);
  if (status) r.mutable_status()->set_data(many);
  *first.add_processes() = r;
  out->file.AddFrame(first);
  // The last field that holds a value: stat's " 0\n", status's last "x".
  const std::string& split = status ? r.status().data() : r.stat().data();
  const char separator = status ? '\n' : ' ';
  std::uint32_t last = 0;
  for (char ch : split) last += ch == separator ? 1 : 0;
  if (status) --last;
  for (std::uint64_t f = 1; f < p.Num("frames"); ++f) {
    v1::Frame next = FrameAt(static_cast<std::int64_t>(1000 + f * 1000));
    v1::ProcessRecord* ref = next.add_processes();
    ref->set_pid(HostPid(1));
    ref->set_previous_start_ticks(StartOf(1));
    v1::FileRead* read = status ? ref->mutable_status() : ref->mutable_stat();
    if (status) ref->mutable_stat()->set_from_previous(v1::FROM_PREVIOUS_SAME);
    read->set_from_previous(v1::FROM_PREVIOUS_FIELDS);
    read->set_bound(status ? 0 : 4096);
    v1::StatFieldChange* c = read->add_stat_changes();
    c->set_field(last);
    c->set_value(std::to_string(f) + (status ? "" : "\n"));
    out->file.AddFrame(next);
  }
  out->file.AddFooter();
  out->pid = HostPid(1);
}

// Blobs up to kMaxBlobBytes, each referred to `refs` times, the copies up
// to kMaxBlobCopyBytes: a reader holds the table and the copies (section 4).
void BlobCopyLimit(const Params& p, Built* out) {
  const std::uint64_t blobs = p.Num("blobs"), bytes = p.Num("bytes"), refs = p.Num("refs");
  out->file.AddHeader(HostileHeader(""));
  v1::Chunk c;
  v1::Frame* part = c.mutable_frame();
  std::uint32_t k = 0;
  for (std::uint64_t b = 1; b <= blobs; ++b) {
    part->Clear();
    part->set_scan_start_mono_ns(1000);
    v1::Blob* blob = part->add_blobs();
    blob->set_id(b);
    const bool nul = p.Text("fill") == "nul";  // an argv of `bytes` empty elements
    blob->set_data(std::string(bytes, nul ? '\0' : static_cast<char>('A' + b % 26)));
    for (std::uint64_t i = 0; i < refs; ++i) {
      ++k;
      v1::ProcessRecord* r = part->add_processes();
      *r = Keyed(k, StatOf(k, "blob"));
      r->mutable_cmdline()->set_blob(b);
      r->mutable_cmdline()->set_bound(bytes);
    }
    part->set_complete(b == blobs);
    if (b == blobs) part->set_scan_end_mono_ns(2000);
    out->file.Add(c);
  }
  out->file.AddFooter();
  out->pid = HostPid(1);
}

}  // namespace

std::vector<Shape> ReferenceShapes() {
  return {
      {"prev-frame-chain",
       "v2 frames each the previous frame's 16 MB records (9a), 4 GiB of copies: every reader "
       "of frames (show tree diff export sql ownership replay-frames verify)",
       "frames=66 records=4 bytes=16000000 field=cmdline", "frames=3 records=2 bytes=1000", 0,
       PreviousFrameChain},
      {"prev-frame-uncounted",
       "v2 whole-record references copying bytes the copy limit does not count (exe link text, "
       "or field=unknown: a field the reader has no name for): copies without bound",
       "frames=2000 records=4 bytes=16000000 field=link_text",
       "frames=3 records=1 bytes=1000 field=link_text", 0, PreviousFrameChain},
      {"prev-frame-fields",
       "v2 stat (read=status: status) of 8 M fields rebuilt per frame from its fields (9a "
       "FROM_PREVIOUS_FIELDS): split and join in every reader of frames",
       "frames=66 fields=8000000 read=stat", "frames=3 fields=100 read=stat", 0,
       PreviousFrameFields},
      {"blob-copy-limit",
       "blobs at kMaxBlobBytes, references at kMaxBlobCopyBytes (section 4): 320 MiB held by a "
       "reader of frames",
       "blobs=4 bytes=16776000 refs=4 fill=letters", "blobs=2 bytes=1000 refs=2 fill=letters", 0,
       BlobCopyLimit},
      {"nul-argv",
       "16 records whose cmdline is one 16 MB blob of NUL bytes: 16 M empty argv elements each, "
       "which tree, show --pid, diff, sql and csv print quoted",
       "blobs=1 bytes=16000000 refs=16 fill=nul", "blobs=1 bytes=100 refs=2 fill=nul", 0,
       BlobCopyLimit},
  };
}

}  // namespace proctape::hostile
