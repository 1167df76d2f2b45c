#!/bin/bash
# One command for a fresh Debian 12 machine: install dependencies, build, and pass the tests,
# in the normal build, the ASan+UBSan build and the ThreadSanitizer build (the tests of
# threaded code, the window's included), with warnings as errors; then each libFuzzer target
# runs briefly (the fuzz preset, clang with ASan+UBSan). When a corpus of
# recordings sits beside the checkout (shared/traces, shared/corpus-external), the
# differential test runs over it too.
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/setup-debian.sh
# The capture tests record through tracefs: mounted here where the machine allows it (they
# skip, saying why, where it is not).
if [ "$(id -u)" -eq 0 ] && [ ! -d /sys/kernel/tracing/instances ]; then
  mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
    echo "test.sh: tracefs could not be mounted at /sys/kernel/tracing; the capture tests will skip" >&2
fi
corpus=""
for d in "$(cd .. && pwd)/shared/traces" "$(cd .. && pwd)/shared/corpus-external"; do
  [ -d "$d" ] && corpus="${corpus:+$corpus:}$d"
done
export RINGSIDE_CORPUS="${RINGSIDE_CORPUS:-$corpus}"
# The normal build here has line tables only (-g1): a quarter less compile time than -g.
# Unity builds (eight sources a compile) parse the Qt and standard headers once per eight
# files: the builds take about half the time.
for preset in dev asan tsan fuzz; do
  extra=(-DCMAKE_UNITY_BUILD=ON)
  [ "$preset" = dev ] && extra+=(-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG")
  cmake --preset "$preset" -DRINGSIDE_WERROR=ON "${extra[@]}" >/dev/null
  cmake --build --preset "$preset"
  ctest --preset "$preset" -j2
done
