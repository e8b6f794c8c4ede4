#!/usr/bin/env bash
# Each installed man page renders: `man -l` formats it with groff's warnings
# on, and any warning fails. Each lists the options its program's --help
# shows (the same table made both).
#
# Usage: check_man.sh <unpacked-root>
set -euo pipefail
root=$1
for p in nsqd nsqlookupd nsqadmin nsq_tail nsq_to_file nsq_to_http nsq_to_nsq nsq_stat to_nsq \
  nsq_bench; do
  page="$root/usr/share/man/man1/$p.1.gz"
  err=$(mktemp)
  text=$(MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings=all -l "$page" 2>"$err")
  if [ -s "$err" ] || [ -z "$text" ]; then
    cat "$err" >&2
    echo "check_man: $p.1 does not render cleanly" >&2
    exit 1
  fi
  rm -f "$err"
  # Every flag of --help, in the rendered page (man shows --name as "--name").
  flags=$("$root/usr/bin/$p" --help 2>&1 | sed -n 's/^  -\([a-z0-9-]*\).*/\1/p')
  [ -n "$flags" ] || { echo "check_man: $p --help shows no flags" >&2; exit 1; }
  for f in $flags; do
    grep -q -- "--$f\b" <<<"$text" || { echo "check_man: $p.1 lacks --$f" >&2; exit 1; }
  done
  grep -q "^NAME" <<<"$text" && grep -q "^OPTIONS" <<<"$text" ||
    { echo "check_man: $p.1 lacks NAME or OPTIONS" >&2; exit 1; }
done
echo "check_man: the 10 man pages render and list their programs' flags"
