#!/usr/bin/env bash
# Runs <program> [args...] 127.0.0.1:<port> against a live nsqd: starts
# <nsqd> on 127.0.0.1 ephemeral ports with <data-dir> as its data path, passes
# its TCP address last, then stops it with SIGTERM. Fails if the program
# fails or nsqd does not exit cleanly.
#
# Usage: with_nsqd.sh <nsqd> <data-dir> <program> [args...]
set -euo pipefail
nsqd=$1 data=$2
shift 2
mkdir -p "$data"
log="$data/nsqd.log"
"$nsqd" --tcp-address=127.0.0.1:0 --http-address=127.0.0.1:0 --data-path="$data" >"$log" 2>&1 &
pid=$!
# Whatever happens below, no nsqd outlives the test.
trap 'kill -KILL "$pid" 2>/dev/null || true' EXIT

fail() {
  echo "with_nsqd: $*; nsqd's log:" >&2
  cat "$log" >&2
  exit 1
}

# Port 0: the kernel picks free ports and nsqd logs them ("TCP: listening on
# 127.0.0.1:<port>", then the HTTP line); both lines mean it is fully started.
port=
for _ in $(seq 100); do
  if grep -q "HTTP: listening on" "$log"; then
    port=$(sed -n 's/.*TCP: listening on 127\.0\.0\.1:\([0-9][0-9]*\).*/\1/p' "$log" | head -n 1)
    break
  fi
  kill -0 "$pid" 2>/dev/null || fail "nsqd exited before listening"
  sleep 0.1
done
[ -n "$port" ] || fail "nsqd did not announce its TCP and HTTP ports within 10 s"

rc=0
"$@" "127.0.0.1:$port" || rc=$?

kill -TERM "$pid" 2>/dev/null || fail "nsqd died while $1 ran (which exited with status $rc)"
for _ in $(seq 200); do
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
kill -0 "$pid" 2>/dev/null && fail "nsqd still running 20 s after SIGTERM"
status=0
wait "$pid" || status=$?
[ "$status" -eq 0 ] || fail "nsqd exited with status $status after SIGTERM"
[ "$rc" -eq 0 ] || fail "$1 failed with status $rc"
exit 0
