#!/bin/bash
# The package on a fresh Debian 12:
#   verify-fresh-debian.sh ringside_VERSION_ARCH.deb [ROOT]   installs this package
#   verify-fresh-debian.sh --build [ROOT]                      builds it there first, from this
#                                                              checkout's HEAD, with build-deb.sh
# Makes a minimal bookworm system with debootstrap (in ROOT, default a temporary folder),
# installs the package there with apt as a user would, and checks: ringside-cli from PATH reads
# the sample; xdg-mime knows a trace-cmd recording and names Ringside's desktop entry for it;
# man shows the page; purging the package leaves the system as it was before.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=""
if [ "$1" = --build ]; then
  build=1
else
  deb=$(realpath "$1")
fi
shift
root=${1:-$(mktemp -d /var/tmp/ringside-fresh.XXXXXX)}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
fail() { echo "verify-fresh-debian.sh: $*" >&2; exit 1; }
command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null

if [ ! -x "$root/usr/bin/apt-get" ]; then
  debootstrap --variant=minbase bookworm "$root" "$mirror" >/dev/null
fi
mountpoint -q "$root/proc" || mount -t proc proc "$root/proc"
mkdir -p "$root/dev/pts"
mountpoint -q "$root/dev/pts" || mount -t devpts devpts "$root/dev/pts"
trap 'umount "$root/dev/pts" "$root/proc" 2>/dev/null || true' EXIT
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }

if [ -n "$build" ]; then
  rm -rf "$root/root/ringside" "$root"/tmp/ringside_*.deb
  mkdir -p "$root/root/ringside"
  git -C "$src" archive HEAD | tar -x -C "$root/root/ringside"
  in_root bash -c 'cd /root/ringside && OUT_DIR=/tmp packaging/build-deb.sh' >"$root/tmp/build-deb.log" 2>&1 ||
    fail "packaging/build-deb.sh failed in $root (log: $root/tmp/build-deb.log)"
  deb=$(ls "$root"/tmp/ringside_*.deb)
  echo "built $(basename "$deb") with packaging/build-deb.sh on the fresh system"
fi

# What a desktop user has: the tools the checks use, and the libraries Ringside needs, first;
# then a snapshot, so that what the package adds and leaves is all that differs.
in_root apt-get update -qq
in_root apt-get install -y -qq xdg-utils libfile-mimeinfo-perl desktop-file-utils shared-mime-info man-db >/dev/null
[ "$(dirname "$deb")" = "$root/tmp" ] || cp "$deb" "$root/tmp/"
name=$(basename "$deb")
deps=$(dpkg-deb -f "$deb" Depends | sed 's/([^)]*)//g; s/,/ /g')
# shellcheck disable=SC2086
in_root apt-get install -y -qq $deps >/dev/null
snapshot() {
  in_root find / -xdev \( -path /proc -o -path /tmp -o -path /var/cache -o -path /var/lib/apt \
    -o -path /var/lib/dpkg -o -path /var/log -o -path /root \) -prune -o -print | sort
}
snapshot > "$root/tmp/before"

in_root apt-get install -y -qq "/tmp/$name" >/dev/null
echo "installed $name"
in_root ringside-cli --version
in_root ringside-cli info /usr/share/ringside/sample.dat | head -3
in_root ringside-cli info /usr/share/ringside/sample.dat | grep -q '^version: *7' || fail "ringside-cli info of the sample"
type=$(in_root xdg-mime query filetype /usr/share/ringside/sample.dat)
echo "xdg-mime query filetype sample.dat: $type"
[ "$type" = "application/x-trace-cmd" ] || fail "the sample's type is $type"
app=$(in_root xdg-mime query default application/x-trace-cmd)
echo "xdg-mime query default application/x-trace-cmd: $app"
[ "$app" = "io.github.ringside.Ringside.desktop" ] || fail "the default application is '$app'"
in_root env MANWIDTH=80 man ringside-cli | head -4
in_root env MANWIDTH=80 man ringside-cli | grep -q 'ringside-cli info' || fail "man ringside-cli"

# The package, and what apt installed with it (its Recommends).
in_root apt-get purge -y -qq ringside >/dev/null
in_root apt-get autoremove --purge -y -qq >/dev/null
snapshot > "$root/tmp/after"
if ! diff -u "$root/tmp/before" "$root/tmp/after"; then
  fail "purging the package left these differences (- before install, + after purge)"
fi
echo "verify-fresh-debian.sh: installed, used and removed cleanly on a fresh Debian 12 ($root)"
