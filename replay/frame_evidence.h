// SPDX-License-Identifier: Apache-2.0
// The frame model of replay (`docs/replay.md`, "Two models"): an Evidence that answers
// every call from the captured frames of a snapshot instead of its tape, so
// that a changed resolver, or a different request, runs against any capture —
// one recorded by `resolve --record` or one taken with plain `proctape capture`.
// Nothing live is ever read, nothing waits in real time.
//
// The virtual clock and the frame in force (the exact rule):
//   - the clock starts at `start_ns`: the recorded resolution's start
//     (Resolution.start_mono_ns) when one is replayed, else the earliest
//     frame's scan start (FrameModelStart);
//   - the frame in force at time T is the latest frame whose scan started at
//     or before T (frames ordered by scan start, then by file order); before
//     the earliest scan start, the earliest frame is in force;
//   - every call is answered from the frame in force at the virtual time of
//     the call;
//   - NowNs returns the virtual time and does not move it;
//   - ListPids answers from the frame in force, then advances the clock by
//     that frame's recorded scan duration (scan_end - scan_start; 0 when the
//     frame is incomplete or its end precedes its start): an enumeration of
//     the host takes as long as the capture's did, so a resolution's reads
//     after a listing are answered at the time the frame's scan ended;
//   - SleepUntil(t) sets the clock to t if t is later (never backwards).
//   So a retry loop moves through the frames as the recorded host moved: a
//   process that appears only in frame 1 is found by the first attempt that
//   starts at or after frame 1's scan start. A frame scan reads far more than
//   a resolver's listing (every file of every process), so the modelled
//   listing is slow: in a recording (a frame, the resolution, a frame) the
//   reads that follow the first listing may already be answered by the frame
//   taken after the resolution — as a live /proc would answer them later —
//   and an attempt that starts just before the deadline can end in DEADLINE
//   where the tape shows NO_MATCH.
//
// Answers:
//   - ListPids: the pids of the frame's records, in recorded (listing) order,
//     as decimal names; at most `bound` of them, `truncated` when the frame
//     holds more. A frame whose scan was cut by a bound (Frame.cut_by_bounds:
//     max-processes, max-bytes, max-entries) also answers `truncated`: the
//     host held processes the frame does not, and the resolver must not
//     decide as if the listing were whole (it fails closed with ENTRY_BOUND).
//     A frame of a --root capture lists only that subtree.
//   - ReadFile: a pid without a record in the frame answers ENOENT, like a
//     live /proc (and so does kExe, which is never read). A recorded failure
//     answers its errno. A recorded success answers its bytes, cut to
//     `bound` if longer (then `truncated`). Bytes are views into the frames,
//     names into this object's last listing (core/evidence.h: valid until
//     the next call). Environ bytes are answered as stored: redacted values
//     stay '*' (only the kept entries, e.g. the token entry of a recording,
//     are verbatim).
//   - ExeIdentity: the record's exe identity (or its errno); no record:
//     ENOENT.
//   - What the frames hold only in part is not answered (replay/unanswered.h,
//     docs/replay.md "What a replay cannot answer"): a record without a read
//     of the file asked, or without an exe identity (NOT_RECORDED); a read
//     cut at a bound smaller than the one asked (PAST_BOUND: the bytes past
//     it were never seen); an environ stored redacted where the request's
//     token entry was not kept verbatim (REDACTED, SetTokenQuestion). The
//     first such call is kept (unanswered(), unanswered_call()) and from then
//     on, as on a diverged tape, every read fails with EIO and the clock
//     reads far past any deadline, so the resolver stops; its verdict is not
//     one (FrameRun.unanswered).
//   - PathIdentity: frames hold no paths. The identity set with
//     SetAttestedPath (the request's exe path and its attested identity) is
//     answered for exactly that path; every other path answers ENOENT.
//
// Work (BoundWork; RunOnFrames and RerunOnFrames set it for a resolution):
// the virtual clock may run a valid request's hour of retries, but real work
// is bounded, so that replay of a small file takes little time whatever its
// deadline (docs/format.md section 7, "The frame model's work"):
//   - the first kFrameExactCalls calls are answered as above, every attempt
//     made;
//   - past them, an attempt (the calls between two SleepUntil) answered
//     from one frame that repeats the attempt before it on the same frame
//     (the same calls, bytes and virtual duration) is repeated by every
//     attempt that would start and end before the next frame's scan start
//     and leave room for one more before the deadline: all but the last two
//     of those are not made, the clock moves past them (replay/frame_repeats.h).
//     The resolver's verdict then counts the attempts it made; the run says
//     how many were not. Their bytes are counted all the same: when with them
//     the run would have read past the request's byte budget, the verdict is
//     not the one the attempts would have reached, and the run has no
//     decision (FrameRun::cut);
//   - a run answers at most kFrameExactCalls + kFrameCallsPerRecord calls per
//     process record of the frames; the call past that fails (EIO) and the
//     run has no decision (FrameRun::cut).
// Below kFrameExactCalls nothing changes: every corpus recording replays as
// before. (FrameWork holds both numbers, for tests.)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/evidence.h"
#include "core/proc_parse.h"
#include "core/resolver.h"
#include "core/verdict.h"
#include "format/reader.h"
#include "proctape.pb.h"
#include "replay/frame_repeats.h"
#include "replay/replay.h"
#include "replay/unanswered.h"

namespace proctape {

inline constexpr std::uint64_t kFrameExactCalls = 1'000'000;
inline constexpr std::uint64_t kFrameCallsPerRecord = 16;
// The two numbers of "Work" (tests give smaller ones).
struct FrameWork {
  std::uint64_t exact_calls = kFrameExactCalls;
  std::uint64_t calls_per_record = kFrameCallsPerRecord;
};

class FrameEvidence : public Evidence {
 public:
  // Serves `frames` (which must outlive this object), clock starting at
  // `start_ns`.
  FrameEvidence(const std::vector<v1::Frame>& frames, std::int64_t start_ns);
  // Serves the frames of `snapshot` (which must outlive this object): its
  // shared records when it was read with them (ReadKeep::shared_records).
  FrameEvidence(const Snapshot& snapshot, std::int64_t start_ns);
  FrameEvidence(const FrameEvidence&) = delete;
  FrameEvidence& operator=(const FrameEvidence&) = delete;

  // PathIdentity(path) answers `identity`; every other path ENOENT.
  void SetAttestedPath(std::string path, Identity identity);
  // Environ reads are answered only where they answer `question` (which
  // must outlive this object); null: every read as stored.
  void SetTokenQuestion(const TokenQuestion* question) { question_ = question; }

  // The first call the frames could not answer, and why (NONE: none yet).
  v1::Unanswered unanswered() const { return unanswered_; }
  const std::string& unanswered_call() const { return unanswered_call_; }

  // Bounds the run's work (the header's "Work"): repeated attempts past
  // work.exact_calls not made, before `deadline_ns` (the request's); the
  // calls capped.
  void BoundWork(std::int64_t deadline_ns, const FrameWork& work = {});
  // Attempts not made; every byte the resolver's meter charged or would have
  // charged for them; whether the cap on calls was reached.
  std::uint64_t attempts_skipped() const { return repeats_.skipped(); }
  std::uint64_t bytes_charged() const { return repeats_.bytes(); }
  bool capped() const { return capped_; }

  // The file-order index of the frame in force now (nullopt: no frames).
  std::optional<std::size_t> FrameInForce() const;
  // The record of `pid` in frame `i` (file order; the first one, if listed
  // twice), or null. Not a call: nothing is counted.
  const v1::ProcessRecord* Find(std::size_t i, std::int64_t pid);
  // Calls answered so far (every call through the interface).
  std::uint64_t calls() const { return calls_; }
  std::uint64_t lists() const { return lists_; }
  // File-order indexes of the first and last frame that answered a call.
  std::optional<std::size_t> first_frame_used() const { return first_used_; }
  std::optional<std::size_t> last_frame_used() const { return last_used_; }
  std::int64_t now() const { return now_; }

  ListResult ListPids(std::uint64_t bound) override;
  ReadResult ReadFile(std::int64_t pid, ProcFile file, std::uint64_t bound) override;
  Identity ExeIdentity(std::int64_t pid) override;
  Identity PathIdentity(const std::string& path) override;
  std::int64_t NowNs() override;
  void SleepUntil(std::int64_t mono_ns) override;

 private:
  // Serves `frames` with `records` (null: a view of the frames' own).
  FrameEvidence(const std::vector<v1::Frame>& frames, const FrameRecords* records,
                std::int64_t start_ns);
  // The frame in force now, noted as used; null when there are no frames
  // or the cap on calls is reached.
  const v1::Frame* Use();
  // Past the cap on calls (counted): every call fails from then on.
  bool Capped();
  // The scan start of the first frame after the one in force (INT64_MAX: none).
  std::int64_t NextChange() const;
  // The answer to a call the frames cannot answer: kept, and EIO.
  ReadResult Unanswered(v1::Unanswered why, std::string call);
  // ReadFile's answer (the rules of the header).
  ReadResult Read(std::int64_t pid, ProcFile file, std::uint64_t bound);

  const std::vector<v1::Frame>& frames_;
  FrameRecords own_;                // a view of frames_' records, when not given
  const FrameRecords* records_;     // the records of each frame
  std::vector<std::size_t> order_;  // file-order indexes, by scan start
  std::vector<std::unordered_map<std::int64_t, const v1::ProcessRecord*>> index_;
  std::vector<bool> indexed_;
  std::int64_t now_;
  std::optional<std::size_t> in_force_;  // set by Use()
  std::vector<std::string> names_;       // the last listing, which its names view
  std::uint64_t calls_ = 0;
  std::uint64_t lists_ = 0;
  std::optional<std::size_t> first_used_;
  std::optional<std::size_t> last_used_;
  std::optional<std::string> attested_path_;
  Identity attested_identity_;
  const TokenQuestion* question_ = nullptr;
  v1::Unanswered unanswered_ = v1::UNANSWERED_NONE;
  std::string unanswered_call_;
  FrameRepeats repeats_;
  bool bounded_ = false;
  bool capped_ = false;
  std::int64_t deadline_ = 0;
  std::uint64_t exact_calls_ = 0;
  std::uint64_t max_calls_ = 0;
};

// The clock start of the frame model: `resolution`'s start when given, else
// the earliest frame scan start (0 without frames).
std::int64_t FrameModelStart(const Snapshot& snapshot, const v1::Resolution* resolution);

// What one record of a frame says about a process (nullopt: no record, or its
// stat was not read whole and parsed).
std::optional<StatFields> StatInFrame(const v1::Frame& frame, std::int64_t pid);
// The same of a record (may be null) said to be of `pid`.
std::optional<StatFields> StatOfRecord(const v1::ProcessRecord* record, std::int64_t pid);
// The exe identity recorded for `pid` (err ENOENT without a record).
Identity ExeInFrame(const v1::Frame& frame, std::int64_t pid);
// The record of `pid` in `frame` (the first one), or null.
const v1::ProcessRecord* RecordInFrame(const v1::Frame& frame, std::int64_t pid);

// One run of the frame model: a recorded resolution (its request, with any
// overrides, from its start time) or a request of the command line.
struct FrameRun {
  std::optional<std::size_t> resolution_index;  // the recorded resolution re-run
  bool liveness = false;                        // a recorded liveness check
  bool request_changed = false;                 // overrides were applied
  Verdict verdict;                              // for a resolution
  LivenessVerdict liveness_verdict;             // for a liveness check
  std::optional<v1::Verdict> recorded;          // the recorded verdict, if any
  std::optional<v1::LivenessVerdict> recorded_liveness;
  // The frames could not answer a call (FrameEvidence::unanswered): the run
  // DIVERGED there, and `verdict`/`liveness_verdict` are no verdict.
  v1::Unanswered unanswered = v1::UNANSWERED_NONE;
  std::string unanswered_call;
  bool same_decision = false;              // recorded: same status, pid and start tick
  std::uint64_t calls = 0;                 // Evidence calls answered by the frames
  std::optional<std::size_t> first_frame;  // frames that answered (file order)
  std::optional<std::size_t> last_frame;
  std::int64_t virtual_ns = 0;         // virtual time the run took
  std::uint64_t attempts_skipped = 0;  // repeats not made (the header's "Work")
  // Why the run has no decision ("": it has one): the cap on calls was
  // reached, or the attempts not made would have passed the byte budget.
  std::string cut;
};

// Resolves `request` against the frames of `snapshot`, clock from `start_ns`.
// `exe_path` (may be empty) is the path PathIdentity answers for. Environ
// reads answer only what the file's redaction kept of the request's token
// entry (TokenQuestion).
FrameRun RunOnFrames(const Snapshot& snapshot, const Request& request, std::int64_t start_ns,
                     const std::string& exe_path = {}, const FrameWork& work = {});

// Re-runs recorded resolution `index` of `snapshot` against its frames: a
// resolution with `overrides` applied (a liveness check as recorded), from the
// recorded start time; compares with the recorded verdict.
FrameRun RerunOnFrames(const Snapshot& snapshot, std::size_t index,
                       const RequestOverrides& overrides, const FrameWork& work = {});

// Recorded and replayed verdicts decide the same: same status, pid and start
// tick (attempt and byte counts may differ: frames are not the tape).
bool SameDecision(const v1::Verdict& a, const v1::Verdict& b);
bool SameDecision(const v1::LivenessVerdict& a, const v1::LivenessVerdict& b);

// One or two human lines.
std::string DescribeFrameRun(const FrameRun& run);

}  // namespace proctape
