#!/usr/bin/env python3
# Makes NAME.calls.txt.xz, the reference tst_callslices compares with: one line per
# funcgraph_exit record of `trace-cmd report -R -i NAME.dat` ("FUNCTION DEPTH DURATION_NS",
# the duration being rettime - calltime), sorted.
#   tests/data/calls-reference.py tests/data/fgraph-openat.dat
# NAME.callers.txt.xz, for function tracer recordings, is "FUNCTION CALLER COUNT" per pair, sorted:
#   trace-cmd report -O parent=1 -i NAME.dat | grep -o "function: .*" | sed 's/function: *//' |
#     awk '{print $1, $3}' | sort | uniq -c | awk '{print $2, $3, $1}' | sort | xz -9
import lzma, re, subprocess, sys

for path in sys.argv[1:]:
    report = subprocess.run(["trace-cmd", "report", "-R", "-i", path], capture_output=True, text=True, check=True)
    lines = []
    for line in report.stdout.splitlines():
        if "funcgraph_exit:" not in line:
            continue
        fields = dict(re.findall(r"(\w+)=(\S+)", line.split("funcgraph_exit:", 1)[1]))
        duration = int(fields["rettime"], 16) - int(fields["calltime"], 16)
        lines.append(f"{fields['func']} {int(fields['depth'])} {duration}")
    lines.sort()
    with lzma.open(path[: -len(".dat")] + ".calls.txt.xz", "wt", preset=9) as out:
        out.write("".join(l + "\n" for l in lines))
    print(path, len(lines), "exits")
