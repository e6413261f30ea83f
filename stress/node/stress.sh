#!/usr/bin/env bash
# `npm run stress -- [flags]`: the main job from a fresh clone.  Installs and
# builds what is missing (scripts/setup.sh), then runs the Node stress driver on the addon with the
# V8 flags it needs (see stress/node/main.js).  The report goes to stdout;
# setup and build output to stderr.  Exit code: 0 no leak, 1 leak, 2 error,
# 130 interrupted (Ctrl-C) during setup.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)

needs_build=1
for a in "$@"; do
  case "$a" in --help|-h) needs_build=0 ;; esac
done
# shellcheck source=../../scripts/lib/run_setup.sh
. "$root/scripts/lib/run_setup.sh"
if [ "$needs_build" = 1 ]; then
  run_setup stress "$root"
fi

flags=(--expose-gc)
for a in "$@"; do
  [ "$a" = "--lite" ] && flags=(--expose-gc --lite-mode --no-expose-wasm)
done
exec node "${flags[@]}" "$root/stress/node/main.js" "$@"
