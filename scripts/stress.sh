#!/usr/bin/env bash
# The native stress driver, from a fresh clone: scripts/setup.sh installs and
# builds what is missing (one line on first use, logs in build/logs/), then
# dalstress runs on the embedded default (a fresh temporary SQLite database).
# Arguments go to dalstress (default: 100,000,000 reference queries; see
# docs/dalstress.md).  Exit code: 0 no leak, 1 leak, 2 error, 130 interrupted
# during setup.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh" "$root/build"
exec "$root/build/out/dalstress" "$@"
