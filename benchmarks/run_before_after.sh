#!/usr/bin/env bash
# Two nsqd builds side by side in one run, alternating, driven by the same
# nsq_bench: for a change that must keep the figures (a refactoring).
# Prints each run's RESULT line with the nsqd's CPU ticks (1/100 s,
# utime+stime) over it. Usage:
#   benchmarks/run_before_after.sh OLD_NSQD NEW_NSQD [NSQ_BENCH] [ROUNDS]
# (build the old one from a `git worktree` of the commit before.)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
declare -A bin=([old]=$1 [new]=$2)
bench=${3:-$root/build/tools/nsq_bench/nsq_bench}
rounds=${4:-3}
common=(--size=100 --batch-size=200 --runfor=3s)
start() {
  dir=$(mktemp -d)
  "${bin[$1]}" --tcp-address=127.0.0.1:0 --http-address=127.0.0.1:0 --data-path="$dir" "${@:2}" 2>"$dir/log" &
  pid=$!
  for _ in $(seq 1 100); do
    port=$(grep -o 'TCP: listening on 127.0.0.1:[0-9]*' "$dir/log" | sed 's/.*://') || true
    [ -n "$port" ] && return 0; sleep 0.05
  done
}
cpu() { awk '{print $14+$15}' /proc/$pid/stat; }
stop() { kill -TERM $pid; wait $pid; rm -rf "$dir"; }
run() { # which label args
  local which=$1 label=$2; shift 2
  local c0=$(cpu)
  local line=$("$bench" --nsqd-tcp-address=127.0.0.1:$port "$@" | grep '^RESULT')
  local c1=$(cpu)
  echo "$label $which cpu_ticks=$((c1-c0)) $line"
}
for _ in $(seq 1 "$rounds"); do
  for which in old new; do
    start $which; run $which writer --mode=writer "${common[@]}"; run $which reader --mode=reader "${common[@]}"; stop
    start $which; run $which both --mode=both "${common[@]}"; stop
    start $which --mem-queue-size=0; run $which both0 --mode=both "${common[@]}"; stop
    start $which; run $which publat --mode=pub-latency --runfor=3s; stop
  done
done
