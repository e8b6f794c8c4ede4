#!/usr/bin/env bash
# Reruns the nsqd table of benchmarks/RESULTS.md on this machine: each
# scenario starts a fresh nsqd (data in a temp dir), drives it with nsq_bench,
# and prints nsq_bench's RESULT line with nsqd's peak RSS (VmHWM). Every
# scenario runs `rounds` times, rounds interleaved (the machine is shared and
# noisy), and a summary gives the median of each. The machine's limits are
# measured in the same run: loopback TCP (nsq_bench --mode=loopback-limit) and
# fsyncs per second in the data directory's file system (bm_diskqueue's
# BM_MachineFsync, when built).
# Usage: benchmarks/run_nsqd_bench.sh [runfor, default 5s] [rounds, default 3]
# Takes ~6 minutes with the defaults.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${NSQ_BUILD_DIR:-$root/build}
nsqd=$build/tools/nsqd/nsqd
bench=$build/tools/nsq_bench/nsq_bench
bm=$build/benchmarks/bm_diskqueue
runfor=${1:-5s}
rounds=${2:-3}
common=(--size=100 --batch-size=200 --runfor="$runfor")
results=$(mktemp)
trap 'rm -f "$results"' EXIT

pid=
dir=
port=
http_port=
start_nsqd() {
  dir=$(mktemp -d)
  "$nsqd" --tcp-address=127.0.0.1:0 --http-address=127.0.0.1:0 --data-path="$dir" "$@" \
    2>"$dir/nsqd.log" &
  pid=$!
  for _ in $(seq 1 100); do
    port=$(grep -o 'TCP: listening on 127.0.0.1:[0-9]*' "$dir/nsqd.log" | sed 's/.*://') || true
    http_port=$(grep -o 'HTTP: listening on 127.0.0.1:[0-9]*' "$dir/nsqd.log" | sed 's/.*://') ||
      true
    [ -n "$port" ] && [ -n "$http_port" ] && return 0
    sleep 0.05
  done
  echo "nsqd did not start" >&2
  exit 1
}
# A topic with a channel nobody consumes: everything published stays queued.
create_channel() {
  curl -sf -X POST "http://127.0.0.1:$http_port/topic/create?topic=sub_bench" >/dev/null
  curl -sf -X POST "http://127.0.0.1:$http_port/channel/create?topic=sub_bench&channel=ch" \
    >/dev/null
}
peak_rss_kib() { awk '/VmHWM/ {print $2}' "/proc/$pid/status"; }
stop_nsqd() {
  local rss
  rss=$(peak_rss_kib)
  kill -TERM "$pid"
  wait "$pid"
  rm -rf "$dir"
  echo "    nsqd peak RSS: $((rss / 1024)) MiB"
}
# run KEY LABEL nsq_bench-args...: prints the RESULT line, records it under KEY.
run() {
  local key=$1 label=$2 line
  shift 2
  echo "== $label"
  line=$("$bench" --nsqd-tcp-address=127.0.0.1:"$port" "$@" | grep '^RESULT') || true
  echo "    $line"
  echo "$key $line" >>"$results"
}
# fsyncs/s of 128-byte appends (key fsync) and of 128-byte writes over blocks
# written beforehand (key fsync_over: what a preallocated segment costs).
fsync_rate() {
  [ -x "$bm" ] || return 0
  local key name rate
  for key in fsync fsync_over; do
    name=BM_MachineFsync
    [ "$key" = fsync_over ] && name=BM_MachineFsyncOverwrite
    echo "== machine: fsyncs/s ($name: 128 B + fdatasync, in $(dirname "$(mktemp -u)"))"
    rate=$("$bm" --benchmark_filter="^$name/" --benchmark_min_time=1 2>/dev/null |
      grep -o 'items_per_second=[0-9.]*[kM]*' | sed 's/items_per_second=//' |
      awk '/k$/ {printf "%.0f", $1 * 1000; next} {printf "%.0f", $1}')
    echo "    $rate"
    echo "$key RESULT mode=fsync msgs_per_sec=$rate" >>"$results"
  done
}

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {print int($2/1024)}' /proc/meminfo) MiB," \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq 1 "$rounds"); do
  echo "######## round $round/$rounds"
  start_nsqd
  run loopback "loopback TCP limit" --mode=loopback-limit --runfor=3s
  stop_nsqd

  start_nsqd
  run writer "writer only (memory queue, no channel yet)" --mode=writer "${common[@]}"
  run reader "reader only (draining what the writer left)" --mode=reader "${common[@]}"
  stop_nsqd

  start_nsqd
  run both "writer + reader" --mode=both "${common[@]}"
  stop_nsqd

  start_nsqd --mem-queue-size=0
  run writer0 "writer only, --mem-queue-size=0" --mode=writer "${common[@]}"
  stop_nsqd

  start_nsqd --mem-queue-size=0
  run both0 "writer + reader, --mem-queue-size=0" --mode=both "${common[@]}"
  stop_nsqd

  start_nsqd
  run publat "single-message PUB, one connection" --mode=pub-latency --runfor="$runfor"
  stop_nsqd

  # Memory: ~2 M 100-byte messages held in a channel's memory queue (how Go's
  # ~690 MiB figure was made: --mem-queue-size above the message count, a
  # channel that exists but has no client). 400 k/s for 5 s; the bytes per
  # message are the peak RSS over the messages actually acknowledged.
  start_nsqd --mem-queue-size=2500000
  create_channel
  run mem "2 M queued messages (channel without clients)" --mode=writer --size=100 \
    --batch-size=200 --rate=400000 --runfor=5s
  echo "mem_rss $(peak_rss_kib)" >>"$results"
  stop_nsqd

  # Group commit: 16 publishers of single messages, each OK after an fsync.
  # The limit first: the same load against a server that does nothing but
  # read, pwrite, fdatasync and reply, in the same file system.
  fsync_rate
  echo "== group-commit limit (16 clients, fdatasync before each reply, no broker)"
  line=$("$bench" --mode=group-commit-limit --writers=16 --size=100 --runfor="$runfor" \
    --data-path="$(dirname "$(mktemp -u)")" | grep '^RESULT') || true
  echo "    $line"
  echo "sync_limit $line" >>"$results"
  start_nsqd --sync-publish
  create_channel
  run sync "--sync-publish, 16 single-message publishers, one channel" --mode=writer \
    --writers=16 --batch-size=1 --pipeline=1 --size=100 --runfor="$runfor"
  stop_nsqd
done

median() { sort -n | awk '{v[NR]=$1} END {if (NR) print v[int((NR+1)/2)]}'; }
field() { grep "^$1 " "$results" | grep -o " $2=[0-9.]*" | cut -d= -f2 | median; }
echo
echo "######## medians of $rounds (msgs/s unless noted)"
echo "loopback TCP limit:          $(field loopback msgs_per_sec) msgs/s ($(field loopback mb_per_sec) MB/s)"
echo "writer only (memory queue):  $(field writer msgs_per_sec)"
echo "reader only:                 $(field reader msgs_per_sec)"
echo "writer + reader:             $(field both msgs_per_sec) in / $(field both read_msgs_per_sec) out"
echo "writer, mem-queue-size=0:    $(field writer0 msgs_per_sec)"
echo "writer + reader, mq=0:       $(field both0 msgs_per_sec) in / $(field both0 read_msgs_per_sec) out"
echo "single PUB:                  $(field publat msgs_per_sec); p50 $(field publat p50_us) us," \
  "p99 $(field publat p99_us) us, p99.9 $(field publat p999_us) us"
msgs=$(field mem msgs)
rss=$(grep '^mem_rss ' "$results" | cut -d' ' -f2 | median)
echo "queued messages, peak RSS:   $msgs msgs, $((rss / 1024)) MiB," \
  "$((rss * 1024 / (msgs + 1))) B/message"
echo "sync-publish, 16 writers:    $(field sync msgs_per_sec) acknowledged;" \
  "machine $(field fsync msgs_per_sec) fsyncs/s appending, $(field fsync_over msgs_per_sec) over written blocks"
echo "group-commit limit:          $(field sync_limit msgs_per_sec) acknowledged" \
  "($(field sync_limit msgs_per_fsync) per fsync, $(field sync_limit fsyncs_per_sec) fsyncs/s)"
