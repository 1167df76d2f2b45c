#!/bin/bash
# Installs everything Ringside needs to build, test and run on Debian 12, from Debian's packages.
set -euo pipefail
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  build-essential cmake ninja-build pkg-config \
  libtraceevent-dev libtracefs-dev libtracecmd-dev libzstd-dev zlib1g-dev \
  qt6-base-dev qt6-base-dev-tools libgl-dev \
  trace-cmd xz-utils xvfb xauth imagemagick >/dev/null
