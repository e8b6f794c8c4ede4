#!/usr/bin/env bash
# Installs what is missing, builds, and runs a local cluster on localhost:
# nsqlookupd (4160/4161), nsqd (4150/4151, data in ./data) and nsqadmin
# (http://127.0.0.1:4171). Ctrl-C stops them all cleanly.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh"
# -DNSQ_WERROR=ON as scripts/test.sh builds: the same compiler flags, so the
# test command reuses these objects (ccache) instead of compiling them again.
NSQ_BUILD_DIR="$root/build" bash "$root/scripts/build.sh" -DNSQ_WERROR=ON -DNSQ_BUILD_TESTS=OFF \
  -DNSQ_BUILD_BENCHMARKS=OFF

bin="$root/build/tools"
mkdir -p "$root/data"
pids=()
trap 'kill -TERM "${pids[@]}" 2>/dev/null; wait' INT TERM
"$bin/nsqlookupd/nsqlookupd" --tcp-address=127.0.0.1:4160 --http-address=127.0.0.1:4161 \
  --broadcast-address=127.0.0.1 &
pids+=($!)
"$bin/nsqd/nsqd" --tcp-address=127.0.0.1:4150 --http-address=127.0.0.1:4151 \
  --broadcast-address=127.0.0.1 --data-path="$root/data" --lookupd-tcp-address=127.0.0.1:4160 &
pids+=($!)
"$bin/nsqadmin/nsqadmin" --http-address=127.0.0.1:4171 --lookupd-http-address=127.0.0.1:4161 &
pids+=($!)
wait
