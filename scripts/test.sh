#!/usr/bin/env bash
# Installs what is missing, builds with warnings as errors, and runs every test:
# the g++ build's whole ctest suite, then the libFuzzer targets built with clang.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.ccache}
# Paths relative to the checkout, so clones in other folders (CI) hit the cache.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}

bash "$root/scripts/install-deps.sh"

NSQ_BUILD_DIR="$root/build" bash "$root/scripts/build.sh" -DNSQ_WERROR=ON
(cd "$root/build" && ctest --output-on-failure -j 2 --timeout 600 -LE soak)
(cd "$root/build" && ctest --output-on-failure -L soak --timeout 600)  # 2-minute soak, alone

# Fuzzers: a short libFuzzer run of each target (clang, ASan+UBSan).
if command -v clang++ >/dev/null 2>&1; then
  cmake -S "$root" -B "$root/build-fuzz" -G Ninja -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNSQ_FUZZ_ONLY=ON
  cmake --build "$root/build-fuzz" -j 2
  (cd "$root/build-fuzz" && ctest --output-on-failure -L fuzz -j 2)
fi
