#!/usr/bin/env bash
# The unpacked package runs: nsqlookupd, nsqd and nsqadmin start from the
# installed binaries with the installed /etc/nsq/*.conf (ports and nsqd's
# data path overridden on the command line, which wins over the file: the
# ports may be taken, /var/lib/nsq is not ours), each answers /ping, and nsqd
# keeps its data where told and stops cleanly on SIGTERM. --version shows the
# version and the commit.
#
# Usage: check_run.sh <unpacked-root> <work-dir>
set -euo pipefail
root=$1 work=$2
bin=$root/usr/bin etc=$root/etc/nsq
rm -rf "$work"
mkdir -p "$work/data"
pids=()
trap 'for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done' EXIT

fail() {
  echo "check_run: $*" >&2
  for log in "$work"/*.log; do
    [ -f "$log" ] && { echo "--- $log" >&2; cat "$log" >&2; }
  done
  exit 1
}

# Starts <name> <args...> logging to <name>.log; sets `http` to the HTTP
# address it announces ("HTTP: listening on 127.0.0.1:<port>").
start() {
  local name=$1
  shift
  "$@" >"$work/$name.log" 2>&1 &
  pids+=($!)
  http=
  for _ in $(seq 100); do
    http=$(sed -n 's/.*HTTP: listening on \(127\.0\.0\.1:[0-9][0-9]*\).*/\1/p' "$work/$name.log" |
      head -n 1)
    [ -n "$http" ] && break
    kill -0 "${pids[-1]}" 2>/dev/null || fail "$name exited at start"
    sleep 0.1
  done
  [ -n "$http" ] || fail "$name did not listen within 10 s"
  [ "$(curl -sf "http://$http/ping")" = OK ] || fail "$name's /ping did not answer OK"
}

for p in nsqd nsqlookupd; do
  "$bin/$p" --version | grep -Eq "^$p v1\.3\.0 \(built w/.*, commit [0-9a-z]+\)$" ||
    fail "$p --version: $("$bin/$p" --version)"
done
for p in nsqadmin nsq_tail nsq_to_file nsq_to_http nsq_to_nsq nsq_stat; do
  "$bin/$p" --version | grep -Eq "^$p v1\.3\.0 \(commit [0-9a-z]+\)$" ||
    fail "$p --version: $("$bin/$p" --version)"
done

start nsqlookupd "$bin/nsqlookupd" --config="$etc/nsqlookupd.conf" \
  --tcp-address=127.0.0.1:0 --http-address=127.0.0.1:0
lookupd_http=$http
start nsqd "$bin/nsqd" --config="$etc/nsqd.conf" --data-path="$work/data" \
  --tcp-address=127.0.0.1:0 --http-address=127.0.0.1:0 --https-address=
nsqd_http=$http nsqd_pid=${pids[-1]}
start nsqadmin "$bin/nsqadmin" --config="$etc/nsqadmin.conf" --http-address=127.0.0.1:0 \
  --lookupd-http-address="$lookupd_http"

# A message goes in, and nsqd writes its metadata into the data path given.
curl -sf -d hello "http://$nsqd_http/pub?topic=package_check" | grep -qx OK ||
  fail "nsqd refused a publish"
kill -TERM "$nsqd_pid"
status=0
wait "$nsqd_pid" || status=$?
[ "$status" -eq 0 ] || fail "nsqd exited with status $status on SIGTERM"
[ -f "$work/data/nsqd.dat" ] || fail "nsqd left no nsqd.dat in its --data-path"
echo "check_run: nsqlookupd, nsqd and nsqadmin ran from the package's files and configs"
