#!/usr/bin/env bash
# Runs ctest in a sanitizer build (NSQ_SANITIZE=address or thread) so that any
# report fails the run, wherever it happens: in a test binary, or in an nsqd,
# nsqlookupd or tool the test spawned (those are sanitized builds too, and a
# child killed by a report, or reporting at exit, may not fail its test).
# Every process writes its reports to files under <build>/sanitizer-reports/
# (log_path), and after ctest a non-empty folder fails this script.
#
# Usage: scripts/sanitizers/ctest.sh <build-dir> address|thread [ctest args...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kind=$2
# Absolute: tests run in their own folders, and log_path is taken as given.
build=$(cd "$1" && pwd)
shift 2
reports="$build/sanitizer-reports"
rm -rf "$reports"
mkdir -p "$reports"
# log_exe_name names each file <exe>.<pid>, so a report says which process.
log="log_path=$reports/report:log_exe_name=1"

case "$kind" in
  address)
    # halt_on_error: the first error ends the process (ASan's default, and
    # UBSan's too once -fno-sanitize-recover=undefined compiled it so).
    # detect_leaks: LSan at exit; a server stopped by SIGTERM exits through it.
    export ASAN_OPTIONS="$log:halt_on_error=1:detect_leaks=1:check_initialization_order=1:detect_stack_use_after_return=0"
    export UBSAN_OPTIONS="$log:halt_on_error=1:print_stacktrace=1"
    export LSAN_OPTIONS="$log:suppressions=$here/lsan.supp"
    ;;
  thread)
    # Not halting on the first race lets one run show them all; the process
    # still exits 66 and the report files fail the run.
    export TSAN_OPTIONS="$log:halt_on_error=0:second_deadlock_stack=1:suppressions=$here/tsan.supp"
    ;;
  *)
    echo "usage: $0 <build-dir> address|thread [ctest args...]" >&2
    exit 2
    ;;
esac

rc=0
# --no-tests=error: a filter or a build that leaves no test must not pass.
(cd "$build" && ctest --output-on-failure --no-tests=error "$@") || rc=$?

if [ -n "$(ls -A "$reports")" ]; then
  echo "== sanitizer reports ($kind) in $reports:" >&2
  for f in "$reports"/*; do
    echo "--- $f" >&2
    cat "$f" >&2
  done
  rc=1
fi
exit $rc
