#!/bin/bash
# The window from launch until idle, with the default plugins and with every plugin off, each
# in fresh settings, alternated ROUNDS times: time to idle (its CPU time stops growing for 2 s),
# CPU time and peak memory (VmHWM), and the ratios of the medians. Sampled every 50 ms. Each run has its own Xvfb.
# With EACH_PLUGIN=1, each plugin is also run alone, to see which one the time goes to.
# usage: [EACH_PLUGIN=1] bench/gui-load.sh FILE [ROUNDS [GUI [DISPLAY_NUM]]]
set -euo pipefail
file=$(realpath "$1") rounds=${2:-3}
gui=$(realpath "${3:-build/release/app/gui/ringside}") disp=${4:-91}

# One launch: prints "cpu_s=... busy_until_s=... maxrss_kb=...".
measure() {
  Xvfb ":$disp" -screen 0 1600x1000x24 >/dev/null 2>&1 &
  local xvfb=$! ticks
  ticks=$(getconf CLK_TCK)
  sleep 1
  local start=$EPOCHREALTIME nap
  exec {nap}<> <(:) # read -t on it waits without a process of its own
  DISPLAY=":$disp" "$gui" "$file" >/dev/null 2>&1 &
  local app=$! cpu=-1 still=0 peak=0 idle=$start now rss
  # Builtins only: a process forked per sample would take CPU from the window.
  while kill -0 "$app" 2>/dev/null && [ "$still" -lt 40 ]; do
    read -r -t 0.05 -u "$nap" _ || true
    now=$cpu rss=0
    if read -r -a stat <"/proc/$app/stat" 2>/dev/null; then now=$((stat[13] + stat[14])); fi
    while read -r key value _; do [ "$key" = VmHWM: ] && rss=$value; done <"/proc/$app/status" 2>/dev/null || true
    [ "${rss:-0}" -gt "$peak" ] && peak=$rss
    if [ "$now" = "$cpu" ]; then still=$((still + 1)); else still=0 idle=$EPOCHREALTIME; fi
    cpu=$now
  done
  exec {nap}<&-
  kill "$app" 2>/dev/null || true
  wait "$app" 2>/dev/null || true
  kill "$xvfb" 2>/dev/null || true
  wait "$xvfb" 2>/dev/null || true
  python3 -c "import sys; c, t, s, i, p = sys.argv[1:]; print(f'cpu_s={int(c) / int(t):.2f} busy_until_s={float(i) - float(s):.2f} maxrss_kb={p}')" \
    "$cpu" "$ticks" "$start" "$idle" "$peak"
}

out=$(mktemp) settings=$(mktemp -d)
trap 'rm -rf "$out" "$settings"' EXIT
all=(kvm power sched syscalls workqueue)
configs=(off on)
[ "${EACH_PLUGIN:-0}" = 1 ] && for p in "${all[@]}"; do configs+=("$p"); done
for ((r = 0; r < rounds; r++)); do
  for plugins in "${configs[@]}"; do
    rm -rf "$settings"/*
    mkdir -p "$settings/Ringside"
    disabled=()
    for p in "${all[@]}"; do [ "$plugins" = on ] || [ "$plugins" = "$p" ] || disabled+=("$p"); done
    [ ${#disabled[@]} -gt 0 ] && printf '[plugins]\ndisabled=%s\n' "$(IFS=,; echo "${disabled[*]}" | sed 's/,/, /g')" >"$settings/Ringside/Ringside.conf"
    line=$(XDG_CONFIG_HOME=$settings measure)
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
    alone = f" ({t - med['off'][0]:+.2f} s)" if k not in ("on", "off") and "off" in med else ""
    print(f"plugins {k}: idle after {t:.2f} s (median){alone}, peak {m / 1024:.0f} MB")
if "on" in med and "off" in med:
    print(f"on/off: time {med['on'][0] / med['off'][0]:.2f}x, memory {med['on'][1] / med['off'][1]:.2f}x")
PY
