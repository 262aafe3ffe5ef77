// SPDX-License-Identifier: Apache-2.0
// Work rather than memory: real recordings (tests/hostile/recording.h) whose
// size in processes, deadline or clock makes explore, minimize, the frame
// model or explain do much, or say what the file does not hold.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "tests/hostile/recording.h"
#include "tests/hostile/shapes.h"

namespace proctape::hostile {
namespace {

// The sleep beneath a star (or chain) of n, resolved and recorded.
void Tree(const Params& p, Built* out, bool chain) {
  const auto n = static_cast<std::uint32_t>(p.Num("n"));
  MemoryEvidence host;
  host.now_ns = static_cast<std::int64_t>(p.Num("clock"));
  AddRoot(host);
  if (chain) {
    AddChain(host, n, kToken);
  } else {
    AddStar(host, n, kToken);
  }
  Request request = SleepRequest();
  if (p.Num("bounds") != 0) {  // 0: the defaults (max_depth 256: a deep chain is DEPTH_BOUND)
    request.bounds.max_depth = n + 2;
    request.bounds.max_nodes = n + 2;
  }
  request.bounds.deadline_ns = static_cast<std::int64_t>(p.Num("deadline_ms")) * 1'000'000;
  Recording r = Record(host, request);
  // cut=K: the tape's last K calls left out, as a tape cut short holds it:
  // the replay diverges where they were (what replay and explain say past it).
  r.tape.resize(r.tape.size() - std::min<std::uint64_t>(p.Num("cut"), r.tape.size()));
  r.resolution.set_observation_count(r.tape.size());
  WriteOptions options;
  options.frames = p.Num("frames") != 0;
  options.chunk_bytes = kMaxChunkContent - 4096;
  options.same_as = true;
  WriteRecording(r, &out->file, options);
  out->token = kToken;
  out->pid = HostPid(n);
}

void Star(const Params& p, Built* out) { Tree(p, out, false); }
void Chain(const Params& p, Built* out) { Tree(p, out, true); }

// A star of n in which nothing holds the token, and a recorded request with
// the longest valid deadline (kMaxDeadlineNs), the shortest retry and no
// byte budget: the frame model retries on the frames for an hour of virtual
// time. The tape is that of a short deadline (a few attempts); the request
// written is the long one, with the tape's verdict.
void FramesDeadline(const Params& p, Built* out) {
  MemoryEvidence host;
  AddRoot(host);
  AddStar(host, static_cast<std::uint32_t>(p.Num("n")), "not-the-token");
  Request request = SleepRequest();
  request.bounds.byte_budget = std::numeric_limits<std::uint64_t>::max();
  request.bounds.deadline_ns = 250'000'000;
  Recording r = Record(host, request);
  r.resolution.mutable_resolve()->mutable_bounds()->set_deadline_ns(
      static_cast<std::int64_t>(p.Num("deadline_s")) * 1'000'000'000);
  WriteRecording(r, &out->file);
  out->token = kToken;
  out->pid = kRootPid;
}

// `t` moved by `shift`, saturated at INT64_MAX (a clock near its limit).
std::int64_t Moved(std::int64_t t, std::int64_t shift) {
  return t > std::numeric_limits<std::int64_t>::max() - shift
             ? std::numeric_limits<std::int64_t>::max()
             : t + shift;
}

// A real recording of a check that retries on a star of n where nothing
// holds the token (NO_MATCH by a deadline of 250 ms), its every clock
// reading then moved to start `below` ns under INT64_MAX and saturated there:
// the deadline the replayed resolver computes saturates too, so it does not
// end where the recording did; what replay and explain say of the tape.
void ClocksNearLimit(const Params& p, Built* out) {
  MemoryEvidence host;
  AddRoot(host);
  AddStar(host, static_cast<std::uint32_t>(p.Num("n")), "other");
  Request request = SleepRequest();
  request.bounds.deadline_ns = 250'000'000;
  Recording r = Record(host, request);
  const std::int64_t shift = std::numeric_limits<std::int64_t>::max() -
                             static_cast<std::int64_t>(p.Num("below")) -
                             r.resolution.start_mono_ns();
  for (v1::Observation& o : r.tape) {
    o.set_mono_ns(Moved(o.mono_ns(), shift));
    if (o.has_now()) o.mutable_now()->set_result_ns(Moved(o.now().result_ns(), shift));
    if (o.has_sleep_until())
      o.mutable_sleep_until()->set_until_ns(Moved(o.sleep_until().until_ns(), shift));
  }
  r.resolution.set_start_mono_ns(Moved(r.resolution.start_mono_ns(), shift));
  r.resolution.set_end_mono_ns(Moved(r.resolution.end_mono_ns(), shift));
  for (v1::Frame* f : {&r.before, &r.after}) {
    f->set_scan_start_mono_ns(Moved(f->scan_start_mono_ns(), shift));
    f->set_scan_end_mono_ns(Moved(f->scan_end_mono_ns(), shift));
  }
  WriteRecording(r, &out->file);
  out->token = kToken;
  out->pid = kRootPid;
}

}  // namespace

std::vector<Shape> WorkShapes() {
  return {
      {"star-recording",
       "a recorded resolution on a star of n (300: explore past 60 s; 250/500/2,000: minimize's "
       "growth): explore, minimize, every view",
       "n=300 clock=1000000000 frames=1 bounds=1 deadline_ms=5000 cut=0",
       "n=3 clock=1000000000 frames=1 bounds=1 deadline_ms=5000 cut=0", 0, Star},
      {"chain-recording",
       "the tape alone of a recorded resolution at the end of a 60,000-deep chain, every clock "
       "reading 1,000 ns (cut=K: its last K calls left out, the replay diverges): explain's "
       "deadline arithmetic, replay and explain's depth",
       "n=60000 clock=1000 frames=0 bounds=1 deadline_ms=5000 cut=0",
       "n=3 clock=1000 frames=0 bounds=1 deadline_ms=5000 cut=0", 0, Chain},
      {"frames-deadline",
       "a recorded request of a 1 h deadline, 100 ms retries and no byte budget on a star of 1,200 "
       "that never matches: replay --model frames runs 36,000 attempts",
       "n=1200 deadline_s=3600", "n=3 deadline_s=1", 0, FramesDeadline},
      {"clocks-near-limit",
       "a retrying recording whose clocks are moved to just under INT64_MAX (the deadline "
       "saturates): what explain says against what replay says",
       "n=5 below=100000000", "n=3 below=100000000", 0, ClocksNearLimit},
  };
}

}  // namespace proctape::hostile
