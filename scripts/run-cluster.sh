#!/usr/bin/env bash
# Installs what is missing, builds, and runs a replicated cluster on localhost
# (docs/replication.md): etcd (client 2389, data in ./data-cluster/etcd),
# nsqlookupd (4160/4161), three nsqd in cluster mode (TCP 4150/4250/4350, HTTP
# 4151/4251/4351, data in ./data-cluster/nsqd-N) and nsqadmin
# (http://127.0.0.1:4171). Topics get three replicas, a publish needs two in
# sync. Ctrl-C stops them all cleanly.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh"
# -DNSQ_WERROR=ON as scripts/test.sh builds: the same compiler flags, so the
# test command reuses these objects (ccache) instead of compiling them again.
NSQ_BUILD_DIR="$root/build" bash "$root/scripts/build.sh" -DNSQ_WERROR=ON -DNSQ_BUILD_TESTS=OFF \
  -DNSQ_BUILD_BENCHMARKS=OFF

bin="$root/build/tools"
data="$root/data-cluster"
mkdir -p "$data/etcd"
pids=()
trap 'kill -TERM "${pids[@]}" 2>/dev/null; wait' INT TERM
# A single-member etcd of its own (Debian's etcd-server package may also run
# one as a service on 2379: this one uses 2389/2390 to stay out of its way).
etcd --name nsq-local --data-dir "$data/etcd" \
  --listen-client-urls http://127.0.0.1:2389 --advertise-client-urls http://127.0.0.1:2389 \
  --listen-peer-urls http://127.0.0.1:2390 --initial-advertise-peer-urls http://127.0.0.1:2390 \
  --initial-cluster nsq-local=http://127.0.0.1:2390 --log-level warn &
pids+=($!)
until curl -sf -X POST http://127.0.0.1:2389/v3/kv/range -d '{"key":"AA=="}' >/dev/null; do
  sleep 0.2  # etcd prints no line to wait for; it answers once it serves
done
"$bin/nsqlookupd/nsqlookupd" --tcp-address=127.0.0.1:4160 --http-address=127.0.0.1:4161 \
  --broadcast-address=127.0.0.1 &
pids+=($!)
for n in 1 2 3; do
  mkdir -p "$data/nsqd-$n"
  "$bin/nsqd/nsqd" --tcp-address=127.0.0.1:4${n}50 --http-address=127.0.0.1:4${n}51 \
    --https-address= --broadcast-address=127.0.0.1 --data-path="$data/nsqd-$n" \
    --lookupd-tcp-address=127.0.0.1:4160 --etcd-endpoints=http://127.0.0.1:2389 \
    --default-replication-factor=3 --min-insync-replicas=2 &
  pids+=($!)
done
"$bin/nsqadmin/nsqadmin" --http-address=127.0.0.1:4171 --lookupd-http-address=127.0.0.1:4161 &
pids+=($!)
wait
