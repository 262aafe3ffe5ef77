// SPDX-License-Identifier: Apache-2.0
// many_frames: writes a file of many frames (tests/shapes/many_frames.h), for
// bench/stream_rss.sh and by hand.
//
//   many_frames [--host] FRAMES PROCESSES FILE
//
// --host: a real capture's bytes, unchanged records shared between frames
// (WriteHostFrames); without it, small records sharing nothing
// (WriteManyFrames).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tests/shapes/many_frames.h"

int main(int argc, char** argv) {
  const bool host = argc > 1 && std::string(argv[1]) == "--host";
  if (host) {
    --argc;
    ++argv;
  }
  char* end1 = nullptr;
  char* end2 = nullptr;
  const long frames = argc == 4 ? std::strtol(argv[1], &end1, 10) : 0;
  const long processes = argc == 4 ? std::strtol(argv[2], &end2, 10) : 0;
  if (argc != 4 || end1 == argv[1] || *end1 != '\0' || end2 == argv[2] || *end2 != '\0' ||
      frames < 1 || frames > 1000 || processes < 1 || processes > 100000) {
    std::fprintf(stderr,
                 "usage: many_frames [--host] FRAMES PROCESSES FILE  (1 <= FRAMES <= 1000, "
                 "1 <= PROCESSES <= 100000)\n");
    return 2;
  }
  std::string error;
  const auto write = host ? proctape::shapes::WriteHostFrames : proctape::shapes::WriteManyFrames;
  if (!write(argv[3], static_cast<int>(frames), static_cast<int>(processes), &error)) {
    std::fprintf(stderr, "many_frames: %s\n", error.c_str());
    return 1;
  }
  return 0;
}
