#!/usr/bin/env bash
# Instructions per query, DAL (dal_query_into) and floor (SQLite alone), for
# each workload of dal_floor_bench, counted by callgrind.
#
#   stress/bench/instructions.sh [--build DIR] [--queries N] [workload ...]
#
# dal_floor_bench --only PATH runs one path on one thread: set-up, seed and
# a warm-up run uninstrumented, then callgrind instrumentation on
# (CALLGRIND_START_INSTRUMENTATION) for exactly the N timed queries, so
# start-up and building the requests are not counted, while everything the
# queries cost is, on every thread: Go's garbage collector and scheduler
# included. Instructions repeat run to run within a fraction of a percent,
# where wall time on a shared machine moves by tens of percent.
set -euo pipefail

queries=20000
tool=valgrind
help_lines=2,13p
# shellcheck source=per_query_args.sh
. "$(dirname "$0")/per_query_args.sh"

# count PATH WORKLOAD: prints instructions per query.
count() {
  local out=$tmp/$2.$1
  # asyncpreemptoff: Valgrind cannot deliver Go's preemption signal safely.
  if ! GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$out.cg" \
      "$bin" --workload "$2" --only "$1" --queries "$queries" >"$out.log" 2>&1; then
    cat "$out.log" >&2
    echo "instructions.sh: $1 on $2 failed" >&2
    exit 1
  fi
  local n total
  # The program says how many queries it ran (whole cycles of the workload).
  n=$(sed -n 's/.*: \([0-9]*\) instrumented queries.*/\1/p' "$out.log")
  total=$(awk '$1 == "summary:" || $1 == "totals:" { t = $2 } END { print t }' "$out.cg")
  [ -n "$n" ] && [ -n "$total" ] || { cat "$out.log" >&2; echo "instructions.sh: no count for $1 on $2" >&2; exit 1; }
  echo $((total / n))
}

printf '%-10s %14s %14s %10s\n' workload 'floor instr/q' 'dal instr/q' dal/floor
for w in "${workloads[@]}"; do
  f=$(count floor "$w")
  d=$(count dal "$w")
  printf '%-10s %14s %14s %9.3fx\n' "$w" "$f" "$d" "$(echo "$d / $f" | bc -l)"
done
echo "($queries queries per path and workload, callgrind, $(valgrind --version))"
