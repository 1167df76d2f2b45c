#!/bin/bash
# The window from launch until idle, with the default plugins and with every plugin off, each
# in fresh settings, alternated ROUNDS times: shared/bench/gui_load.sh's time to idle, CPU time
# and peak memory (RSS), and the ratios of the medians.
# usage: bench/gui-load.sh FILE [ROUNDS [GUI [DISPLAY_NUM]]]
set -euo pipefail
file=$(realpath "$1") rounds=${2:-3}
gui=$(realpath "${3:-build/release/app/gui/ringside}") disp=${4:-91}
here=$(cd "$(dirname "$0")" && pwd)
# The measuring script is the workplace's (shared/bench beside the checkout), not the project's:
# GUI_LOAD names it elsewhere.
measure=${GUI_LOAD:-$here/../../shared/bench/gui_load.sh}
if [ ! -f "$measure" ]; then
  echo "gui-load.sh: $measure not found: set GUI_LOAD to shared/bench/gui_load.sh" >&2
  exit 2
fi
[ -x "$measure" ] || measure="bash $measure"
out=$(mktemp) settings=$(mktemp -d)
trap 'rm -rf "$out" "$settings"' EXIT
for ((r = 0; r < rounds; r++)); do
  for plugins in off on; do
    rm -rf "$settings"/*
    mkdir -p "$settings/Ringside"
    [ $plugins = off ] && printf '[plugins]\ndisabled=kvm, sched, syscalls, workqueue\n' >"$settings/Ringside/Ringside.conf"
    line=$(XDG_CONFIG_HOME=$settings $measure "$disp" /tmp/gui-load-$plugins.png ringside -- "$gui" "$file" | tail -1)
    echo "$plugins $line" | tee -a "$out"
  done
done
python3 - "$out" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    words = line.split()
    values = dict(w.split("=") for w in words[1:])
    runs.setdefault(words[0], []).append((float(values["busy_until_s"]), int(values["maxrss_kb"])))
med = {k: (statistics.median(t for t, _ in v), statistics.median(m for _, m in v)) for k, v in runs.items()}
for k, (t, m) in med.items():
    print(f"plugins {k}: idle after {t:.2f} s (median), peak {m / 1024:.0f} MB")
if "on" in med and "off" in med:
    print(f"on/off: time {med['on'][0] / med['off'][0]:.2f}x, memory {med['on'][1] / med['off'][1]:.2f}x")
PY
