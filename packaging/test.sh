#!/bin/bash
# One command for a fresh Debian 12 machine: install dependencies, build, and pass the tests,
# in the ASan+UBSan build and the ThreadSanitizer build (the tests of threaded code, the
# window's included), with warnings as errors; then each libFuzzer target runs briefly (the
# fuzz preset, clang with ASan+UBSan). When a corpus of
# recordings sits beside the checkout (shared/traces, shared/corpus-external), the
# differential test runs over it too.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase says how long it took: CI has a time budget, and these say where it goes.
phase() { echo "test.sh: $1 took $((SECONDS - started)) s"; started=$SECONDS; }
started=$SECONDS
packaging/setup-debian.sh
phase setup
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
# The suite runs in the ASan+UBSan build (-O1: half the run time of -O0 for a little more
# compile time) and its threaded tests in the ThreadSanitizer build (-O1, those tests and what
# they run: the whole tree again took CI past its time), all with warnings as errors; the
# tests' own code is compiled at -O0 (a tenth of their compile, a few percent of their run).
# Both leave out -Wmaybe-uninitialized: GCC 12 at -O1 warns falsely through std::optional's copy.
# A plain build (the dev preset) would run the same tests with fewer checks, so it is left to
# the developers' own loop (cmake --preset dev). Unity builds (eight sources a compile) parse
# the Qt and standard headers once per eight files, and the tests share one precompiled
# header. Four tests at a time on two cores: many wait on a subprocess or an event loop; the
# fuzzers (-O1, as libFuzzer suggests) take a core each.
# The three builds take about 6 GiB together; a disk that fills mid-build shows as a linker's
# bus error (lld writes through a mapping), so say so first.
free_kib=$(df -Pk . | awk 'NR == 2 { print $4 }')
if [ "${free_kib:-0}" -lt $((7 * 1024 * 1024)) ]; then
  echo "test.sh: only $((free_kib / 1024 / 1024)) GiB free under $(pwd); the builds need about 6 GiB" >&2
fi
for preset in asan tsan fuzz; do
  extra=(-DCMAKE_UNITY_BUILD=ON) jobs=4
  [ "$preset" = fuzz ] && extra+=(-DRINGSIDE_FUZZ_SECONDS=15) jobs=2
  cmake --preset "$preset" -DRINGSIDE_WERROR=ON "${extra[@]}" >/dev/null
  cmake --build --preset "$preset"
  phase "$preset build"
  ctest --preset "$preset" -j"$jobs"
  phase "$preset tests"
done
