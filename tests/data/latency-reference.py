#!/usr/bin/env python3
# Works out the latency presets from `trace-cmd report` alone, as the reference tst_latency
# compares Ringside's event-pair analysis with (latency-reference.txt), or, with --check CLI,
# compares ringside-cli's `latency --json` with it directly:
#   tests/data/latency-reference.py > tests/data/latency-reference.txt
#   tests/data/latency-reference.py --check build/dev/app/cli/ringside-cli [MORE.dat...]
# (MORE.dat: other recordings, checked with every preset whose two events they hold).
# One line per recording and preset: FILE PRESET PAIRS UNMATCHED_STARTS UNMATCHED_ENDS MIN P50 P99 MAX
# (nanoseconds; percentiles by nearest rank). The pairing rules are README's: a start replaces
# an open start of its key (the older is unmatched), an end without an open start is unmatched,
# starts open at the end are unmatched; "same task" is the same pid here. PRESET:CONDITION
# keeps only the start records that meet CONDITION (FIELD OP NUMBER), as --filter-from does. A
# pair of one event (offcpu) takes each record as an end (its end fields), then as a start; with
# the print preset's tests, a B| mark only as a start and an E| mark only as an end.
import json, math, os, re, subprocess, sys

def buf_starts(prefix):
    return lambda values: values.get("buf", "").startswith(prefix)


# (start, end, fields, same task, same CPU, nested, start records' test, end records' test)
PRESETS = {
    "irq": ("irq_handler_entry", "irq_handler_exit", [("irq", "irq")], False, True, False, None, None),
    "softirq": ("softirq_entry", "softirq_exit", [("vec", "vec")], False, True, False, None, None),
    "wakeup": ("sched_wakeup", "sched_switch", [("pid", "next_pid")], False, False, False, None, None),
    "waking": ("sched_waking", "sched_switch", [("pid", "next_pid")], False, False, False, None, None),
    "syscall": ("sys_enter", "sys_exit", [("id", "id")], True, False, False, None, None),
    "workqueue": ("workqueue_execute_start", "workqueue_execute_end", [("work", "work")], True, False, False, None,
                  None),
    "kmalloc": ("kmalloc", "kfree", [("ptr", "ptr")], False, False, False, None, None),
    "offcpu": ("sched_switch", "sched_switch", [("prev_pid", "next_pid")], False, False, False, None, None),
    # trace_marker's begin and end marks: a task's B|pid|name opens, its next E| closes the innermost.
    "print": ("print", "print", [], True, False, True, buf_starts("B|"), buf_starts("E|")),
}
RECORDINGS = {
    "langraph-perfclock.dat": ["irq", "softirq", "waking"],
    "sched-mix.dat": ["syscall", "softirq", "waking", "workqueue", "waking:prio<120", "syscall:id==0", "offcpu",
                      "offcpu:prev_state==1"],
    "execve-e2big.dat": ["syscall"],
    "lost-events.dat": ["syscall"],
    "syscalls-8cpu.dat": ["syscall", "softirq", "kmalloc"],
    "print-marks.dat": ["print"],
}
LINE = re.compile(r"^\s*(.*)-(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+):\s+(\w+):\s+(.*)$")


def meets(condition, values):
    if not condition:
        return True
    field, op, number = re.match(r"(\w+)(<=|>=|==|!=|<|>)(-?\d+)$", condition).groups()
    value, number = int(values[field], 0), int(number)
    return {"<": value < number, ">": value > number, "<=": value <= number, ">=": value >= number,
            "==": value == number, "!=": value != number}[op]


def nearest_rank(sorted_values, percent):
    rank = math.ceil(percent * len(sorted_values) / 100 - 1e-9)
    return sorted_values[min(max(rank, 1), len(sorted_values)) - 1]


def presets_of(path, names):
    run = subprocess.run(["trace-cmd", "report", "-R", "-t", "-i", path], capture_output=True, text=True)
    if run.returncode != 0:
        print("skip " + os.path.basename(path) + ": trace-cmd report failed: " + run.stderr.strip().replace("\n", "; "))
        return
    report = run.stdout
    events = []
    for line in report.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        _, pid, cpu, sec, frac, event, rest = m.groups()
        ts = int(sec) * 10**9 + int(frac.ljust(9, "0")[:9])
        values = dict(re.findall(r"(\w+)=(\S+)", rest))
        if event == "print":  # the text, spaces and all
            values["buf"] = rest.partition("buf=")[2]
        events.append((ts, int(cpu), int(pid), event, values))
    if names is None:
        seen = {e[3] for e in events}
        names = [n for n, p in PRESETS.items() if p[0] in seen and p[1] in seen]
    for name in names:
        preset, _, condition = name.partition(":")
        start_event, end_event, fields, same_task, same_cpu, nested, start_test, end_test = PRESETS[preset]
        open_starts, durations = {}, []
        replaced = unmatched_ends = 0
        for ts, cpu, pid, event, values in events:
            if event not in (start_event, end_event):
                continue
            # A record of one event is an end, then a start; with tests, only what it meets.
            is_start = event == start_event and meets(condition, values) and (not start_test or start_test(values))
            is_end = event == end_event and (not end_test or end_test(values))
            for side in [1, 0]:
                if not (is_end if side else is_start):
                    continue
                key = tuple(values.get(f[side]) for f in fields)
                key += (pid,) if same_task else ()
                key += (cpu,) if same_cpu else ()
                if side == 0:
                    stack = open_starts.setdefault(key, [])
                    if stack and not nested:
                        replaced += 1
                        stack.pop()
                    stack.append(ts)
                elif open_starts.get(key):
                    durations.append(ts - open_starts[key].pop())
                elif not (start_event == end_event and all(a == b for a, b in fields) and is_start):
                    unmatched_ends += 1
        open_starts = [t for stack in open_starts.values() for t in stack]
        durations.sort()
        stats = [nearest_rank(durations, p) for p in (50, 99)] if durations else [0, 0]
        yield name, len(durations), replaced + len(open_starts), unmatched_ends, (
            durations[0] if durations else 0), stats[0], stats[1], (durations[-1] if durations else 0)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    check = sys.argv[2] if len(sys.argv) > 2 and sys.argv[1] == "--check" else None
    failed = 0
    recordings = [(os.path.join(here, f), names) for f, names in RECORDINGS.items()]
    recordings += [(os.path.abspath(f), None) for f in sys.argv[3:]] if check else []
    for path, names in recordings:
        file = os.path.basename(path)
        for row in presets_of(path, names):
            line = " ".join(str(v) for v in (file,) + row)
            if not check:
                print(line)
                continue
            preset, _, condition = row[0].partition(":")
            out = subprocess.run([check, "latency", path, "--preset", preset, "--json"] +
                                 (["--filter-from", condition] if condition else []),
                                 capture_output=True, text=True, check=True).stdout
            j = json.loads(out)
            got = (row[0], j["count"], j["unmatched_starts"], j["unmatched_ends"], j["min_ns"] if j["count"] else 0,
                   j["p50_ns"] if j["count"] else 0, j["p99_ns"] if j["count"] else 0, j["max_ns"] if j["count"] else 0)
            same = got == row
            failed += not same
            print(("ok   " if same else "DIFF ") + line + ("" if same else "\n     ringside: " + " ".join(map(str, got))))
    sys.exit(1 if failed else 0)


main()
