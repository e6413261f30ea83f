#!/usr/bin/env bash
# Prepares a clone for the README's commands, doing only what is missing:
#   1. Debian packages (scripts/deps.sh), when any is missing;
#   2. the pinned npm packages (`npm ci`), when node_modules is missing or
#      older than package-lock.json;
#   3. the CMake build (Go DAL, C++ shim, Node addon, drivers, tests).
# Quiet: a line for each step that has work to do; apt, npm and build output
# go to logs under <build>/logs/, shown only when a step fails.
#
# Usage: scripts/setup.sh [BUILD_DIR [extra cmake args...]]   (default build/)
#        DALKIT_BUILD_TARGETS="t1 t2" builds only those targets.
# Exit: 0 ready, 2 failed (the log is shown), 130 interrupted (Ctrl-C).
set -euo pipefail
source "$(dirname "$0")/lib/quiet.sh"
quiet_init setup
root=$quiet_root
build=${1:-$root/build}
shift || true
logs=$build/logs
mkdir -p "$logs"

"$root/scripts/deps.sh" "$logs/apt.log" || exit 2

# npm ci replaces node_modules with exactly what package-lock.json pins; npm
# writes node_modules/.package-lock.json on every install, so a lock file
# newer than it means the pins changed since.
if [[ -f $root/package-lock.json ]] &&
  { [[ ! -f $root/node_modules/.package-lock.json ]] ||
    [[ $root/package-lock.json -nt $root/node_modules/.package-lock.json ]]; }; then
  quiet_say "installing the pinned npm packages (npm ci; log: $(quiet_rel "$logs/npm.log"))"
  quiet_step "$logs/npm.log" "npm ci" bash -c 'cd "$1" && npm ci --no-audit --no-fund' npm-ci "$root"
fi

# The kit's own builds treat warnings as errors (a consumer's plain cmake
# configure does not: CMakeLists.txt says why).  A build directory that was
# configured without it, by hand or by an older checkout, is configured
# again with it; its other settings (build type, ...) stay as they are.
configure=(cmake -S "$root" -B "$build" -G Ninja -DDALKIT_WERROR=ON "$@")
if [[ ! -f $build/build.ninja ]]; then
  parts="the Go DAL, the C++ shim"
  [[ -f $root/addon/CMakeLists.txt ]] && parts+=", the Node addon"
  quiet_say "first run: building $parts, the stress drivers and the tests into $(quiet_rel "$build")/" \
    "(3-6 min on 2 cores; log: $(quiet_rel "$logs/build.log"))"
  quiet_step "$logs/build.log" "configure (cmake)" "${configure[@]}"
elif (($#)) || ! grep -q '^DALKIT_WERROR:BOOL=ON$' "$build/CMakeCache.txt" 2>/dev/null; then
  (($#)) || quiet_say "configuring $(quiet_rel "$build")/ again with warnings as errors (-DDALKIT_WERROR=ON), as the kit's" \
    "own builds are (log: $(quiet_rel "$logs/build.log"))"
  quiet_step "$logs/build.log" "configure (cmake)" "${configure[@]}"
elif ! ninja -C "$build" -n 2>/dev/null | grep -q '^ninja: no work to do'; then
  quiet_say "rebuilding what changed in $(quiet_rel "$build")/ (log: $(quiet_rel "$logs/build.log"))"
fi
# DALKIT_BUILD_TARGETS (scripts/test.sh's compile-only phase): build just
# these targets instead of everything.
read -ra targets <<<"${DALKIT_BUILD_TARGETS:-}"
quiet_step "$logs/build.log" "build" cmake --build "$build" -j"$(nproc)" ${targets[@]+--target "${targets[@]}"}
