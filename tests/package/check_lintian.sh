#!/usr/bin/env bash
# lintian, Debian's package checker, finds no error nor warning in the
# package (its notes, such as the hardening one docs/packaging.md explains,
# are printed for the record and do not fail).
#
# Usage: check_lintian.sh <package.deb>
set -euo pipefail
deb=$1
if ! command -v lintian >/dev/null; then
  echo "check_lintian: lintian is not installed (scripts/install-deps.sh installs it)" >&2
  exit 1
fi
lintian --fail-on error,warning --tag-display-limit 0 --display-info "$deb"
echo "check_lintian: no errors, no warnings"
