#!/usr/bin/env bash
# The main job, from a fresh clone: installs what is missing, builds, and runs
# the native stress driver on the embedded default (a fresh temporary SQLite
# database). Arguments go to dalstress (default: 100,000,000 reference queries).
# Exit code: 0 no leak, 1 leak, 2 error.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh"
# The build's own output only matters when it fails: keep the stress
# report clean, but never hide why a build broke.
log=$(mktemp)
if ! "$root/scripts/build.sh" "$root/build" >"$log" 2>&1; then
  cat "$log" >&2
  rm -f "$log"
  echo "stress: build failed" >&2
  exit 2
fi
rm -f "$log"
exec "$root/build/out/dalstress" "$@"
