#!/bin/bash
# The load's figures for each recording, one after the other in one run: the headless load
# (`ringside-cli info`, no plugins; `ringside-cli bench`, the default plugins) and the window
# with its default plugins and with every plugin off (bench/gui-load.sh). Bytes per event are
# the peak resident memory over the recording's events.
# usage: bench/load-figures.sh BUILD_DIR ROUNDS FILE...
set -euo pipefail
build=$(realpath "$1") rounds=$2
shift 2
cli=$build/app/cli/ringside-cli gui=$build/app/gui/ringside
here=$(dirname "$(realpath "$0")")
for file in "$@"; do
  /usr/bin/time -f "%e %M" -o /tmp/load-figures.$$ "$cli" info "$file" >/tmp/load-figures-info.$$
  events=$(awk '/^events:/ {print $2}' /tmp/load-figures-info.$$)
  read -r wall kb </tmp/load-figures.$$
  rm -f /tmp/load-figures.$$ /tmp/load-figures-info.$$
  echo "== $file: $events events"
  python3 -c "import sys; w, kb, n = sys.argv[1:]; print(f'info (no plugins): {float(w):.2f} s, peak {int(kb) // 1024} MiB, {int(kb) * 1024 / int(n):.1f} bytes per event')" \
    "$wall" "$kb" "$events"
  bench=$("$cli" bench "$file" | sed -n 's/^ringside load_s=\([0-9.]*\).*peak_rss_kb=\([0-9]*\).*/\1 \2/p')
  echo "bench (default plugins): ${bench% *} s, peak $((${bench#* } / 1024)) MiB"
  "$here/gui-load.sh" "$file" "$rounds" "$gui" >/tmp/load-figures.$$
  cat /tmp/load-figures.$$
  out=$(tail -3 /tmp/load-figures.$$)
  rm -f /tmp/load-figures.$$
  on_mb=$(echo "$out" | sed -n 's/^plugins on: .*peak \([0-9]*\) MB/\1/p')
  python3 -c "import sys; mb, n = sys.argv[1:]; print(f'window (default plugins): {int(mb) * 1048576 / int(n):.1f} bytes per event')" \
    "$on_mb" "$events"
  on_s=$(echo "$out" | sed -n 's/^plugins on: idle after \([0-9.]*\) s.*/\1/p')
  python3 -c "import sys; g, w, b = map(float, sys.argv[1:]); print(f'window (default plugins): time {g / w:.2f}x info, {g / b:.2f}x bench')" \
    "$on_s" "$wall" "${bench% *}"
done
