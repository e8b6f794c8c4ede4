#!/usr/bin/env bash
# Reruns the nsqd throughput table of benchmarks/RESULTS.md on this machine:
# each scenario starts a fresh nsqd (data in a temp dir), drives it with
# nsq_bench, and prints nsq_bench's RESULT line with nsqd's peak RSS.
# Usage: benchmarks/run_nsqd_bench.sh [runfor, default 10s]. Takes ~2 minutes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${NSQ_BUILD_DIR:-$root/build}
nsqd=$build/tools/nsqd/nsqd
bench=$build/tools/nsq_bench/nsq_bench
runfor=${1:-10s}
common=(--size=100 --batch-size=200 --runfor="$runfor")

pid=
dir=
port=
start_nsqd() {
  dir=$(mktemp -d)
  "$nsqd" --tcp-address=127.0.0.1:0 --data-path="$dir" "$@" 2>"$dir/nsqd.log" &
  pid=$!
  for _ in $(seq 1 100); do
    port=$(grep -o 'TCP: listening on 127.0.0.1:[0-9]*' "$dir/nsqd.log" | sed 's/.*://') || true
    [ -n "$port" ] && return 0
    sleep 0.05
  done
  echo "nsqd did not start" >&2
  exit 1
}
stop_nsqd() {
  local rss
  rss=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
  kill -TERM "$pid"
  wait "$pid"
  rm -rf "$dir"
  echo "    nsqd peak RSS: $((rss / 1024)) MiB"
}
run() {
  local label=$1
  shift
  echo "== $label"
  "$bench" --nsqd-tcp-address=127.0.0.1:"$port" "$@" | grep '^RESULT' | sed 's/^/    /'
}

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {print int($2/1024)}' /proc/meminfo) MiB"
start_nsqd
run "loopback TCP limit" --mode=loopback-limit --runfor=5s
stop_nsqd

start_nsqd
run "writer only (memory queue, no channel yet)" --mode=writer "${common[@]}"
run "reader only (draining what the writer left)" --mode=reader "${common[@]}"
stop_nsqd

start_nsqd
run "writer + reader" --mode=both "${common[@]}"
stop_nsqd

start_nsqd --mem-queue-size=0
run "writer only, --mem-queue-size=0" --mode=writer "${common[@]}"
stop_nsqd

start_nsqd --mem-queue-size=0
run "writer + reader, --mem-queue-size=0" --mode=both "${common[@]}"
stop_nsqd

start_nsqd
run "single-message PUB, one connection" --mode=pub-latency --runfor=5s
stop_nsqd
