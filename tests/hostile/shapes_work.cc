// Work rather than memory: real recordings (tests/hostile/recording.h) whose
// size in processes, deadline or clock makes explore, minimize, the frame
// model or explain do much, or say what the file does not hold.
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
  request.bounds.max_depth = n + 2;
  request.bounds.max_nodes = n + 2;
  WriteOptions options;
  options.frames = p.Num("frames") != 0;
  options.chunk_bytes = kMaxChunkContent - 4096;
  options.same_as = true;
  WriteRecording(Record(host, request), &out->file, options);
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

// A recording whose every clock reading is `below` ns under INT64_MAX: the
// deadline (start + 5 s) saturates; what explain and replay say of it.
void ClocksNearLimit(const Params& p, Built* out) {
  MemoryEvidence host;
  host.now_ns = std::numeric_limits<std::int64_t>::max() - static_cast<std::int64_t>(p.Num("below"));
  host.call_cost_ns = static_cast<std::int64_t>(p.Num("cost"));
  AddRoot(host);
  AddStar(host, static_cast<std::uint32_t>(p.Num("n")), kToken);
  WriteRecording(Record(host, SleepRequest()), &out->file);
  out->token = kToken;
  out->pid = kRootPid;
}

}  // namespace

std::vector<Shape> WorkShapes() {
  return {
      {"star-recording",
       "a recorded resolution on a star of n (300: explore past 60 s; 250/500/2,000: minimize's "
       "growth): explore, minimize, every view",
       "n=300 clock=1000000000 frames=1", "n=3 clock=1000000000 frames=1", 0, Star},
      {"chain-recording",
       "the tape alone of a recorded resolution at the end of a 60,000-deep chain, every clock "
       "reading 1,000 ns: explain's deadline arithmetic, replay and explain's depth",
       "n=60000 clock=1000 frames=0", "n=3 clock=1000 frames=0", 0, Chain},
      {"frames-deadline",
       "a recorded request of a 1 h deadline, 100 ms retries and no byte budget on a star of 300 "
       "that never matches: replay --model frames runs 36,000 attempts",
       "n=300 deadline_s=3600", "n=3 deadline_s=1", 0, FramesDeadline},
      {"clocks-near-limit",
       "a recording whose clocks read just under INT64_MAX (the deadline saturates): explain "
       "against replay (UNREADABLE said of a listing that succeeded)",
       "n=5 below=1000 cost=1", "n=3 below=1000 cost=1", 0, ClocksNearLimit},
  };
}

}  // namespace proctape::hostile
