#!/usr/bin/env bash
# The package holds what docs/packaging.md promises: `dpkg-deb --contents`
# lists every program, man page, config file, unit, library header and CMake
# file below, owned by root; the control data marks /etc/nsq/*.conf as
# conffiles, has the maintainer scripts, and depends on adduser and on the
# runtime libraries dpkg-shlibdeps found.
#
# Usage: check_contents.sh <package.deb>
set -euo pipefail
deb=$1
contents=$(dpkg-deb --contents "$deb")
failed=0
fail() {
  echo "check_contents: $*" >&2
  failed=1
}

# "-rwxr-xr-x root/root 123 2024-01-01 00:00 ./usr/bin/nsqd": mode and path.
listing=$(awk '{print $1, $2, $6}' <<<"$contents")
expect() {  # <mode> <path>
  grep -qxF -- "$1 root/root .$2" <<<"$listing" || fail "missing $1 $2"
}

libdir=/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)
for p in nsqd nsqlookupd nsqadmin nsq_tail nsq_to_file nsq_to_http nsq_to_nsq nsq_stat to_nsq \
  nsq_bench; do
  expect -rwxr-xr-x "/usr/bin/$p"
  expect -rw-r--r-- "/usr/share/man/man1/$p.1.gz"
done
for d in nsqd nsqlookupd nsqadmin; do
  expect -rw-r--r-- "/etc/nsq/$d.conf"
  expect -rw-r--r-- "/lib/systemd/system/$d.service"
done
expect -rw-r--r-- /usr/share/doc/nsq-cpp/copyright
expect -rw-r--r-- /usr/share/doc/nsq-cpp/changelog.gz
for f in nsqConfig.cmake nsqConfigVersion.cmake nsq-client-targets.cmake \
  nsq-diskqueue-targets.cmake; do
  expect -rw-r--r-- "$libdir/cmake/nsq/$f"
done
for l in nsq_diskqueue nsq_wire nsq_http nsq_client; do
  expect -rw-r--r-- "$libdir/lib$l.a"
done
expect -rw-r--r-- /usr/include/nsq/client/producer.h
expect -rw-r--r-- /usr/include/nsq/client/consumer.h
expect -rw-r--r-- /usr/include/diskqueue/disk_queue.h
# Nothing from the build tree or a test leaks in.
if grep -E '\./(usr/local|tmp|work|home|root)/|/tests?/|\.o$' <<<"$listing"; then
  fail "unexpected files (above)"
fi

# Control data.
conffiles=$(dpkg-deb --info "$deb" conffiles)
for d in nsqd nsqlookupd nsqadmin; do
  grep -qxF "/etc/nsq/$d.conf" <<<"$conffiles" || fail "/etc/nsq/$d.conf is not a conffile"
done
for s in postinst prerm postrm; do
  script=$(dpkg-deb --info "$deb" "$s") || fail "no $s"
  # Not run here (that needs a real system), but at least valid sh.
  sh -n <<<"$script" || fail "$s is not valid sh"
done
depends=$(dpkg-deb --field "$deb" Depends)
for dep in adduser libc6 libstdc++6 libssl3 libsnappy1v5 libspdlog1.1 libfmt9 \
  libboost-program-options zlib1g; do
  grep -q "$dep" <<<"$depends" || fail "Depends lacks $dep: $depends"
done
[ "$(dpkg-deb --field "$deb" Package)" = nsq-cpp ] || fail "Package is not nsq-cpp"
[ "$(dpkg-deb --field "$deb" Architecture)" = amd64 ] || fail "Architecture is not amd64"

if ((failed)); then
  echo "check_contents: dpkg-deb --contents:" >&2
  echo "$contents" >&2
  exit 1
fi
echo "check_contents: $(wc -l <<<"$contents") entries as expected; Depends: $depends"
