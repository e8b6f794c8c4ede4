#!/usr/bin/env bash
# Installs what nsq-cpp needs to build, test and run, from Debian 12 packages
# (and npm for the conformance tests and nsqadmin's web UI). Idempotent: packages already present are
# skipped, so a second run costs only the dpkg queries.
set -euo pipefail

packages=(
  build-essential g++ clang libclang-rt-14-dev clang-format cmake ninja-build ccache pkg-config git
  libboost-dev libboost-program-options-dev
  rapidjson-dev libspdlog-dev libfmt-dev libtomlplusplus-dev libexpected-dev
  libsnappy-dev zlib1g-dev libssl-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  chromium chromium-driver
  etcd-server curl
  # the Debian package (scripts/package.sh) and its checks (tests/package)
  dpkg-dev lintian systemd man-db groff-base
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
  # Another apt/dpkg process (unattended-upgrades, a second install) may hold
  # the locks: wait up to 5 minutes instead of failing at once.
  apt_get=("${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300)
  echo "install-deps: installing ${missing[*]}"
  # apt-get update's lock on /var/lib/apt/lists is not covered by
  # DPkg::Lock::Timeout (apt 2.6 fails at once): retry while it is held.
  deadline=$((SECONDS + 300))
  until out=$("${apt_get[@]}" update -qq 2>&1); do
    if ! grep -q "Could not get lock" <<<"$out" || ((SECONDS >= deadline)); then
      echo "$out" >&2
      exit 1
    fi
    echo "install-deps: another process holds the apt lists lock, waiting"
    sleep 5
  done
  [ -z "$out" ] || echo "$out"
  "${apt_get[@]}" install -y -qq --no-install-recommends "${missing[@]}"
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

# nsqadmin's web UI (esbuild, pinned by tools/nsqadmin/web/package-lock.json):
# install, then bundle into tools/nsqadmin/web/dist, which the build embeds
# into the nsqadmin binary. Rebuilt when a source or the lockfile is newer.
web="$root/tools/nsqadmin/web"
if [ -f "$web/package-lock.json" ]; then
  if [ ! -f "$web/node_modules/.package-lock.json" ] ||
     [ "$web/package-lock.json" -nt "$web/node_modules/.package-lock.json" ]; then
    echo "install-deps: npm ci in tools/nsqadmin/web"
    (cd "$web" && npm ci --no-audit --no-fund)
  fi
  if [ ! -f "$web/dist/index.html" ] ||
     [ -n "$(find "$web/src" "$web/index.html" "$web/build.mjs" "$web/package-lock.json" -newer "$web/dist/index.html" 2>/dev/null)" ]; then
    echo "install-deps: building the nsqadmin web UI"
    (cd "$web" && npm run build --silent)
  fi
fi

# playwright-core for nsqadmin's browser test (it drives the Debian chromium
# above; no browser download), pinned by tests/nsqadmin/package-lock.json.
admin_e2e="$root/tests/nsqadmin"
if [ -f "$admin_e2e/package-lock.json" ]; then
  if [ ! -f "$admin_e2e/node_modules/.package-lock.json" ] ||
     [ "$admin_e2e/package-lock.json" -nt "$admin_e2e/node_modules/.package-lock.json" ]; then
    echo "install-deps: npm ci in tests/nsqadmin"
    (cd "$admin_e2e" && npm ci --no-audit --no-fund)
  fi
fi
