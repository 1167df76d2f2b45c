#!/bin/bash
# The package on a fresh Debian 12:
#   verify-fresh-debian.sh ringside_VERSION_ARCH.deb [ROOT]   installs this package
#   verify-fresh-debian.sh --build [ROOT]                      builds it there first, from this
#                                                              checkout's HEAD, with build-deb.sh
# Makes a minimal bookworm system with debootstrap (in ROOT, default a temporary folder), from
# the Debian mirror this machine's own apt sources use for bookworm (or DEBIAN_MIRROR), installs
# the package there with apt as a user would, and checks: ringside-cli from PATH reads the
# sample; xdg-mime knows a trace-cmd recording and names Ringside's desktop entry for it; man
# shows the page; purging the package, and then what its installation brought in, leaves the
# system as it was before: the same packages, paths, owners, modes, file contents, users and
# groups.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "verify-fresh-debian.sh: $*" >&2; exit 1; }
[ $# -ge 1 ] || fail "usage: verify-fresh-debian.sh ringside_VERSION_ARCH.deb|--build [ROOT]"
build=""
if [ "$1" = --build ]; then
  build=1
else
  deb=$(realpath "$1")
fi
shift
if [ $# -ge 1 ]; then
  root=$1
else
  root=$(mktemp -d /var/tmp/ringside-fresh.XXXXXX)
  chmod 755 "$root" # as / is: apt's downloads run as the user _apt
fi
command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null

# The mirror: the one this machine's apt sources give for bookworm itself (not -updates or
# -security), as apt reads them (sources.list and sources.list.d, one-line or deb822 style).
# With Release files the codename names it even where the sources say "oldstable".
# shellcheck disable=SC2016
mirror=${DEBIAN_MIRROR:-$(apt-get indextargets --format '$(TARGET_OF)|$(RELEASE)|$(CODENAME)|$(LABEL)|$(REPO_URI)' \
  'Identifier: Packages' 2>/dev/null |
  awk -F'|' '$1 == "deb" && ($2 == "bookworm" || ($3 == "bookworm" && $4 == "Debian")) {print $5; exit}')}
[ -n "$mirror" ] || fail "this machine's apt sources name no bookworm archive; give one in DEBIAN_MIRROR"

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

# The system: every path (type, mode, owner, a link's target) and every file's SHA-256, outside
# what apt and dpkg keep for themselves (packages() compares dpkg's view), logs and caches.
# The user and group databases are compared by entry; their shadow files are covered by those
# entries (their lines hold dates of password changes), their "-" copies are the previous state.
# shellcheck disable=SC2016
packages() { in_root dpkg-query -W -f '${db:Status-Abbrev} ${binary:Package} ${Version}\n' | LC_ALL=C sort; }
snapshot() {
  # shellcheck disable=SC2016
  in_root sh -c '
    prune="-path /proc -o -path /tmp -o -path /var/cache -o -path /var/lib/apt -o -path /var/lib/dpkg
      -o -path /var/log -o -path /root"
    find / -xdev \( $prune \) -prune -o -printf "%p %y %M %u:%g %l\n"
    find / -xdev \( $prune -o -path "/etc/*shadow*" -o -path "/etc/passwd*" -o -path "/etc/group*" \) -prune \
      -o -type f -print0 | xargs -0 sha256sum | sed "s/^\([0-9a-f]*\)  \(.*\)$/\2 sha256 \1/"
    sed "s|^|/etc/passwd entry |" /etc/passwd
    sed "s|^|/etc/group entry |" /etc/group' | LC_ALL=C sort
}
packages > "$root/tmp/before.packages"
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

# The package, and what apt installed with it (its Recommends and their dependencies), removed
# as a user would.
in_root apt-get purge -y -qq ringside >/dev/null
in_root apt-get autoremove --purge -y -qq >/dev/null
# apt-get autoremove keeps an automatically installed package that an installed package
# recommends or suggests (APT::AutoRemove::RecommendsImportant and SuggestsImportant, both on by
# default). On this system systemd, there before, suggests polkitd, which pkexec (recommended by
# Ringside) brought in: polkitd, and what it depends on (xml-core, sgml-base, libduktape207,
# libpolkit-*), stay installed. They are not Ringside's, so purge every package the
# installation brought in that autoremove kept, saying which and why, before comparing.
installed() { awk '$1 !~ /^.n/ {print $2}' | LC_ALL=C sort; }
kept=$(LC_ALL=C comm -13 <(installed <"$root/tmp/before.packages") <(packages | installed))
# What purging those leaves by itself, whatever installed them (pkexec alone leaves the same), is
# left out of the comparison, line by line, only when the package responsible is among them:
ignore=()
if [ -n "$kept" ]; then
  echo "apt-get autoremove kept what installing $name brought in: $(tr '\n' ' ' <<<"$kept")"
  in_root apt-get autoremove -s -o Debug::pkgAutoRemove=1 2>&1 |
    awk -v kept="$kept" 'BEGIN { n = split(kept, k, "\n"); for (i = 1; i <= n; i++) { sub(/:.*/, "", k[i]); want[k[i]] = 1 } }
      $1 == "Following" && ($4 == "Recommends" || $4 == "Suggests") && $5 == "on" {
        a = $3; b = $6; sub(/:.*/, "", a); sub(/:.*/, "", b); if (b in want) print "  because " a " " $4 " " b }' | sort -u
  # - Debian keeps the system users and groups a package made when it is purged (files may still
  #   belong to them): those named in these packages' sysusers.d files (polkitd's user and group
  #   "polkitd"). Ringside's own package makes none.
  # shellcheck disable=SC2016,SC2086
  users=$(in_root dpkg -L $kept | { grep -E '^(/usr)?/lib/sysusers\.d/.*\.conf$' || true; } | while read -r conf; do
    in_root awk '$1 == "u" || $1 == "g" {print $2}' "$conf" </dev/null; done | sort -u)
  [ -z "$users" ] || ignore+=("^/etc/(passwd|group) entry ($(paste -sd'|' <<<"$users")):")
  # - xml-core 0.18+nmu1's postrm removes /var/lib/xml-core and only then tests that it exists
  #   before removing /etc/xml: the empty folder /etc/xml stays.
  grep -qE '^xml-core(:|$)' <<<"$kept" && ignore+=('^/etc/xml d ')
  # - polkitd 122-3's postinst gives /usr/share/polkit-1/rules.d (a folder systemd ships too,
  #   there before) to the user polkitd with mode 700, and its purge does not give it back: that
  #   folder's own owner and mode change (not what it holds, still compared).
  grep -qE '^polkitd(:|$)' <<<"$kept" && ignore+=('^/usr/share/polkit-1/rules\.d d ')
  # shellcheck disable=SC2086
  in_root apt-get purge -y -qq $kept >/dev/null
fi
packages > "$root/tmp/after.packages"
if ! diff -u "$root/tmp/before.packages" "$root/tmp/after.packages"; then
  fail "purging the package and what it brought in left these package differences (- before install, + after purge)"
fi
snapshot > "$root/tmp/after"
for f in before after; do
  if [ ${#ignore[@]} -gt 0 ]; then
    printf '%s\n' "${ignore[@]}" | grep -v -E -f - "$root/tmp/$f" >"$root/tmp/$f.compared" || true
  else
    cp "$root/tmp/$f" "$root/tmp/$f.compared"
  fi
done
[ ${#ignore[@]} -eq 0 ] || printf '  left out of the comparison, theirs and not Ringside'"'"'s: %s\n' "${ignore[@]}"
if ! diff -u "$root/tmp/before.compared" "$root/tmp/after.compared"; then
  fail "purging the package and what it brought in left these differences (- before install, + after purge)"
fi
echo "verify-fresh-debian.sh: installed, used and removed cleanly on a fresh Debian 12 ($root)"
