# SPDX-License-Identifier: Apache-2.0
# -DPROCTAPE_PORTABLE=ON (README "Install"): one proctape binary to copy onto
# another Linux host, fully static: protobuf, zstd, nettle, sqlite, seccomp
# from Debian's static archives, the C++ runtime, libgcc and glibc itself
# (-static: no interpreter, no shared object at all, so any kernel proctape
# supports runs it whatever its C library). proctape calls nothing of glibc
# that loads shared objects at run time (NSS: getpwnam and the like;
# dlopen); scripts/ship_check.sh fails on the linker's warning of one.
# Only the binary is built: no tests, no benchmarks, no man pages.
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
  add_link_options(-static)  # implies -static-libstdc++ -static-libgcc
endif()
