# SPDX-License-Identifier: Apache-2.0
# Cross-building proctape for aarch64 on Debian 12 (README "Install"):
#   cmake -S . -B build-arm64 --toolchain cmake/aarch64-linux-gnu.cmake \
#         -DPROCTAPE_PORTABLE=ON
# Needs g++-aarch64-linux-gnu (crossbuild-essential-arm64) and the :arm64
# development packages (Multi-Arch: same, installed beside the host's);
# protoc is the host's (protobuf-compiler), which makes the same code for
# every target. Only the binary is built (the portable build has no tests).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_STRIP aarch64-linux-gnu-strip)

# Libraries and headers of the target: Debian's multiarch directories
# (/usr/lib/aarch64-linux-gnu, /usr/include/aarch64-linux-gnu), found under
# the usual prefix by the library architecture; programs (protoc) are the
# host's.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)

# pkg-config of the target: its .pc files only, not the host's.
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
