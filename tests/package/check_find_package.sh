#!/usr/bin/env bash
# The libraries, headers and CMake files the package installs work: the
# install test's consumer project (tests/install/diskqueue) builds against the
# unpacked /usr through find_package(nsq) and runs.
#
# Usage: check_find_package.sh <unpacked-root> <consumer-source> <work-dir> <c++ compiler>
set -euo pipefail
root=$1 source=$2 work=$3 cxx=$4
rm -rf "$work"
cmake -S "$source" -B "$work/build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_PREFIX_PATH="$root/usr" >/dev/null
cmake --build "$work/build" >/dev/null
grep -q "$root/usr/lib/.*/cmake/nsq" "$work/build/CMakeCache.txt" ||
  { echo "check_find_package: nsq was not found in the package" >&2; exit 1; }
"$work/build/consumer" "$work"
echo "check_find_package: find_package(nsq) found the package's nsq::diskqueue"
