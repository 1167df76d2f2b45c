#!/bin/bash
# Each query of bench/sql-queries.txt and the scan it is built on, timed by `ringside-cli query
# --timing` (query_s: after the load), with the ratio of the two.
# usage: bench/sql-figures.sh BUILD_DIR FILE [QUERIES]
set -euo pipefail
cli=$(realpath "$1")/app/cli/ringside-cli file=$2
queries=${3:-$(dirname "$(realpath "$0")")/sql-queries.txt}
seconds() { "$cli" query "$file" "$1" --format csv --timing 2>&1 >/dev/null | sed -n 's/^query_s=\([0-9.]*\).*/\1/p'; }
grep -v '^#' "$queries" | while IFS= read -r name && IFS= read -r query && IFS= read -r scan; do
  q=$(seconds "$query") s=$(seconds "$scan")
  python3 -c "import sys; n, q, s = sys.argv[1:]; print(f'{n}: {float(q):.2f} s, the scan alone {float(s):.2f} s ({float(q) / max(float(s), 0.001):.2f}x)')" \
    "$name" "$q" "$s"
done
