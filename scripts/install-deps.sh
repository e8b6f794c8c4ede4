#!/usr/bin/env bash
# Installs what nsq-cpp needs to build, test and run, from Debian 12 packages
# (and npm for the conformance tests). Idempotent: packages already present are
# skipped, so a second run costs only the dpkg queries.
set -euo pipefail

packages=(
  build-essential g++ clang libclang-rt-14-dev cmake ninja-build ccache pkg-config git
  libboost-dev libboost-program-options-dev
  rapidjson-dev libspdlog-dev libfmt-dev libtomlplusplus-dev libexpected-dev
  libsnappy-dev zlib1g-dev libssl-dev
  libgtest-dev libgmock-dev libbenchmark-dev
)
# Node.js may come from another source than Debian (its npm then conflicts with
# Debian's npm package): only ask apt for it when the commands are missing.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
  echo "install-deps: installing ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all Debian packages present"
fi

# npm packages for the conformance tests (nsqjs), pinned by tests/conformance/package-lock.json.
root=$(cd "$(dirname "$0")/.." && pwd)
conf="$root/tests/conformance"
if [ -f "$conf/package-lock.json" ]; then
  # npm keeps a copy of the lockfile it installed from: reinstall when ours is newer.
  if [ ! -f "$conf/node_modules/.package-lock.json" ] ||
     [ "$conf/package-lock.json" -nt "$conf/node_modules/.package-lock.json" ]; then
    echo "install-deps: npm ci in tests/conformance"
    (cd "$conf" && npm ci --no-audit --no-fund)
  fi
fi
