#!/bin/bash
# Live capture under load: ringside-cli record of raw_syscalls with a 4 MB buffer per CPU while
# ringside-syscall-load runs RATE getppid() calls a second (two events each) on CPU 1 for
# SECONDS. Prints events/s and lost events (the kernel's overrun and dropped counters), and the
# CPU time of the capture helper, of the recording CLI and of the load, each measured apart.
# Needs root and a writable tracefs.
# usage: bench/capture-throughput.sh [RATE [SECONDS [BUILD_DIR]]]
# RECORD_ARGS adds options to the record (e.g. "--file-version 6"); the file's size is printed.
set -euo pipefail
rate=${1:-600000} seconds=${2:-30} build=${3:-build/release}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cli=$build/app/cli/ringside-cli
helper=$(realpath "$build/app/capture/ringside-capture")
load=$(realpath "$build/bench/ringside-syscall-load")
# The helper, timed on its own: the CLI starts whatever RINGSIDE_CAPTURE_HELPER names.
cat >"$work/helper" <<SH
#!/bin/sh
exec /usr/bin/time -f '%U %S' -o "$work/helper.time" "$helper" "\$@"
SH
chmod +x "$work/helper"
RINGSIDE_CAPTURE_HELPER=$work/helper /usr/bin/time -f '%U %S %e' -o "$work/cli.time" \
  "$cli" record -e raw_syscalls -b 4096 ${RECORD_ARGS:-} -o "$work/out.dat" -- \
  /usr/bin/time -f '%U %S' -o "$work/load.time" taskset -c 1 "$load" "$rate" "$seconds" 2>"$work/log"
tail -1 "$work/log"
echo "file_bytes=$(stat -c %s "$work/out.dat")"
python3 - "$work" "$seconds" <<'PY'
import re, sys
work, seconds = sys.argv[1], float(sys.argv[2])
last = open(work + "/log").read().strip().splitlines()[-1]
events, over, dropped = map(int, re.search(r": (\d+) events, lost: (\d+) overwritten, (\d+) dropped", last).groups())
def cpu(name):
    u, s = open(f"{work}/{name}.time").read().split()[:2]
    return float(u) + float(s)
cli_u, cli_s, wall = map(float, open(work + "/cli.time").read().split())
helper, load = cpu("helper"), cpu("load")
cli = cli_u + cli_s - helper - load  # /usr/bin/time counts the children it waited for
print(f"events={events} events_per_s={events / seconds:.0f} overrun={over} dropped={dropped} wall_s={wall:.1f}")
print(f"cpu_s: helper={helper:.2f} ({100 * helper / seconds:.0f}% of one CPU) cli={cli:.2f} ({100 * cli / seconds:.0f}%) load={load:.2f}")
PY
