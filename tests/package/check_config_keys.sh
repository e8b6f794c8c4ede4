#!/usr/bin/env bash
# The installed /etc/nsq/*.conf name real options with valid defaults:
#  - with every commented-out option uncommented (their defaults), each
#    daemon still starts: each default is written as the daemon reads it;
#  - each key, set alone to a value of no option's type, makes the daemon
#    refuse to start naming that key: a misspelt key would be ignored
#    (go-options ignores unknown keys) and start it instead.
#
# Usage: check_config_keys.sh <unpacked-root> <work-dir>
set -euo pipefail
root=$1 work=$2
bin=$root/usr/bin
rm -rf "$work"
mkdir -p "$work"

# The ports and paths the daemons need to start here, whatever the file says.
args_of() {
  case $1 in
    nsqd) echo "--tcp-address=127.0.0.1:0 --http-address=127.0.0.1:0 --https-address=" \
      "--data-path=$work/data" ;;
    nsqlookupd) echo "--tcp-address=127.0.0.1:0 --http-address=127.0.0.1:0" ;;
    nsqadmin) echo "--http-address=127.0.0.1:0" ;;
  esac
}

# Runs <daemon> with <config> until it listens (0) or exits (its status);
# its output goes to <config>.log. [key]: leave out the flag that sets it,
# which would win over the file.
run_until_listening() {
  local d=$1 conf=$2 key=${3:-} args=()
  for a in $(args_of "$d"); do
    [ -n "$key" ] && [[ $a == "--${key//_/-}="* ]] && continue
    args+=("$a")
  done
  mkdir -p "$work/data"
  "$bin/$d" --config="$conf" "${args[@]}" >"$conf.log" 2>&1 &
  local pid=$!
  for _ in $(seq 100); do
    if grep -qs "HTTP: listening on" "$conf.log"; then
      kill -TERM "$pid"
      wait "$pid" || true
      return 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
      local status=0
      wait "$pid" || status=$?
      return $((status == 0 ? 99 : status))
    fi
    sleep 0.1
  done
  kill -KILL "$pid"
  wait "$pid" || true
  return 98
}

total=0
for d in nsqd nsqlookupd nsqadmin; do
  conf=$root/etc/nsq/$d.conf
  # "# key = value" lines, but for the machine-dependent defaults.
  sed -E 's/^# ([a-z0-9_]+ = )/\1/; /<computed on each machine>/d' "$conf" >"$work/$d.all.conf"
  status=0
  run_until_listening "$d" "$work/$d.all.conf" || status=$?
  if [ "$status" -ne 0 ]; then
    cat "$work/$d.all.conf.log" >&2
    echo "check_config_keys: $d does not start with every default uncommented ($status)" >&2
    exit 1
  fi
  keys=$(sed -nE 's/^#? ?([a-z0-9_]+) = .*/\1/p' "$conf")
  for key in $keys; do
    # A list holding a number and a table: no option takes that.
    printf '%s = [1, {}]\n' "$key" >"$work/$d.$key.conf"
    status=0
    run_until_listening "$d" "$work/$d.$key.conf" "$key" || status=$?
    if [ "$status" -eq 0 ] || ! grep -q "$key" "$work/$d.$key.conf.log"; then
      cat "$work/$d.$key.conf.log" >&2
      echo "check_config_keys: $d ignored key $key of $d.conf (no such option?)" >&2
      exit 1
    fi
    total=$((total + 1))
  done
done
echo "check_config_keys: $total keys, each an option the daemon reads; all defaults start them"
