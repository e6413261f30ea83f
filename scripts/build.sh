#!/usr/bin/env bash
# Builds the kit: the same as scripts/setup.sh (Debian and npm packages when
# missing, then the CMake build), kept for instructions that name build.sh.
# Usage: scripts/build.sh [BUILD_DIR [extra cmake args...]]
exec "$(dirname "$0")/setup.sh" "$@"
