#!/usr/bin/env bash
# Builds the Debian package nsq-cpp_<version>_amd64.deb (docs/packaging.md):
# a Release tree of its own with only the libraries, daemons and tools (no
# tests, benchmarks or fuzzers), the package's files on (NSQ_PACKAGE:
# cmake/Packaging.cmake), then `cpack -G DEB`. Prints the package's path.
#
# Usage: scripts/package.sh [output-dir]      (default: the build tree)
#   NSQ_PACKAGE_BUILD_DIR  the Release tree (default ./build-release)
#   NSQ_SKIP_DEPS=1        do not run install-deps.sh (tests/package, run
#                          by scripts/test.sh, which already did)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.ccache}
# Paths relative to the checkout, so clones in other folders (CI) hit the cache.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
[ "${NSQ_SKIP_DEPS:-0}" = 1 ] || bash "$root/scripts/install-deps.sh"

build=${NSQ_PACKAGE_BUILD_DIR:-$root/build-release}
out=${1:-$build}
mkdir -p "$out"
out=$(cd "$out" && pwd)
# Debian's hardening flags (dpkg-buildflags' without -g: the binaries are
# stripped anyway, and debug info would double the build's time). GCC 12's
# -Wrestrict misfires on std::string at -O3 (GCC bug 105329): silenced.
cxx_flags="-fstack-protector-strong -Wformat -Werror=format-security -D_FORTIFY_SOURCE=2"
cxx_flags+=" -Wno-restrict"
ld_flags="-Wl,-z,relro -Wl,-z,now"
# Configured on every run: the commit --version shows is read here.
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
  -DNSQ_PACKAGE=ON -DNSQ_BUILD_TESTS=OFF -DNSQ_BUILD_BENCHMARKS=OFF -DNSQ_BUILD_FUZZERS=OFF \
  -DCMAKE_CXX_FLAGS="$cxx_flags" -DCMAKE_EXE_LINKER_FLAGS="$ld_flags" >/dev/null
cmake --build "$build" -j "${NSQ_JOBS:-2}"
(cd "$build" && cpack -G DEB -B "$out" >/dev/null)
rm -rf "$out/_CPack_Packages"
ls "$out"/nsq-cpp_*_amd64.deb
