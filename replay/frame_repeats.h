// SPDX-License-Identifier: Apache-2.0
// The frame model's bound on real work (replay/frame_evidence.h, "Work"):
// its virtual clock may run an hour of retries, but an attempt answered
// from one frame is a function of that frame and the calls it made, so an
// attempt that repeats the one before it, on the same frame, is repeated by
// every attempt that starts and ends before that frame stops being in force
// and before the deadline. FrameRepeats follows the attempts of one run (an
// attempt: the calls between two SleepUntil) and, when asked, says how far
// the clock may move past the attempts that would only repeat it.
#pragma once

#include <cstdint>
#include <optional>

namespace proctape {

class FrameRepeats {
 public:
  explicit FrameRepeats(std::int64_t start_ns) { current_.start = start_ns; }

  // One call of the attempt under way: its arguments (`op` tells the kind;
  // the frame answers the rest), the bytes the resolver's meter charges for
  // its answer (a listing's names, a read's data), and the frame that
  // answered it (nullopt: none did).
  void Call(int op, std::int64_t pid, int file, std::uint64_t bound, std::uint64_t bytes,
            std::optional<std::size_t> frame);

  // The attempt under way ends at `now` with SleepUntil(`until`): the time
  // the next attempt starts. That is max(now, until), unless `skip` and the
  // attempt repeated the one before it on one frame (the same calls, bytes
  // and duration): then every later attempt that would start and end before
  // `change` (the next frame's scan start) and leave room for one more
  // before `deadline` repeats it too, and all but the last two of them are
  // not made: the clock moves past them.
  std::int64_t Wake(std::int64_t now, std::int64_t until, std::int64_t change,
                    std::int64_t deadline, bool skip);

  // Attempts not made, and every byte charged, theirs included (what the
  // resolver's meter would have counted had they been made).
  std::uint64_t skipped() const { return skipped_; }
  std::uint64_t bytes() const { return bytes_; }

 private:
  struct Attempt {
    std::int64_t start = 0;
    std::uint64_t calls_hash = 0;
    std::uint64_t bytes = 0;
    std::optional<std::size_t> frame;
    bool one_frame = true;  // every call a frame answered, answered by `frame`
    bool ended = false;
  };
  static bool Repeats(const Attempt& a, const Attempt& b, std::int64_t a_duration,
                      std::int64_t b_duration);

  Attempt current_;
  Attempt previous_;
  std::int64_t previous_duration_ = 0;
  std::uint64_t skipped_ = 0;
  std::uint64_t bytes_ = 0;
};

}  // namespace proctape
