// SPDX-License-Identifier: Apache-2.0
// shape_file: writes a file of a hostile shape (tests/shapes/shape_file.h),
// for bench/views_shape_bench.sh and by hand.
//
//   shape_file chain|star N FILE [CHECKS [DEADLINE_MS]]
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tests/shapes/shape_file.h"

int main(int argc, char** argv) {
  using proctape::shapes::Shape;
  const bool args = argc >= 4 && argc <= 6;
  const std::string shape = args ? argv[1] : "";
  char* end = nullptr;
  const unsigned long n = args ? std::strtoul(argv[2], &end, 10) : 0;
  const bool n_ok = end != argv[2] && *end == '\0';
  const unsigned long checks = argc >= 5 ? std::strtoul(argv[4], &end, 10) : 1;
  const bool checks_ok = argc < 5 || (end != argv[4] && *end == '\0');
  const unsigned long deadline_ms = argc == 6 ? std::strtoul(argv[5], &end, 10) : 0;
  if ((shape != "chain" && shape != "star") || !n_ok || !checks_ok || *end != '\0' || n < 1 ||
      n > 64000 || checks < 1 || checks > 65536 || deadline_ms > 3'600'000) {
    std::fprintf(stderr,
                 "usage: shape_file chain|star N FILE [CHECKS [DEADLINE_MS]]  (1 <= N <= 64000, "
                 "1 <= CHECKS <= 65536, DEADLINE_MS <= 3600000)\n");
    return 2;
  }
  std::string error;
  if (!proctape::shapes::WriteShapeFile(argv[3], shape == "chain" ? Shape::kChain : Shape::kStar,
                                        static_cast<std::uint32_t>(n), &error,
                                        static_cast<std::uint32_t>(checks),
                                        static_cast<std::int64_t>(deadline_ms) * 1'000'000)) {
    std::fprintf(stderr, "shape_file: %s\n", error.c_str());
    return 1;
  }
  return 0;
}
