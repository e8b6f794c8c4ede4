#!/usr/bin/env bash
# The cluster-mode figures of benchmarks/RESULTS.md (docs/replication.md), in
# one run on this machine: a real etcd and three nsqd (replication factor 3,
# --min-insync-replicas 2, --cluster-lease-ttl 2s, data in temp dirs), driven
# by nsq_bench against the leader:
#   - acknowledged msgs/s for 4 publishers of MPUB 200 x 100 B and for 16
#     single-PUB publishers, with the three nsqd's CPU time per message, on a
#     topic with one channel;
#   - the same two loads and topic layout on a single nsqd with --sync-publish, and the
#     group-commit limit of the file system (nsq_bench --mode=group-commit-limit);
#   - failover: the leader SIGKILLed, time until an HTTP /pub on another node
#     answers 200 (a new leader took it), p50/p99 over `kills` kills, the
#     killed node restarted and back in sync before the next.
# Scenarios alternate over `rounds` rounds; medians are printed at the end.
# Usage: benchmarks/run_cluster_bench.sh [runfor, default 5s] [rounds, default 3] [kills, default 20]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${NSQ_BUILD_DIR:-$root/build}
nsqd=$build/tools/nsqd/nsqd
bench=$build/tools/nsq_bench/nsq_bench
runfor=${1:-5s}
rounds=${2:-3}
kills=${3:-20}
etcd_bin=$(command -v etcd || true)
[ -n "$etcd_bin" ] || { echo "no etcd: run scripts/install-deps.sh" >&2; exit 1; }
work=$(mktemp -d)
results=$work/results
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

etcd_port=$(free_port)
etcd_peer=$(free_port)
"$etcd_bin" --name=bench --data-dir="$work/etcd" --listen-client-urls="http://127.0.0.1:$etcd_port" \
  --advertise-client-urls="http://127.0.0.1:$etcd_port" --listen-peer-urls="http://127.0.0.1:$etcd_peer" \
  --initial-advertise-peer-urls="http://127.0.0.1:$etcd_peer" --initial-cluster="bench=http://127.0.0.1:$etcd_peer" \
  --log-level=warn >"$work/etcd.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 200); do
  curl -sf -X POST "http://127.0.0.1:$etcd_port/v3/kv/range" -d '{"key":"AA=="}' >/dev/null && break
  sleep 0.05
done

# Node i: TCP port tcp[i], HTTP port http[i], data in $work/node<i>, pid node_pid[i].
declare -a tcp http node_pid
for i in 0 1 2; do tcp[$i]=$(free_port); http[$i]=$(free_port); done
start_node() {  # start_node i
  local i=$1
  mkdir -p "$work/node$i"
  "$nsqd" --tcp-address=127.0.0.1:"${tcp[$i]}" --http-address=127.0.0.1:"${http[$i]}" \
    --data-path="$work/node$i" --broadcast-address=127.0.0.1 \
    --etcd-endpoints="http://127.0.0.1:$etcd_port" --cluster-lease-ttl=2s \
    >>"$work/node$i.log" 2>&1 &
  node_pid[$i]=$!
  pids+=($!)
  for _ in $(seq 1 200); do
    grep -q 'CLUSTER: joined' "$work/node$i.log" 2>/dev/null && return 0
    sleep 0.05
  done
  echo "node $i did not join" >&2
  exit 1
}
# replication <i> <topic>: the topic's replication object on node i.
replication() {
  curl -sf "http://127.0.0.1:${http[$1]}/stats?format=json&topic=$2" 2>/dev/null |
    python3 -c 'import json,sys
d=json.load(sys.stdin)
for t in d.get("topics",[]):
    r=t.get("replication")
    if r: print(r["leader"], len(r["isr"]), r["epoch"])' 2>/dev/null || true
}
# leader_index <topic>: which node leads, as the first node that answers says.
leader_index() {
  local i line leader
  for i in 0 1 2; do
    line=$(replication "$i" "$1")
    [ -n "$line" ] || continue
    leader=${line%% *}
    for j in 0 1 2; do [ "$leader" = "127.0.0.1:${tcp[$j]}" ] && { echo "$j"; return 0; }; done
  done
  echo -1
}
# in_sync <topic>: waits until the leader reports all three in sync.
in_sync() {
  local l line
  for _ in $(seq 1 600); do
    l=$(leader_index "$1")
    if [ "$l" -ge 0 ]; then
      line=$(replication "$l" "$1")
      [ "$(echo "$line" | cut -d' ' -f2)" = 3 ] && return 0
    fi
    sleep 0.05
  done
  echo "topic $1 not back in sync" >&2
  exit 1
}
cpu_ticks() {  # utime+stime of the three nsqd, in clock ticks
  local t=0 p
  for p in "${node_pid[@]}"; do
    t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat")))
  done
  echo "$t"
}
# run KEY LABEL PORT nsq_bench-args...: records the RESULT line under KEY.
run() {
  local key=$1 label=$2 port=$3 line before after msgs
  shift 3
  echo "== $label"
  sync  # what earlier scenarios wrote is on disk: its write-back does not slow this one
  before=$(cpu_ticks)
  line=$("$bench" --nsqd-tcp-address=127.0.0.1:"$port" "$@" | grep '^RESULT') || true
  after=$(cpu_ticks)
  msgs=$(echo "$line" | grep -o 'msgs=[0-9]*' | cut -d= -f2)
  echo "    $line"
  if [ -n "$msgs" ] && [ "$msgs" -gt 0 ]; then
    echo "    nsqd CPU (all three) per message: $(awk -v t=$((after - before)) -v m="$msgs" \
      -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.2f", t / hz / m * 1e6}') us"
  fi
  echo "$key $line" >>"$results"
}

for i in 0 1 2; do start_node "$i"; done
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {print int($2/1024)}' /proc/meminfo) MiB," \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)"

for round in $(seq 1 "$rounds"); do
  echo "######## round $round/$rounds"
  topic=bench_$round
  curl -sf -X POST "http://127.0.0.1:${http[0]}/topic/create?topic=$topic" >/dev/null
  curl -sf -X POST "http://127.0.0.1:${http[0]}/channel/create?topic=$topic&channel=ch" >/dev/null
  in_sync "$topic"
  l=$(leader_index "$topic")
  run mpub "replicated: 4 publishers, MPUB 200 x 100 B" "${tcp[$l]}" --mode=writer --topic="$topic" \
    --writers=4 --batch-size=200 --size=100 --runfor="$runfor"
  run pub "replicated: 16 publishers, single PUB" "${tcp[$l]}" --mode=writer --topic="$topic" \
    --writers=16 --batch-size=1 --size=100 --runfor="$runfor"
  # Each round starts from the same page cache: on this VM, writes into memory the guest has
  # not touched before cost several times more (kernel copy into fresh pages), and a round after
  # a few GB of kept files measured half of the one before it.
  curl -sf -X POST "http://127.0.0.1:${http[$l]}/topic/delete?topic=$topic" >/dev/null || true

  single=$work/single$round
  mkdir -p "$single"
  sport=$(free_port)
  shttp=$(free_port)
  "$nsqd" --tcp-address=127.0.0.1:"$sport" --http-address=127.0.0.1:"$shttp" --data-path="$single" \
    --sync-publish >"$single.log" 2>&1 &
  spid=$!
  for _ in $(seq 1 100); do grep -q 'HTTP: listening' "$single.log" && break; sleep 0.05; done
  # The same topic and channel as the replicated scenarios: both sides hand each message to one
  # channel (here fsynced in its disk queue, as --sync-publish does).
  curl -sf -X POST "http://127.0.0.1:$shttp/topic/create?topic=$topic" >/dev/null
  curl -sf -X POST "http://127.0.0.1:$shttp/channel/create?topic=$topic&channel=ch" >/dev/null
  echo "== single nsqd --sync-publish: 4 publishers, MPUB 200 x 100 B"
  sync
  line=$("$bench" --nsqd-tcp-address=127.0.0.1:"$sport" --mode=writer --topic="$topic" --writers=4 \
    --batch-size=200 --size=100 --runfor="$runfor" | grep '^RESULT') || true
  echo "    $line"; echo "sync_mpub $line" >>"$results"
  echo "== single nsqd --sync-publish: 16 publishers, single PUB"
  sync
  line=$("$bench" --nsqd-tcp-address=127.0.0.1:"$sport" --mode=writer --topic="$topic" --writers=16 \
    --batch-size=1 --size=100 --runfor="$runfor" | grep '^RESULT') || true
  echo "    $line"; echo "sync_pub $line" >>"$results"
  kill -TERM "$spid"; wait "$spid" || true
  rm -rf "$single"

  echo "== group-commit limit (16 clients, fdatasync before each reply, no broker)"
  sync
  line=$("$bench" --mode=group-commit-limit --writers=16 --size=100 --runfor="$runfor" \
    --data-path="$work" | grep '^RESULT') || true
  echo "    $line"; echo "limit $line" >>"$results"
done

echo "######## failover: $kills leader SIGKILLs"
topic=failover
curl -sf -X POST "http://127.0.0.1:${http[0]}/topic/create?topic=$topic" >/dev/null
in_sync "$topic"
times=$work/failover
for k in $(seq 1 "$kills"); do
  l=$(leader_index "$topic")
  other=$(((l + 1) % 3))
  start=$(date +%s%N)
  kill -9 "${node_pid[$l]}"
  wait "${node_pid[$l]}" 2>/dev/null || true
  until curl -sf -m 2 -X POST "http://127.0.0.1:${http[$other]}/pub?topic=$topic" -d x >/dev/null; do
    :
  done
  ms=$((($(date +%s%N) - start) / 1000000))
  echo "    kill $k: node $l, first OK after $ms ms"
  echo "$ms" >>"$times"
  start_node "$l"
  in_sync "$topic"
done

median() { sort -n | awk '{v[NR]=$1} END {if (NR) print v[int((NR+1)/2)]}'; }
rate() { grep "^$1 " "$results" | grep -o 'msgs_per_sec=[0-9.]*' | cut -d= -f2 | median; }
echo "######## medians over $rounds rounds (acknowledged msgs/s)"
echo "replicated MPUB 4x200:        $(rate mpub)"
echo "single --sync-publish MPUB:   $(rate sync_mpub)"
echo "replicated PUB x16:           $(rate pub)"
echo "single --sync-publish PUB x16: $(rate sync_pub)"
echo "group-commit limit x16:       $(rate limit)"
echo "failover (SIGKILL -> first OK on another node), ms: p50 $(sort -n "$times" |
  awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}') p99 $(sort -n "$times" |
  awk '{v[NR]=$1} END {i=int(NR*0.99+0.999); if (i<1) i=1; print v[i]}') max $(sort -n "$times" | tail -1)"
