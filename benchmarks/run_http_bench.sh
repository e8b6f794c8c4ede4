#!/usr/bin/env bash
# HTTP /pub and /mpub throughput of nsqd with wrk (Debian package, installed
# here if missing): a fresh nsqd, 2 wrk threads, 32 connections, keep-alive.
# Usage: benchmarks/run_http_bench.sh [seconds, default 10]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${NSQ_BUILD_DIR:-$root/build}
secs=${1:-10}
if ! command -v wrk >/dev/null 2>&1; then
  sudo_cmd=()
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get install -y -qq wrk >/dev/null
fi

dir=$(mktemp -d)
"$build/tools/nsqd/nsqd" --tcp-address=127.0.0.1:0 --http-address=127.0.0.1:0 \
  --data-path="$dir" 2>"$dir/nsqd.log" &
pid=$!
trap 'kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir" "$scripts"' EXIT
port=
for _ in $(seq 1 100); do
  port=$(grep -o 'HTTP: listening on 127.0.0.1:[0-9]*' "$dir/nsqd.log" | sed 's/.*://') || true
  [ -n "$port" ] && break
  sleep 0.05
done
curl -s -X POST "http://127.0.0.1:$port/channel/create?topic=bench&channel=ch" >/dev/null ||
  curl -s -X POST "http://127.0.0.1:$port/topic/create?topic=bench" >/dev/null

scripts=$(mktemp -d)
body=$(head -c 100 /dev/zero | tr '\0' 'x')
cat >"$scripts/pub.lua" <<LUA
wrk.method = "POST"
wrk.body = "$body"
LUA
# 200 lines of 100 bytes: one MPUB = 200 messages.
mbody=""
for _ in $(seq 1 200); do mbody+="$body\\n"; done
cat >"$scripts/mpub.lua" <<LUA
wrk.method = "POST"
wrk.body = "$mbody"
LUA

echo "machine: $(nproc) cores"
echo "== POST /pub (100-byte message per request)"
wrk -t2 -c32 -d"${secs}s" -s "$scripts/pub.lua" "http://127.0.0.1:$port/pub?topic=bench" | grep -E 'Requests/sec|Latency|Non-2xx'
echo "== POST /mpub (200 x 100-byte messages per request)"
wrk -t2 -c32 -d"${secs}s" -s "$scripts/mpub.lua" "http://127.0.0.1:$port/mpub?topic=bench" | grep -E 'Requests/sec|Latency|Non-2xx'
echo "nsqd peak RSS: $(($(awk '/VmHWM/ {print $2}' /proc/$pid/status) / 1024)) MiB"
