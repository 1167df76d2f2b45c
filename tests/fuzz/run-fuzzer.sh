#!/bin/bash
# Runs one fuzz target for a while: run-fuzzer.sh TARGET SEEDS DICT SECONDS [libFuzzer options]
# The corpus grows in a scratch folder, or in $RINGSIDE_FUZZ_CORPUS when set (kept for the
# next run); the seeds stay untouched. A crash leaves crash-* files in the current folder and
# fails the run.
set -euo pipefail
target=$1 seeds=$2 dict=$3 seconds=$4
shift 4
if [ -n "${RINGSIDE_FUZZ_CORPUS:-}" ]; then
  corpus=$RINGSIDE_FUZZ_CORPUS
  mkdir -p "$corpus"
else
  corpus=$(mktemp -d)
  trap 'rm -rf "$corpus"' EXIT
fi
# libtraceevent leaks on some error paths (a format or filter it refuses): not ours to fix, and
# a leak report would end the run before it reaches anything that is.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
"$target" "$corpus" "$seeds" -dict="$dict" -max_total_time="$seconds" -max_len=1100000 \
  -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 "$@"
