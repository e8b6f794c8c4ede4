#!/usr/bin/env bash
# Go nsqd v1.3.0 and ours side by side in one run (issue 20), under NSQ's own
# load generators from ../shared/reference (bench_writer, bench_reader): the
# two brokers alternate (Go first in odd pairs, ours first in even ones), each
# pair on fresh data directories with --mem-queue-size=1000000 (or the flags given), and each
# broker goes through three scenarios, 100 B messages:
#   writer  bench_writer, MPUB batches of 200, into a topic with one channel;
#   reader  bench_reader (deliver + FIN) draining what the writer left;
#   both    bench_writer and bench_reader at once on a second topic;
#   publat  single-message PUB round trips on one connection (nsq_bench
#           --mode=pub-latency, on a fresh broker): p50 and p99. Once per
#           pair the same client meets nsq_bench's zero-work responder
#           (--mode=pub-latency-limit): the floor no broker can go under here.
# For each: messages per second (from the generators' own "ops/s"), the
# broker's CPU time (utime+stime from /proc/PID/stat) per message moved, and
# at the end its peak RSS. On a 2-core machine the generators take a large
# share of the CPU, so the CPU per message is the fairer figure. Medians
# over the pairs and the ratios are printed at the end.
# Usage: benchmarks/run_side_by_side.sh [runfor, default 5s] [pairs, default 3]
#        [flags for both brokers, default --mem-queue-size=1000000; e.g.
#        --mem-queue-size=0 for the all-disk paths]
# Takes ~6 minutes with the defaults.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${NSQ_BUILD_DIR:-$root/build}
ours=$build/tools/nsqd/nsqd
bench=$build/tools/nsq_bench/nsq_bench
tarball=${NSQ_REFERENCE_TARBALL:-$root/../shared/reference/go-nsq-v1.3.0-linux-amd64.tar.xz}
runfor=${1:-5s}
pairs=${2:-3}
read -r -a broker_flags <<<"${3:---mem-queue-size=1000000}"
for b in "$ours" "$bench"; do
  [ -x "$b" ] || { echo "no $b: build first (scripts/build.sh)" >&2; exit 1; }
done
[ -f "$tarball" ] || { echo "no Go reference binaries at $tarball: skipped" >&2; exit 0; }
work=$(mktemp -d)
pid=
cleanup() {
  [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
tar xJf "$tarball" -C "$work"
ref=$(dirname "$(find "$work" -name bench_writer -type f | head -1)")
go=$ref/nsqd
results=$work/results

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
tcp= http= data=
start_broker() {  # start_broker BINARY
  tcp=$(free_port)
  http=$(free_port)
  data=$(mktemp -d -p "$work")
  "$1" --tcp-address=127.0.0.1:"$tcp" --http-address=127.0.0.1:"$http" --data-path="$data" \
    "${broker_flags[@]}" >"$data.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 200); do
    curl -sf "http://127.0.0.1:$http/ping" >/dev/null 2>&1 && return 0
    sleep 0.05
  done
  echo "$1 did not start: $(cat "$data.log")" >&2
  exit 1
}
stop_broker() {
  kill -TERM "$pid"
  wait "$pid" || true
  pid=
  rm -rf "$data" "$data.log"
}
channel() {  # channel TOPIC: the topic with channel "ch", so nothing waits in the topic
  curl -sf -X POST "http://127.0.0.1:$http/topic/create?topic=$1" >/dev/null
  curl -sf -X POST "http://127.0.0.1:$http/channel/create?topic=$1&channel=ch" >/dev/null
}
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
# ops LOG: messages per second a generator reported ("... - 123.456ops/s - ...").
ops() { grep -o '[0-9.]*ops/s' "$1" | tail -1 | sed 's#ops/s##'; }
secs() { echo "$runfor" | sed 's/s$//'; }
# record BROKER SCENARIO RATE TICKS MSGS
record() {
  local us
  us=$(awk -v t="$4" -v m="$5" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.3f", t / hz / m * 1e6}')
  printf '    %-5s %-7s %12.0f msgs/s  %7s us CPU per message\n' "$1" "$2" "$3" "$us"
  echo "$1 $2 $3 $us" >>"$results"
}

one() {  # one go|ours
  local name=$1 bin before after w r
  bin=$([ "$name" = go ] && echo "$go" || echo "$ours")
  start_broker "$bin"
  channel sbs
  before=$(ticks)
  "$ref/bench_writer" --nsqd-tcp-address=127.0.0.1:"$tcp" --topic=sbs --size=100 --batch-size=200 \
    --runfor="$runfor" >"$work/w.log" 2>&1
  after=$(ticks)
  w=$(ops "$work/w.log")
  record "$name" writer "$w" $((after - before)) "$(awk -v r="$w" -v s="$(secs)" 'BEGIN {print r * s}')"

  before=$(ticks)
  "$ref/bench_reader" --nsqd-tcp-address=127.0.0.1:"$tcp" --topic=sbs --channel=ch --size=100 \
    --runfor="$runfor" >"$work/r.log" 2>&1
  after=$(ticks)
  r=$(ops "$work/r.log")
  record "$name" reader "$r" $((after - before)) "$(awk -v r="$r" -v s="$(secs)" 'BEGIN {print r * s}')"

  channel sbs2
  before=$(ticks)
  "$ref/bench_reader" --nsqd-tcp-address=127.0.0.1:"$tcp" --topic=sbs2 --channel=ch --size=100 \
    --runfor="$runfor" >"$work/r.log" 2>&1 &
  local reader=$!
  "$ref/bench_writer" --nsqd-tcp-address=127.0.0.1:"$tcp" --topic=sbs2 --size=100 \
    --batch-size=200 --runfor="$runfor" >"$work/w.log" 2>&1
  wait "$reader"
  after=$(ticks)
  w=$(ops "$work/w.log")
  r=$(ops "$work/r.log")
  # Per message in or out: the CPU of the run over both counts.
  record "$name" both "$r" $((after - before)) \
    "$(awk -v w="$w" -v r="$r" -v s="$(secs)" 'BEGIN {print (w + r) * s}')"
  echo "$name rss $(awk '/VmHWM/ {print $2}' "/proc/$pid/status") 0" >>"$results"
  echo "    $name peak RSS: $(($(awk '/VmHWM/ {print $2}' "/proc/$pid/status") / 1024)) MiB"
  stop_broker

  start_broker "$bin"
  publat "$name" --mode=pub-latency --nsqd-tcp-address=127.0.0.1:"$tcp"
  stop_broker
}
# publat NAME NSQ_BENCH_FLAGS...: records p50 and p99 of the PUB->OK round trip.
publat() {
  local name=$1 line p50 p99
  shift
  line=$("$bench" "$@" --runfor="$runfor" | grep '^RESULT')
  p50=$(echo "$line" | grep -o 'p50_us=[0-9.]*' | cut -d= -f2)
  p99=$(echo "$line" | grep -o 'p99_us=[0-9.]*' | cut -d= -f2)
  printf '    %-5s %-7s p50 %6s us  p99 %6s us\n' "$name" publat "$p50" "$p99"
  echo "$name publat $p50 $p99" >>"$results"
}

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {print int($2/1024)}' /proc/meminfo) MiB," \
  "load average $(cut -d' ' -f1-3 /proc/loadavg); runfor $runfor, $pairs pairs;" \
  "broker flags: ${broker_flags[*]}"
for k in $(seq 1 "$pairs"); do
  echo "######## pair $k/$pairs"
  if [ $((k % 2)) = 1 ]; then one go; one ours; else one ours; one go; fi
  publat limit --mode=pub-latency-limit
done

median() { sort -n | awk '{v[NR]=$1} END {if (NR) print v[int((NR+1)/2)]}'; }
col() { grep "^$1 $2 " "$results" | awk -v c="$3" '{print $c}' | median; }
echo "######## medians over $pairs pairs"
printf '%-8s %14s %14s %8s %12s %12s %8s\n' scenario "ours msgs/s" "Go msgs/s" ours/Go \
  "ours us/msg" "Go us/msg" Go/ours
for s in writer reader both; do
  o=$(col ours "$s" 3) g=$(col go "$s" 3) oc=$(col ours "$s" 4) gc=$(col go "$s" 4)
  awk -v s="$s" -v o="$o" -v g="$g" -v oc="$oc" -v gc="$gc" 'BEGIN {
    printf "%-8s %14.0f %14.0f %8.2f %12.3f %12.3f %8.2f\n", s, o, g, o / g, oc, gc, gc / oc }'
done
o=$(col ours rss 3) g=$(col go rss 3)
echo "peak RSS: ours $((o / 1024)) MiB, Go $((g / 1024)) MiB (ours/Go $(awk -v o="$o" -v g="$g" 'BEGIN {printf "%.2f", o / g}'))"
o=$(col ours publat 4) g=$(col go publat 4) f=$(col limit publat 4)
awk -v o="$o" -v g="$g" -v f="$f" -v o50="$(col ours publat 3)" -v g50="$(col go publat 3)" \
  -v f50="$(col limit publat 3)" 'BEGIN {
  printf "single PUB round trip: p50 ours %s us, Go %s us, floor %s us; p99 ours %s us, Go %s us (ours/Go %.2f), floor %s us (floor/Go %.2f); p99 above the floor ours %.1f us, Go %.1f us (ours/Go %.2f)\n",
    o50, g50, f50, o, g, o / g, f, f / g, o - f, g - f, (o - f) / (g - f) }'
