#!/usr/bin/env bash
# Reruns the "nsqd latency, deadlines and idle cost" figures of
# benchmarks/RESULTS.md (issue 9): publish-to-delivery latency at half the
# measured peak, deadline lateness, CPU of 10,000 idle topics, memory per
# idle connection, and the nsqd hot-path micro-benchmarks. Each part runs on
# a fresh nsqd (data in a temp dir). Takes ~3 minutes.
# Usage: benchmarks/run_latency_idle.sh [runfor, default 5s]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${NSQ_BUILD_DIR:-$root/build}
nsqd=$build/tools/nsqd/nsqd
bench=$build/tools/nsq_bench/nsq_bench
here=$root/benchmarks
runfor=${1:-5s}

pid=
dir=
port=
http=
start_nsqd() {
  dir=$(mktemp -d)
  "$nsqd" --tcp-address=127.0.0.1:0 --http-address=127.0.0.1:0 --data-path="$dir" "$@" \
    2>"$dir/nsqd.log" &
  pid=$!
  port=
  http=
  for _ in $(seq 1 600); do
    port=$(grep -o 'TCP: listening on 127.0.0.1:[0-9]*' "$dir/nsqd.log" | sed 's/.*://') || true
    http=$(grep -o 'HTTP: listening on 127.0.0.1:[0-9]*' "$dir/nsqd.log" | sed 's/.*://') || true
    [ -n "$port" ] && [ -n "$http" ] && return 0
    sleep 0.05
  done
  echo "nsqd did not start" >&2
  exit 1
}
stop_nsqd() {
  kill "-${1:-TERM}" "$pid"
  { wait "$pid"; } 2>/dev/null || true
  rm -rf "$dir"
}
field() { grep -o " $1=[0-9.]*" | head -1 | cut -d= -f2; }

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
# The machine's own lateness: how late a 1 ms sleep wakes up right now
# (other work on the cores shows here first).
python3 - <<'PY'
import time
late = []
for _ in range(1000):
    t = time.monotonic()
    time.sleep(0.001)
    late.append((time.monotonic() - t - 0.001) * 1e3)
late.sort()
print(f"== machine: 1 ms sleep overshoot p50 {late[500]:.3f} ms, p99 {late[990]:.3f} ms, max {late[-1]:.3f} ms")
PY

start_nsqd
echo "== peak: writer + reader, MPUB 200 x 100 B, $runfor"
peak_line=$("$bench" --nsqd-tcp-address=127.0.0.1:"$port" --mode=both --size=100 --batch-size=200 \
  --runfor="$runfor" | grep '^RESULT')
echo "    $peak_line"
stop_nsqd
peak=$(echo "$peak_line" | field read_msgs_per_sec)
half=$(( ${peak%.*} / 2 ))
for spec in "50% of peak:$half:200" "10% of peak:$(( half / 5 )):200" "single PUBs, 2,000/s:2000:1"; do
  IFS=: read -r label rate batch <<<"$spec"
  start_nsqd
  echo "== latency at $label: --rate=$rate --batch-size=$batch"
  "$bench" --nsqd-tcp-address=127.0.0.1:"$port" --mode=both --latency --rate="$rate" --size=100 \
    --batch-size="$batch" --runfor="$runfor" | grep '^RESULT' | sed 's/^/    /'
  stop_nsqd
done

start_nsqd --msg-timeout=100ms
echo "== deadlines: DPUB, REQ and msg_timeout of 100 ms on fresh channels (50 rounds)"
python3 "$here/deadline_spread.py" 127.0.0.1:"$port" 50 100 | sed 's/^/    /'
stop_nsqd

start_nsqd
echo "== idle: 10,000 topics with a channel each (created over HTTP: create_s), 30 s window"
python3 "$here/idle_topics.py" "$pid" 127.0.0.1:"$http" 10000 5 30 | sed 's/^/    /'
echo "    nsqd RSS: $(awk '/VmRSS/ {print int($2/1024)}' "/proc/$pid/status") MiB"
stop_nsqd KILL  # a clean exit syncs 20,000 disk queues' metadata: a minute

start_nsqd
echo "== memory per idle connection (2,000 subscribed consumers)"
python3 "$here/idle_conns.py" "$pid" 127.0.0.1:"$port" 2000 2 | sed 's/^/    /'
stop_nsqd

echo "== micro-benchmarks"
for bm in bm_nsqd_protocol bm_nsqd_channel; do
  "$build/benchmarks/$bm" --benchmark_min_time=0.2 2>/dev/null | grep '^BM_' | sed 's/^/    /'
done
