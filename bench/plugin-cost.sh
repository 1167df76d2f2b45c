#!/bin/bash
# The load cost of the plugins: `ringside-cli bench FILE` without plugins and with all of them,
# alternated ROUNDS times (SLEEP seconds apart), for one build or for two side by side (each
# round runs both, so their ratios come from one run). Prints the medians, the fastest loads,
# the ratios and the last peak memory.
# usage: bench/plugin-cost.sh FILE [ROUNDS [SLEEP [CLI [OTHER_CLI]]]]
set -euo pipefail
file=$1 rounds=${2:-9} pause=${3:-0}
builds=("${4:-build/release/app/cli/ringside-cli}")
[ $# -ge 5 ] && builds+=("$5")
none=(--no-plugin syscalls --no-plugin sched --no-plugin workqueue --no-plugin kvm)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for ((r = 0; r < rounds; r++)); do
  for b in "${builds[@]}"; do
    for with in 0 1; do
      if [ $with = 0 ]; then line=$("$b" bench "$file" "${none[@]}" | head -1); else line=$("$b" bench "$file" | head -1); fi
      echo "$b $with $(grep -o 'load_s=[0-9.]*' <<<"$line" | cut -d= -f2) $(grep -o 'peak_rss_kb=[0-9]*' <<<"$line" | cut -d= -f2)" >>"$out"
      sleep "$pause"
    done
  done
done
python3 - "$out" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    build, with_plugins, seconds, rss = line.split()
    runs.setdefault(build, {}).setdefault(with_plugins, []).append((float(seconds), int(rss)))
for build, r in runs.items():
    off, on = [s for s, _ in r["0"]], [s for s, _ in r["1"]]
    print(f"{build}: median {statistics.median(off):.3f} s without plugins, {statistics.median(on):.3f} s with "
          f"(+{100 * (statistics.median(on) / statistics.median(off) - 1):.0f}%); fastest {min(off):.3f} / {min(on):.3f} s "
          f"(+{100 * (min(on) / min(off) - 1):.0f}%); peak memory {r['0'][-1][1] // 1024} / {r['1'][-1][1] // 1024} MB")
PY
