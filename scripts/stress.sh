#!/usr/bin/env bash
# The main job, from a fresh clone: installs what is missing, builds, and runs
# the native stress driver on the embedded default (a fresh temporary SQLite
# database). Arguments go to dalstress (default: 100,000,000 reference queries).
# Exit code: 0 no leak, 1 leak, 2 error.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh"
"$root/scripts/build.sh" "$root/build" >/dev/null
exec "$root/build/out/dalstress" "$@"
