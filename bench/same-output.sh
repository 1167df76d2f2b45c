#!/bin/bash
# Whether a recording gives the same task ids and statistics on every run: RUNS times the
# thread table (`SELECT * FROM thread ORDER BY utid`) and every plugin's `stats --json`, one
# digest per run; prints each distinct digest with how many runs gave it (one line: the same).
# usage: bench/same-output.sh FILE [RUNS [CLI]]
set -euo pipefail
file=$1 runs=${2:-20} cli=${3:-build/release/app/cli/ringside-cli}
for ((r = 0; r < runs; r++)); do
  {
    "$cli" query "$file" "SELECT * FROM thread ORDER BY utid"
    for plugin in sched syscalls workqueue kvm; do "$cli" stats "$file" --plugin "$plugin" --json || true; done
  } 2>&1 | sha256sum | cut -c1-16
done | sort | uniq -c
