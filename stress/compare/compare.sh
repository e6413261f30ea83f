#!/usr/bin/env bash
# `npm run stress:compare -- [flags]`: builds what is missing into build/
# (scripts/setup.sh, as `npm run stress` does) unless --out names another
# build, then runs the comparison (stress/compare/main.js).  The table goes to
# stdout; setup output and per-run progress to stderr.  Exit codes:
# docs/compare.md (0 ok, 1 leak, 2 usage/output, 3 a run failed, 130 Ctrl-C).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)

needs_setup=1
for a in "$@"; do
  case "$a" in --help|-h|--out|--out=*) needs_setup=0 ;; esac
done
# shellcheck source=../../scripts/lib/run_setup.sh
. "$root/scripts/lib/run_setup.sh"
if [ "$needs_setup" = 1 ]; then
  run_setup stress:compare "$root"
fi
exec node "$root/stress/compare/main.js" "$@"
