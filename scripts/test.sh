#!/usr/bin/env bash
# The whole test suite, from a fresh clone: installs what is missing, builds,
# runs every test (Go unit/race/fuzz, GoogleTests, Valgrind), then rebuilds
# the C/C++ side with ASan+UBSan+LSan and runs the GoogleTests again.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

scripts/deps.sh

echo "== build (RelWithDebInfo) =="
scripts/build.sh "$root/build"
echo "== tests =="
(cd build && ctest --output-on-failure -j2 --timeout 1200)

echo "== sanitizer build (ASan + UBSan + LSan) =="
scripts/build.sh "$root/build-asan" -DDALKIT_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
echo "== tests under sanitizers =="
# Go's own tests and the Valgrind run are the same code as above; only the
# instrumented C/C++ tests are repeated.
(cd build-asan && ctest --output-on-failure -j2 --timeout 1200 -LE 'go|valgrind')
