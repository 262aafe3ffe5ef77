// shape_file: writes a file of a hostile shape (tests/shapes/shape_file.h),
// for bench/views_shape_bench.sh and by hand.
//
//   shape_file chain|star N FILE
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tests/shapes/shape_file.h"

int main(int argc, char** argv) {
  using proctape::shapes::Shape;
  const std::string shape = argc == 4 ? argv[1] : "";
  char* end = nullptr;
  const unsigned long n = argc == 4 ? std::strtoul(argv[2], &end, 10) : 0;
  if ((shape != "chain" && shape != "star") || end == argv[2] || *end != '\0' || n < 1 ||
      n > 64000) {
    std::fprintf(stderr, "usage: shape_file chain|star N FILE  (1 <= N <= 64000)\n");
    return 2;
  }
  std::string error;
  if (!proctape::shapes::WriteShapeFile(argv[3], shape == "chain" ? Shape::kChain : Shape::kStar,
                                        static_cast<std::uint32_t>(n), &error)) {
    std::fprintf(stderr, "shape_file: %s\n", error.c_str());
    return 1;
  }
  return 0;
}
