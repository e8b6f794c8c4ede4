#!/usr/bin/env bash
# Installs what is missing, builds with warnings as errors, and runs every test:
# the g++ build's whole ctest suite, the same under ASan+UBSan and TSan, then
# the libFuzzer targets built with clang.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.ccache}
# Paths relative to the checkout, so clones in other folders (CI) hit the cache.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
# Room for the three build trees below (plain, ASan, TSan), so each stays warm.
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-20G}

bash "$root/scripts/install-deps.sh"

# The tree follows .clang-format; a file that differs fails before anything builds.
(cd "$root" && git ls-files -z '*.cc' '*.h' | xargs -0 clang-format --dry-run -Werror)

# The options that make build/ the full test tree are given explicitly: run.sh
# configures the same build/ without tests and benchmarks, and the CMake cache
# would otherwise keep that. --no-tests=error: a tree without tests fails.
NSQ_BUILD_DIR="$root/build" bash "$root/scripts/build.sh" -DNSQ_WERROR=ON \
  -DNSQ_BUILD_TESTS=ON -DNSQ_BUILD_BENCHMARKS=ON -DNSQ_BUILD_FUZZERS=ON
(cd "$root/build" && ctest --output-on-failure --no-tests=error -j 2 --timeout 600 -LE soak)
(cd "$root/build" && ctest --output-on-failure --no-tests=error -L soak --timeout 600)  # soaks (nsqd 2 min, cluster 3 min), alone

# Sanitizers (issue 8): tests built once more with ASan+UBSan, then with TSan,
# with the nsqd, nsqlookupd and tools they spawn. Any report, in a test or in a
# process it spawned, fails CI (scripts/sanitizers/ctest.sh). Each test says
# in its CMakeLists.txt which sanitizer trees build and run it (nsq_add_test
# SANITIZERS, cmake/Helpers.cmake); a tree builds only those, labelled asan or
# tsan. ASan+UBSan: every unit and integration test (libdiskqueue, libnsq and
# its C++ client, nsqd with TLS/snappy/deflate/AUTH, faults and durability,
# nsqlookupd, clusters, every tool, nsqadmin's API and its UI in the browser);
# the Node conformance suite, the install check, the fuzz replays (built with
# clang below), the differential tests and the soak stay out. TSan: the
# threaded suites (disk queue, broker core, HTTP server, nsqd/nsqlookupd
# integration, features, cluster, faults, durability, the C++ client's I/O and
# handler threads, the client tools); not the pure unit tests, nor nsq_stat,
# nsqadmin and nsq_bench (docs/RELIABILITY.md says why).
for kind in address thread; do
  if [ "$kind" = address ]; then
    dir="$root/build-asan" label=asan skip_tools=""
  else
    dir="$root/build-tsan" label=tsan skip_tools="nsq_stat;nsqadmin;nsq_bench"
  fi
  cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DNSQ_WERROR=ON -DNSQ_SANITIZE="$kind" -DNSQ_BUILD_BENCHMARKS=OFF \
    -DNSQ_SKIP_TOOLS="$skip_tools" -DNSQ_SKIP_TEST_DIRS="conformance;install;fuzz;soak;differential"
  cmake --build "$dir" -j 2
  bash "$root/scripts/sanitizers/ctest.sh" "$dir" "$kind" -j 2 --timeout 900 -L "$label"
done

# Fuzzers: a short libFuzzer run of each target (clang, ASan+UBSan).
if command -v clang++ >/dev/null 2>&1; then
  cmake -S "$root" -B "$root/build-fuzz" -G Ninja -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNSQ_FUZZ_ONLY=ON
  cmake --build "$root/build-fuzz" -j 2
  (cd "$root/build-fuzz" && ctest --output-on-failure --no-tests=error -L fuzz -j 2)
fi
