#!/usr/bin/env bash
# Installs what the kit needs to build and test, from Debian's packages only.
# Go comes with the machine (Debian's golang is too old for the `valgrind`
# build tag and cgo noescape); everything else is installed when missing.
set -euo pipefail

packages=(cmake ninja-build g++ pkg-config libsqlite3-dev libmsgpack-cxx-dev libffi-dev libgtest-dev valgrind python3 clang)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "deps: installing ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! command -v go >/dev/null; then
  echo "deps: Go (1.25 or newer) is required and was not found on PATH" >&2
  exit 2
fi
go_minor=$(go env GOVERSION | sed -E 's/^go1\.([0-9]+).*/\1/')
if ((go_minor < 25)); then
  echo "deps: Go 1.25 or newer is required, found $(go env GOVERSION)" >&2
  exit 2
fi
