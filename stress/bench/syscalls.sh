#!/usr/bin/env bash
# System calls per query, DAL (dal_query_into) and floor (SQLite alone), for
# each workload of dal_floor_bench, counted by strace.
#
#   stress/bench/syscalls.sh [--build DIR] [--queries N] [workload ...]
#
# Each path runs alone (--only) twice, with N and 2N timed queries; set-up,
# seed and warm-up are the same in both runs, so the difference of the two
# counts, divided by N, is what N queries cost. The floor's calls are the
# ones SQLite itself needs for the workload (WAL locks, reads, writes,
# checkpoint syncs); whatever the DAL makes beyond them is its own (Go's
# scheduler: futex, nanosleep, sched_yield).
set -euo pipefail

queries=5000
tool=strace
help_lines=2,12p
# shellcheck source=per_query_args.sh
. "$(dirname "$0")/per_query_args.sh"

# trace PATH WORKLOAD N: strace -c's table of that run in $tmp/PATH.WORKLOAD.N
trace() {
  local out=$tmp/$1.$2.$3
  if ! strace -f -c -o "$out" "$bin" --workload "$2" --only "$1" --queries "$3" >"$out.log" 2>&1; then
    cat "$out.log" >&2
    echo "syscalls.sh: $1 on $2 failed" >&2
    exit 1
  fi
}

printf '%-10s %-6s %9s   %s\n' workload path 'calls/q' 'the most frequent, per query'
for w in "${workloads[@]}"; do
  for p in floor dal; do
    trace "$p" "$w" "$queries"
    trace "$p" "$w" $((2 * queries))
    # The runs' timed queries, as the program counted them (whole cycles).
    n1=$(sed -n 's/.*: \([0-9]*\) instrumented queries.*/\1/p' "$tmp/$p.$w.$queries.log")
    n2=$(sed -n 's/.*: \([0-9]*\) instrumented queries.*/\1/p' "$tmp/$p.$w.$((2 * queries)).log")
    # strace -c rows: % time, seconds, usecs/call, calls, [errors,] syscall.
    awk -v n="$((n2 - n1))" -v w="$w" -v p="$p" '
      $1 ~ /^[0-9.]+$/ && $NF != "total" { calls = $4; name = $NF; c[FILENAME, name] = calls; names[name] = 1 }
      END {
        total = 0; line = ""
        for (s in names) { d[s] = (c[ARGV[2], s] - c[ARGV[1], s]) / n; if (d[s] > 0) total += d[s] }
        # the five largest, in order
        for (k = 0; k < 5; k++) {
          best = ""; for (s in d) if (d[s] > 0.005 && (best == "" || d[s] > d[best])) best = s
          if (best == "") break
          line = line sprintf("%s%s %.2f", line == "" ? "" : ", ", best, d[best]); delete d[best]
        }
        printf "%-10s %-6s %9.2f   %s\n", w, p, total, line
      }' "$tmp/$p.$w.$queries" "$tmp/$p.$w.$((2 * queries))"
  done
done
echo "(strace -f -c, runs of $queries and $((2 * queries)) queries per path and workload)"
