# SPDX-License-Identifier: Apache-2.0
# -DPROCTAPE_PORTABLE=ON (issue 12, README "Install"): one proctape binary to
# copy onto another Linux host. protobuf, zstd and nettle are linked from
# Debian's static archives (libprotobuf.a, libzstd.a, libnettle.a), the C++
# runtime and libgcc statically; only the C library's own objects stay
# shared. Only the binary is built: no tests, no benchmarks, no man pages.
# Included by the top-level CMakeLists.txt before it finds the dependencies;
# packaging/CMakeLists.txt defines PROCTAPE_PORTABLE for cli/ alone (so the
# other layers compile as in the normal build, and a compiler cache serves
# them).
option(PROCTAPE_PORTABLE "Build the portable single binary proctape-<version>-linux-<arch>" OFF)
if(PROCTAPE_PORTABLE)
  set(PROCTAPE_TESTS OFF)
  set(PROCTAPE_BENCH OFF)
  set(Protobuf_USE_STATIC_LIBS ON)
  set(CMAKE_FIND_LIBRARY_SUFFIXES .a)  # find_library (and pkg-config's) takes the archives
  add_link_options(-static-libstdc++ -static-libgcc)
endif()
