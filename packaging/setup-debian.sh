#!/bin/bash
# Installs everything Ringside needs to build, test and run on Debian 12, from Debian's packages.
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "setup-debian.sh: installing packages needs root, and sudo is not installed." >&2
    echo "Run this script as root (e.g. 'su -c packaging/setup-debian.sh'), or install sudo first." >&2
    exit 1
  fi
  SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  build-essential cmake ninja-build pkg-config \
  libtraceevent-dev libtracefs-dev libtracecmd-dev libzstd-dev zlib1g-dev libsqlite3-dev libedit-dev \
  qt6-base-dev qt6-base-dev-tools qt6-svg-dev libgl-dev \
  clang libclang-rt-14-dev lld \
  trace-cmd xz-utils xvfb xauth imagemagick \
  file desktop-file-utils appstream shared-mime-info man-db >/dev/null
