#!/usr/bin/env bash
# Installs what is missing, builds, and runs a local broker: nsqlookupd and nsqd
# on localhost with their data in ./data. Ctrl-C stops both cleanly.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh"
NSQ_BUILD_DIR="$root/build" bash "$root/scripts/build.sh" -DNSQ_BUILD_TESTS=OFF -DNSQ_BUILD_BENCHMARKS=OFF

bin="$root/build/tools"
if [ ! -x "$bin/nsqd/nsqd" ]; then
  echo "run.sh: built; nsqd is not part of this version yet" >&2
  exit 0
fi
mkdir -p "$root/data"
pids=()
trap 'kill -TERM "${pids[@]}" 2>/dev/null; wait' INT TERM
if [ -x "$bin/nsqlookupd/nsqlookupd" ]; then
  "$bin/nsqlookupd/nsqlookupd" --tcp-address=127.0.0.1:4160 --http-address=127.0.0.1:4161 \
    --broadcast-address=127.0.0.1 &
  pids+=($!)
  lookupd_flag=(--lookupd-tcp-address=127.0.0.1:4160)
else
  lookupd_flag=()
fi
"$bin/nsqd/nsqd" --tcp-address=127.0.0.1:4150 --http-address=127.0.0.1:4151 \
  --broadcast-address=127.0.0.1 --data-path="$root/data" "${lookupd_flag[@]}" &
pids+=($!)
wait
