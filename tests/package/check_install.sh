#!/usr/bin/env bash
# dpkg -i for real, maintainer scripts included, into a copy-on-write view of
# this machine: an overlay over / (which has every dependency) in private
# mount, PID and network namespaces, so nothing reaches the host and the
# default ports are free. Then each daemon starts as systemd would start its
# unit (ExecStart as User, from WorkingDirectory, in the StateDirectory made
# for that user) with the installed /etc/nsq configs unchanged, answers /ping,
# and nsqd keeps its data in /var/lib/nsq. Then `dpkg -r` keeps the configs
# (conffiles) and `dpkg -P` removes them, leaving the data.
#
# Usage: check_install.sh <deb> <work-dir>     (root: namespaces and mounts)
set -euo pipefail

if [ "${1:-}" != --inside ]; then
  deb=$(realpath "$1")
  work=$2
  if [ "$(id -u)" != 0 ]; then
    echo "check_install: needs root (mount and network namespaces, an overlay, dpkg -i)" >&2
    exit 1
  fi
  mkdir -p "$work"
  # --kill-child: a ctest timeout that kills unshare takes the daemons too.
  exec unshare --mount --pid --net --fork --kill-child bash "$0" --inside "$deb" "$(realpath "$work")"
fi
deb=$2 work=$3

fail() {
  echo "check_install: $*" >&2
  for log in "$root"/tmp/*.log; do
    [ -f "$log" ] && { echo "--- ${log#"$root"}" >&2; cat "$log" >&2; }
  done
  exit 1
}

# Nothing mounted here propagates to the host; all of it goes with the namespace.
mount --make-rprivate /
ip link set lo up
mount -t tmpfs tmpfs "$work"
mkdir -p "$work/upper" "$work/scratch" "$work/root"
root=$work/root
mount -t overlay overlay -o "lowerdir=/,upperdir=$work/upper,workdir=$work/scratch" "$root"
mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev"
mount -t tmpfs tmpfs "$root/tmp"
mount -t tmpfs tmpfs "$root/run"
cp "$deb" "$root/tmp/nsq-cpp.deb"
in_root() { chroot "$root" "$@"; }

in_root dpkg -i /tmp/nsq-cpp.deb >"$root/tmp/dpkg-i.log" 2>&1 || fail "dpkg -i failed"
in_root dpkg-query -W -f='${Status}' nsq-cpp | grep -qx 'install ok installed' ||
  fail "dpkg does not list nsq-cpp as installed"
in_root getent passwd nsq >/dev/null || fail "postinst created no nsq user"
[ "$(in_root dpkg-query -W -f='${Conffiles}\n' nsq-cpp | grep -c '^ /etc/nsq/')" = 3 ] ||
  fail "the three /etc/nsq configs are not conffiles"

uid=$(in_root id -u nsq)
gid=$(in_root id -g nsq)
pids=()

# unit_value <unit> <key>: the value of Key= in the installed unit file.
unit_value() { sed -n "s/^$2=//p" "$root/lib/systemd/system/$1.service" | head -n 1; }

# Starts <unit> as systemd would (the parts a chroot can do: its user, its
# state directory, its working directory, its command line as written), then
# waits for /ping on <port>, the default its config leaves in place.
start_unit() {
  local unit=$1 port=$2 state dir cmd
  [ "$(unit_value "$unit" User)" = nsq ] || fail "$unit.service does not run as nsq"
  state=$(unit_value "$unit" StateDirectory)
  if [ -n "$state" ]; then
    mkdir -p "$root/var/lib/$state"
    chown "$uid:$gid" "$root/var/lib/$state"
    chmod "$(unit_value "$unit" StateDirectoryMode)" "$root/var/lib/$state"
  fi
  dir=$(unit_value "$unit" WorkingDirectory)
  cmd=$(unit_value "$unit" ExecStart)
  chroot --userspec="$uid:$gid" "$root" sh -c "cd '${dir:-/}' && exec $cmd" \
    >"$root/tmp/$unit.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do
    [ "$(curl -sf "http://127.0.0.1:$port/ping" 2>/dev/null)" = OK ] && return 0
    kill -0 "${pids[-1]}" 2>/dev/null || fail "$unit exited at start"
    sleep 0.1
  done
  fail "$unit did not answer /ping on port $port within 10 s"
}

start_unit nsqlookupd 4161
start_unit nsqd 4151
start_unit nsqadmin 4171

[ "$(curl -sf -d hello 'http://127.0.0.1:4151/pub?topic=installed')" = OK ] ||
  fail "nsqd refused a publish"
curl -sf 'http://127.0.0.1:4171/api/nodes' >/dev/null || fail "nsqadmin's API did not answer"
kill -TERM "${pids[1]}"
wait "${pids[1]}" || fail "nsqd did not stop cleanly on SIGTERM"
[ "$(stat -c %u "$root/var/lib/nsq/nsqd.dat" 2>/dev/null)" = "$uid" ] ||
  fail "nsqd wrote no nsqd.dat owned by nsq in /var/lib/nsq"
grep -q '"installed"' "$root/var/lib/nsq/nsqd.dat" || fail "nsqd.dat does not list the topic"
kill -TERM "${pids[0]}" "${pids[2]}"
wait "${pids[0]}" "${pids[2]}" || true

in_root dpkg -r nsq-cpp >"$root/tmp/dpkg-r.log" 2>&1 || fail "dpkg -r failed"
[ ! -e "$root/usr/bin/nsqd" ] || fail "dpkg -r left /usr/bin/nsqd"
[ -f "$root/etc/nsq/nsqd.conf" ] || fail "dpkg -r removed a conffile"
in_root dpkg -P nsq-cpp >"$root/tmp/dpkg-p.log" 2>&1 || fail "dpkg -P failed"
[ ! -e "$root/etc/nsq/nsqd.conf" ] || fail "dpkg -P left /etc/nsq/nsqd.conf"
[ -f "$root/var/lib/nsq/nsqd.dat" ] || fail "dpkg -P removed the queued messages"
echo "check_install: dpkg -i, the three units' daemons as nsq, dpkg -r and -P: as expected"
