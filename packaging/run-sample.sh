#!/bin/bash
# One command for a fresh Debian 12 machine: install dependencies, build, and open the sample
# recording shipped in resources/ in the desktop application (or, with no display, print
# what ringside-cli reads from it).
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/setup-debian.sh
cmake --preset release >/dev/null
cmake --build --preset release
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  exec build/release/app/gui/ringside
fi
echo "No display: showing the sample with ringside-cli (run build/release/app/gui/ringside on a desktop)."
exec build/release/app/cli/ringside-cli info resources/sample.dat
