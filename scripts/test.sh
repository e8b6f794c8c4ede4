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

# The options that make build/ the full test tree are given explicitly: run.sh
# configures the same build/ without tests and benchmarks, and the CMake cache
# would otherwise keep that. --no-tests=error: a tree without tests fails.
NSQ_BUILD_DIR="$root/build" bash "$root/scripts/build.sh" -DNSQ_WERROR=ON \
  -DNSQ_BUILD_TESTS=ON -DNSQ_BUILD_BENCHMARKS=ON -DNSQ_BUILD_FUZZERS=ON
(cd "$root/build" && ctest --output-on-failure --no-tests=error -j 2 --timeout 600 -LE soak)
(cd "$root/build" && ctest --output-on-failure --no-tests=error -L soak --timeout 600)  # 2-minute soak, alone

# Sanitizers (issue 8): tests built once more with ASan+UBSan, then with TSan,
# with the nsqd, nsqlookupd and tools they spawn. Any report, in a test or in a
# process it spawned, fails CI (scripts/sanitizers/ctest.sh). A sanitized tree
# is a long build whenever the cache is cold, so each stage lists its targets.
# ASan+UBSan: every unit and integration test (libdiskqueue, libnsq and its C++
# client, nsqd with TLS/snappy/deflate/AUTH, faults and durability, nsqlookupd,
# clusters, every tool, nsqadmin's API and its UI in the browser); only the
# Node conformance suite, the install check, the fuzz replays (built with clang
# below) and the soak stay out. TSan: the threaded suites (disk queue, broker
# core, HTTP server, nsqd/nsqlookupd integration, features, cluster, faults,
# durability, the C++ client's I/O and handler threads, the client tools); not
# the pure unit tests, nor nsq_stat and nsqadmin (docs/RELIABILITY.md says why).
# Test executables of the kept folders that are not listed register as
# <name>_NOT_BUILT.
sanitize_skip_tools=""
sanitize_skip_tests="conformance;install;fuzz;soak"
asan_targets=(nsqd nsqlookupd nsq_tail nsq_to_file nsq_stat to_nsq nsq_to_nsq nsq_to_http nsqadmin
  diskqueue_test nsqd_core_test nsqd_integration_test nsq_unit_test http_server_test
  http_client_test http_response_reader_test lookupd_test lookupd_integration_test
  nsqd_options_test nsqd_stats_test nsqd_auth_test nsqd_command_line_test nsqd_http_integration_test
  nsqd_features_integration_test cluster_integration_test nsqd_fault_integration_test
  nsqd_fault_clients_test durable_publish_test client_unit_test client_integration_test
  nsq_bench_test nsq_stat_unit_test nsq_stat_integration_test nsq_tail_test nsq_to_file_unit_test
  nsq_to_file_integration_test nsq_to_http_test nsq_to_http_unit_test nsq_to_nsq_unit_test
  nsq_to_nsq_test to_nsq_test to_nsq_unit_test nsqadmin_unit_test nsqadmin_api_test)
tsan_targets=(nsqd nsqlookupd nsq_tail nsq_to_file to_nsq nsq_to_nsq nsq_to_http
  diskqueue_test nsqd_core_test nsqd_integration_test http_server_test lookupd_test
  lookupd_integration_test nsqd_http_integration_test nsqd_features_integration_test
  cluster_integration_test nsqd_fault_integration_test durable_publish_test client_integration_test
  nsq_tail_test nsq_to_file_integration_test to_nsq_test nsq_to_nsq_test nsq_to_http_test)
for kind in address thread; do
  dir="$root/build-$([ "$kind" = address ] && echo asan || echo tsan)"
  cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DNSQ_WERROR=ON -DNSQ_SANITIZE="$kind" -DNSQ_BUILD_BENCHMARKS=OFF \
    -DNSQ_SKIP_TOOLS="$sanitize_skip_tools" -DNSQ_SKIP_TEST_DIRS="$sanitize_skip_tests"
  # (The browser test is no gtest executable, so it is left out by name where
  # nsqadmin is not built.)
  if [ "$kind" = address ]; then
    targets=("${asan_targets[@]}") skip='_NOT_BUILT$'
  else
    targets=("${tsan_targets[@]}") skip='_NOT_BUILT$|^nsqadmin[.]browser$'
  fi
  cmake --build "$dir" -j 2 --target "${targets[@]}"
  bash "$root/scripts/sanitizers/ctest.sh" "$dir" "$kind" -j 2 --timeout 900 -E "$skip"
done

# Fuzzers: a short libFuzzer run of each target (clang, ASan+UBSan).
if command -v clang++ >/dev/null 2>&1; then
  cmake -S "$root" -B "$root/build-fuzz" -G Ninja -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNSQ_FUZZ_ONLY=ON
  cmake --build "$root/build-fuzz" -j 2
  (cd "$root/build-fuzz" && ctest --output-on-failure --no-tests=error -L fuzz -j 2)
fi
