#!/bin/bash
# Checks a built package: check-deb.sh ringside_VERSION_ARCH.deb
# Its files are exactly packaging/deb-contents.txt; its version is the project's; its
# dependencies were computed; lintian finds no error; the desktop entry, metainfo, MIME type
# and man pages pass their validators; the packaged ringside-cli reads the packaged sample.
set -euo pipefail
deb=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "check-deb.sh: $*" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {print $6}' | sort > "$work/files"
if ! diff -u <(sort "$here/deb-contents.txt") "$work/files"; then
  fail "the package's files differ from packaging/deb-contents.txt (- expected, + packaged)"
fi

version=$(sed -n 's/^project(Ringside VERSION \([0-9.]*\).*/\1/p' "$here/../CMakeLists.txt")
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "version $(dpkg-deb -f "$deb" Version), the project says $version"
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libtraceevent1 libtraceevent1-plugin libqt6widgets6 libzstd1 zlib1g libsqlite3-0 libedit2 libc6 libstdc++6; do
  grep -q "\b$lib\b" <<<"$depends" || fail "Depends lacks $lib: $depends"
done
echo "Depends: $depends"

echo "lintian:"
lintian --fail-on error --display-info "$deb" || fail "lintian reports errors"

dpkg-deb -x "$deb" "$work/root"
share=$work/root/usr/share
desktop-file-validate "$share/applications/io.github.ringside.Ringside.desktop" || fail "desktop entry"
appstreamcli validate --no-net "$share/metainfo/io.github.ringside.Ringside.metainfo.xml" || fail "metainfo"
mkdir -p "$work/mime/packages"
cp "$share/mime/packages/io.github.ringside.Ringside.xml" "$work/mime/packages/"
XDG_DATA_DIRS="$work:/usr/share" update-mime-database "$work/mime" 2>&1 | (! grep .) || fail "MIME type: update-mime-database complained"
grep -q '^application/x-trace-cmd$' "$work/mime/types" || fail "MIME type application/x-trace-cmd not registered"
for page in ringside ringside-cli; do
  warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$share/man/man1/$page.1.gz" 2>&1 >/dev/null)
  [ -z "$warnings" ] || fail "man page $page(1): $warnings"
done

"$work/root/usr/bin/ringside-cli" --version
"$work/root/usr/bin/ringside-cli" info "$share/ringside/sample.dat" | grep -q '^version: *7' || fail "packaged ringside-cli cannot read the packaged sample"
env -u DISPLAY -u WAYLAND_DISPLAY QT_QPA_PLATFORM= "$work/root/usr/bin/ringside" --version
echo "check-deb.sh: $(basename "$deb") is fine"
