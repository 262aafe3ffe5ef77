// SPDX-License-Identifier: Apache-2.0
// Tapes of "same as observation K" (docs/format.md section 9a, "Tapes: only
// what changed"): one large result, then observations that say they are the
// same, each counted by a plain reader at the result's size, up to
// kMaxSameAsCopyBytes. Intact files: every reference names the last earlier
// observation of the same call.
#include <string>
#include <vector>

#include "tests/hostile/recording.h"
#include "tests/hostile/shapes.h"

namespace proctape::hostile {
namespace {

v1::Observation At(std::uint64_t index) {
  v1::Observation o;
  o.set_index(index);
  o.set_mono_ns(static_cast<std::int64_t>(1'000'000'000 + index * 1000));
  return o;
}

v1::Observation Now(std::uint64_t index) {
  v1::Observation o = At(index);
  o.mutable_now()->set_result_ns(o.mono_ns());
  return o;
}

// The resolution that claims the whole tape, as `resolve --record` writes it.
void AddResolution(const std::vector<v1::Observation>& tape, Built* out) {
  v1::Chunk c;
  v1::Resolution* r = c.mutable_resolution();
  *r->mutable_resolve() = v1::ResolutionRequest();
  r->mutable_resolve()->set_root_pid(kRootPid);
  r->mutable_resolve()->set_root_start_ticks(kRootStart);
  r->mutable_resolve()->set_token(kToken);
  r->mutable_resolve()->set_token_var(kTokenVar);
  r->mutable_resolve()->add_argv("/bin/sleep");
  r->mutable_resolve()->add_argv("120");
  r->mutable_resolve()->mutable_bounds()->set_deadline_ns(5'000'000'000);
  r->mutable_resolve()->mutable_bounds()->set_retry_interval_ns(100'000'000);
  r->mutable_resolve()->mutable_bounds()->set_byte_budget(256u << 20);
  r->mutable_verdict()->set_status(v1::Verdict::NO_MATCH);
  r->mutable_verdict()->set_detail("no process beneath the root holds the token");
  r->set_observation_count(tape.size());
  r->set_start_mono_ns(tape.front().mono_ns());
  r->set_end_mono_ns(tape.back().mono_ns());
  out->file.Add(c);
}

// One read of `bytes` (the sleep's cmdline), then `copies` reads of the same
// call, each "the same as" the one before: copies x bytes for a plain reader.
void SameAsTape(const Params& p, Built* out) {
  const std::uint64_t bytes = p.Num("bytes"), copies = p.Num("copies");
  out->file.AddHeader(HostileHeader());
  std::vector<v1::Observation> tape;
  for (std::uint64_t i = 0; i <= copies; ++i) {
    v1::Observation o = At(i);
    v1::Observation::ReadFile* read = o.mutable_read_file();
    read->set_pid(HostPid(1));
    read->set_file(v1::PROC_FILE_CMDLINE);
    read->mutable_result()->set_bound(bytes);
    if (i == 0) {
      read->mutable_result()->set_data(std::string(bytes, 'A'));
    } else {
      o.set_same_as(1);
    }
    tape.push_back(std::move(o));
  }
  out->file.AddObservations(tape);
  AddResolution(tape, out);
  out->file.AddFooter();
  out->token = kToken;
}

// A listing of `names` empty names (2 bytes each on the wire, a string each
// in memory), then `copies` listings the same as it, a clock reading between.
void SameAsListing(const Params& p, Built* out) {
  const std::uint64_t names = p.Num("names"), copies = p.Num("copies");
  out->file.AddHeader(HostileHeader());
  std::vector<v1::Observation> tape;
  for (std::uint64_t i = 0; i <= copies; ++i) {
    tape.push_back(Now(tape.size()));
    v1::Observation o = At(tape.size());
    v1::Observation::ListPids* list = o.mutable_list_pids();
    list->set_bound(65536);
    if (i == 0) {
      for (std::uint64_t n = 0; n < names; ++n) list->add_names();
    } else {
      o.set_same_as(2);
    }
    tape.push_back(std::move(o));
  }
  out->file.AddObservations(tape, kMaxChunkContent - 64);
  AddResolution(tape, out);
  out->file.AddFooter();
  out->token = kToken;
}

}  // namespace

std::vector<Shape> TapeShapes() {
  return {
      {"same-as-tape",
       "v2 tape: one 15 MiB result referred to 68 times (9a), 1 GiB of copies: show, export "
       "json/sql (plain readers) beside replay/explain (compact tape)",
       "copies=68 bytes=15728640", "copies=3 bytes=1000", 0, SameAsTape},
      {"same-as-listing",
       "v2 tape: a listing of 8 M empty names (a string each in memory) referred to again: "
       "what a tape's one observation costs, in every reader of observations",
       "names=8000000 copies=8", "names=100 copies=2", 0, SameAsListing},
  };
}

}  // namespace proctape::hostile
