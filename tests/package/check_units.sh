#!/usr/bin/env bash
# systemd accepts the installed units: `systemd-analyze verify` (which works
# without a running systemd) on nsqd, nsqlookupd and nsqadmin.service as the
# package installs them. Their ExecStart= names /usr/bin/<daemon>, which
# verify requires to exist: the copies checked here point it at the unpacked
# package instead. Documentation=man:... is checked against the package's
# own man pages (MANPATH).
#
# Usage: check_units.sh <unpacked-root> <work-dir>
set -euo pipefail
root=$1 work=$2
rm -rf "$work"
mkdir -p "$work"
for d in nsqd nsqlookupd nsqadmin; do
  sed "s|^ExecStart=/usr/bin/|ExecStart=$root/usr/bin/|" "$root/lib/systemd/system/$d.service" \
    >"$work/$d.service"
  grep -q "^ExecStart=$root/usr/bin/$d " "$work/$d.service"
done
# Any output is a complaint (verify prints nothing for a good unit).
out=$(cd "$work" && MANPATH="$root/usr/share/man" systemd-analyze verify --man=yes \
  ./nsqd.service ./nsqlookupd.service ./nsqadmin.service 2>&1) || {
  echo "$out" >&2
  echo "check_units: systemd-analyze verify failed" >&2
  exit 1
}
if [ -n "$out" ]; then
  echo "$out" >&2
  echo "check_units: systemd-analyze verify complained" >&2
  exit 1
fi

# The settings docs/packaging.md relies on.
for d in nsqd nsqlookupd nsqadmin; do
  unit="$root/lib/systemd/system/$d.service"
  for setting in "User=nsq" "Restart=on-failure" "NoNewPrivileges=yes" "ProtectSystem=strict" \
    "ProtectHome=yes" "PrivateTmp=yes" "LimitNOFILE=65536" "WantedBy=multi-user.target" \
    "ExecStart=/usr/bin/$d --config=/etc/nsq/$d.conf"; do
    grep -qxF "$setting" "$unit" || { echo "check_units: $d.service lacks $setting" >&2; exit 1; }
  done
done
for setting in "StateDirectory=nsq" "ReadWritePaths=/var/lib/nsq"; do
  grep -qxF "$setting" "$root/lib/systemd/system/nsqd.service" ||
    { echo "check_units: nsqd.service lacks $setting" >&2; exit 1; }
done
grep -qxF 'data_path = "/var/lib/nsq"' "$root/etc/nsq/nsqd.conf" ||
  { echo "check_units: nsqd.conf does not put the data in /var/lib/nsq" >&2; exit 1; }
echo "check_units: systemd-analyze verify accepts the three units"
