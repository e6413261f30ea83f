#!/usr/bin/env bash
# Installs what the kit needs to build and test, from Debian's packages only.
# Go and Node.js come with the machine (Debian 12's golang is too old for the
# DAL; Node.js 20.19+ with npm is expected on PATH); everything else is
# installed with apt-get when missing.
#
# Usage: scripts/deps.sh [LOG]   apt-get's output goes to LOG (default: the
#                                terminal); one line says what is installed.
# Exit: 0 ready, 2 something missing that apt-get cannot install.
set -euo pipefail

# chromium: the HTML report's browser test (tests/report) opens pages in it.
# clang: libFuzzer (tests/fuzz); clang-format: the format ctest (tests/lint).
# postgresql: the server binaries (initdb, pg_ctl, pg_basebackup) with which
# scripts/lib/pg-cluster.sh starts the tests' throwaway primary and replica.
packages=(cmake ninja-build g++ pkg-config libsqlite3-dev libmsgpack-cxx-dev nlohmann-json3-dev libffi-dev libgtest-dev valgrind python3 clang clang-format chromium postgresql)
log=${1:-/dev/stderr}

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  echo "deps: installing Debian packages: ${missing[*]}${1:+ (log: $1)}" >&2
  if ! {
    "${sudo_cmd[@]}" apt-get update -q &&
      DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q "${missing[@]}"
  } >>"$log" 2>&1 </dev/null; then
    if [[ -n ${1:-} ]]; then
      echo "deps: apt-get failed; last 40 lines of $1:" >&2
      tail -n 40 "$1" >&2
    fi
    echo "deps: could not install ${missing[*]}" >&2
    exit 2
  fi
fi

if ! command -v go >/dev/null; then
  echo "deps: Go 1.25 or newer is required and was not found on PATH" >&2
  exit 2
fi
go_minor=$(go env GOVERSION | sed -E 's/^go1\.([0-9]+).*/\1/')
if ((go_minor < 25)); then
  echo "deps: Go 1.25 or newer is required, found $(go env GOVERSION)" >&2
  exit 2
fi
# Node.js: package.json's "engines" (20.19 loads ES modules with require()).
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "deps: Node.js 20.19 or newer with npm is required and was not found on PATH" >&2
  exit 2
fi
if ! node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)'; then
  echo "deps: Node.js 20.19 or newer is required, found $(node --version)" >&2
  exit 2
fi
