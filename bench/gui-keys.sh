#!/bin/bash
# How fast the window answers keys while it opens a recording: from launch, every INTERVAL
# seconds Alt+F is pressed and the time until the File menu is on screen is taken, then Escape
# closes it; until the window is idle (its CPU time stops growing for 2 s). Prints each probe
# ("t_s=… answer_ms=…", t from launch), the largest answer while the recording loaded, and the
# window's own milestones (RINGSIDE_MILESTONES: first rows in the views, the store complete;
# seconds from its main()).
# Runs its own Xvfb and openbox. usage: bench/gui-keys.sh FILE [GUI [DISPLAY_NUM [INTERVAL]]]
set -euo pipefail
file=$(realpath "$1")
gui=$(realpath "${2:-build/release/app/gui/ringside}") disp=${3:-92} interval=${4:-0.5}
export DISPLAY=":$disp"
Xvfb "$DISPLAY" -screen 0 1920x1080x24 >/dev/null 2>&1 &
xvfb=$!
sleep 1
openbox >/dev/null 2>&1 &
wm=$!
settings=$(mktemp -d) log=$(mktemp)
trap 'kill "$app" "$wm" "$xvfb" 2>/dev/null || true; rm -rf "$settings" "$log"' EXIT
sleep 1

visible() { xdotool search --onlyvisible --pid "$app" 2>/dev/null | wc -l; }
ms_since() { python3 -c "import sys; print(f'{(float(sys.argv[2]) - float(sys.argv[1])) * 1000:.0f}')" "$1" "$2"; }

start=$EPOCHREALTIME
RINGSIDE_MILESTONES=1 XDG_CONFIG_HOME=$settings "$gui" "$file" >/dev/null 2>"$log" &
app=$!
until [ "$(visible)" -ge 1 ]; do sleep 0.05; done
window=$(xdotool search --onlyvisible --pid "$app" | head -1)
echo "window_shown_s=$(ms_since "$start" "$EPOCHREALTIME" | awk '{printf "%.2f", $1 / 1000}')"
ticks=$(getconf CLK_TCK) cpu=-1 still=0 worst=0
while [ "$still" -lt 4 ]; do
  before=$(visible)
  xdotool windowactivate --sync "$window" key --clearmodifiers alt+f 2>/dev/null || true
  pressed=$EPOCHREALTIME
  until [ "$(visible)" -gt "$before" ]; do sleep 0.005; done
  answer=$(ms_since "$pressed" "$EPOCHREALTIME")
  xdotool key Escape
  until [ "$(visible)" -le "$before" ]; do sleep 0.005; done
  read -r -a stat <"/proc/$app/stat"
  now=$((stat[13] + stat[14]))
  if [ "$now" -le $((cpu + ticks / 20)) ]; then still=$((still + 1)); else still=0; fi
  cpu=$now
  echo "t_s=$(ms_since "$start" "$pressed" | awk '{printf "%.2f", $1 / 1000}') answer_ms=$answer"
  [ "$still" -eq 0 ] && [ "$answer" -gt "$worst" ] && worst=$answer
  sleep "$interval"
done
echo "largest_answer_while_busy_ms=$worst"
sed -n 's/^ringside milestone \([a-z-]*\) \(.*\)/\1_s=\2/p' "$log"
