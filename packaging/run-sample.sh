#!/bin/bash
# One command for a fresh Debian 12 machine: install dependencies, build, and open the sample
# recording shipped in resources/.
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/setup-debian.sh
cmake --preset release >/dev/null
cmake --build --preset release
exec build/release/app/cli/ringside-cli info resources/sample.dat
