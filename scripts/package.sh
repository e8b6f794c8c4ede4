#!/usr/bin/env bash
# Builds the Debian package nsq-cpp_<version>_amd64.deb (docs/packaging.md):
# a tree of its own with only the libraries, daemons and tools (no tests,
# benchmarks or fuzzers), the package's files on (NSQ_PACKAGE:
# cmake/Packaging.cmake), then `cpack -G DEB`. Prints the package's path.
#
# Usage: scripts/package.sh [output-dir]      (default: the build tree)
#   NSQ_PACKAGE_BUILD_DIR  the tree (default ./build-package)
#   NSQ_PACKAGE_BUILD_TYPE the CMake build type (default RelWithDebInfo)
#   NSQ_SKIP_DEPS=1        do not run install-deps.sh (tests/package, run
#                          by scripts/test.sh, which already did)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.ccache}
# Paths relative to the checkout, so clones in other folders (CI) hit the cache.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
[ "${NSQ_SKIP_DEPS:-0}" = 1 ] || bash "$root/scripts/install-deps.sh"

build=${NSQ_PACKAGE_BUILD_DIR:-$root/build-package}
out=${1:-$build}
mkdir -p "$out"
out=$(cd "$out" && pwd)
# The compiler flags of scripts/test.sh's tree (RelWithDebInfo: -O2 -g, as
# Debian builds its packages; cpack strips the binaries): with ccache, a
# tree beside ./build (the same depth, so the same relative paths) reuses
# its objects, and the package costs a link instead of a second full build
# (measured here: 38 s from ./build's objects, where a cold -O3 Release tree
# had built 85 of its 292 steps after 14 minutes).
# NSQ_PACKAGE_BUILD_TYPE=Release builds -O3 instead, from scratch.
build_type=${NSQ_PACKAGE_BUILD_TYPE:-RelWithDebInfo}
# Debian's hardening at link time (full RELRO), which leaves the cached
# objects as they are.
ld_flags="-Wl,-z,relro -Wl,-z,now"
# Configured on every run: the commit --version shows is read here.
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="$build_type" -DNSQ_WERROR=ON \
  -DCMAKE_INSTALL_PREFIX=/usr -DNSQ_PACKAGE=ON \
  -DNSQ_BUILD_TESTS=OFF -DNSQ_BUILD_BENCHMARKS=OFF -DNSQ_BUILD_FUZZERS=OFF \
  -DCMAKE_EXE_LINKER_FLAGS="$ld_flags" >/dev/null
cmake --build "$build" -j "${NSQ_JOBS:-2}"
(cd "$build" && cpack -G DEB -B "$out" >/dev/null)
rm -rf "$out/_CPack_Packages"
ls "$out"/nsq-cpp_*_amd64.deb
