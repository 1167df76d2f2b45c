#!/bin/bash
# Builds the Debian package ringside_VERSION_ARCH.deb into the current folder (or OUT_DIR):
# a release build with Debian's hardening flags, packed by CPack, dependencies computed by
# dpkg-shlibdeps. Install it with: apt install ./ringside_*.deb
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
out=$(pwd)
out=${OUT_DIR:-$out}
build=${BUILD_DIR:-$src/build/deb}
"$src/packaging/setup-debian.sh"
export DEB_BUILD_MAINT_OPTIONS=hardening=+all
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRINGSIDE_BUILD_TESTS=OFF \
  -DCMAKE_INSTALL_PREFIX=/usr \
  -DCMAKE_C_FLAGS="$(dpkg-buildflags --get CFLAGS) $(dpkg-buildflags --get CPPFLAGS)" \
  -DCMAKE_CXX_FLAGS="$(dpkg-buildflags --get CXXFLAGS) $(dpkg-buildflags --get CPPFLAGS)" \
  -DCMAKE_EXE_LINKER_FLAGS="$(dpkg-buildflags --get LDFLAGS)" >/dev/null
cmake --build "$build"
(cd "$build" && cpack -G DEB -B "$build/cpack" >/dev/null)
deb=$(ls "$build"/cpack/ringside_*.deb)
cp "$deb" "$out/"
echo "$out/$(basename "$deb")"
