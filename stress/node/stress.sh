#!/usr/bin/env bash
# `npm run stress -- [flags]`: the main job from a fresh clone.  Installs and
# builds what is missing (scripts/setup.sh; before it existed, scripts/deps.sh
# + scripts/build.sh), then runs the Node stress driver on the addon with the
# V8 flags it needs (see stress/node/main.js).  The report goes to stdout;
# setup and build output to stderr.  Exit code: 0 no leak, 1 leak, 2 error,
# 130 interrupted (Ctrl-C) during setup.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)

needs_build=1
for a in "$@"; do
  case "$a" in --help|-h) needs_build=0 ;; esac
done
if [ "$needs_build" = 1 ]; then
  if [ -f "$root/scripts/setup.sh" ]; then
    rc=0
    bash "$root/scripts/setup.sh" 1>&2 || rc=$?
    if [ "$rc" = 130 ]; then
      # Ctrl-C during setup is the user stopping us, not a broken setup:
      # say so and keep the shell's 130 so callers see an interrupt.
      echo "stress: interrupted" >&2
      exit 130
    elif [ "$rc" != 0 ]; then
      echo "stress: setup failed (scripts/setup.sh)" >&2
      exit 2
    fi
  else
    "$root/scripts/deps.sh" 1>&2
    log=$(mktemp)
    if ! "$root/scripts/build.sh" "$root/build" >"$log" 2>&1; then
      cat "$log" >&2
      rm -f "$log"
      echo "stress: build failed" >&2
      exit 2
    fi
    rm -f "$log"
  fi
fi

flags=(--expose-gc)
for a in "$@"; do
  [ "$a" = "--lite" ] && flags=(--expose-gc --lite-mode --no-expose-wasm)
done
exec node "${flags[@]}" "$root/stress/node/main.js" "$@"
