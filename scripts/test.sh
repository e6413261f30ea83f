#!/usr/bin/env bash
# The whole test suite, from a fresh clone (what CI runs, via .ci/run and
# `npm test`):
#   1. scripts/setup.sh: Debian and npm packages when missing, build/;
#   2. every ctest test in build/: Go unit/race/fuzz, GoogleTests, Valgrind,
#      end-to-end stress tests, Node tests (label node), build checks;
#   3. a Release build (-O3, the optimiser a consumer's release build uses)
#      in build-release/ and its ctest run, minus the labels that do not
#      depend on the C/C++ build type: go (the Go toolchain builds the DAL
#      the same way), valgrind (Memcheck of the plain build is the one
#      that counts), lint and configure (the sources and the configure step
#      are the same), compare and browser (stress:compare reruns the same
#      drivers, and the report page is the same JS), ffi (the Bun, Deno and
#      koffi suites run the same JS over libdalshim.so, which the shim,
#      stress and Node tests of this phase exercise as built here), and the
#      long Node runs whose subject is JS (the clean and workload stress
#      runs, the JS-heap plants and the --target runs: the addon calls they
#      make are the ones node_queries, node_raw and the rest check here),
#      and targets (the leak fixtures' verdict runs: test fixtures, not the
#      kit's code);
#   4. clang: the kit's product code (libdalshim.so, the addon, dalstress,
#      the tracer) compiled by clang as Release, warnings as errors:
#      compile-only, counted as one check (the tests ran in 2 and 3);
#   5. the ASan + UBSan + LSan build in build-asan/ and its ctest run, minus
#      the labels go and valgrind (the same Go code and Valgrind runs as in 2;
#      only the instrumented C/C++ and the addon are worth repeating) and
#      targets (the leak fixtures' verdict runs judge test fixtures).
# Every build is configured with -DDALKIT_WERROR=ON (scripts/setup.sh), and
# the fuzzers run 30 s each (-DDALKIT_FUZZ_SECONDS; the committed corpora
# replay in full either way).
# Quiet: build, apt and npm output go to <build>/logs/ and are shown only on
# failure; ctest's full output is in <build>/logs/ctest.log, the terminal
# gets progress, failures with their output, ctest's summary, every skipped
# test with its reason, and last a line "N passed, N failed, N skipped".
# Exit: 0 all passed, 1 a test or a build failed, 130 interrupted.
set -euo pipefail
source "$(dirname "$0")/lib/quiet.sh"
quiet_init test
root=$quiet_root
cd "$root"
lib=$root/scripts/lib

counts=$(mktemp)
trap 'rm -f "$counts"' EXIT

# run_ctest PHASE BUILD_DIR [ctest args...]: a failing test does not stop
# the suite; the counts decide the exit code at the end.
run_ctest() {
  local phase=$1 dir=$2
  shift 2
  local logs=$dir/logs
  mkdir -p "$logs"
  rm -f "$logs/ctest-junit.xml"
  quiet_say "$phase: ctest in $(quiet_rel "$dir")/${*:+ $*} (full output: $(quiet_rel "$logs/ctest.log"))"
  (cd "$dir" && ctest --output-on-failure -j2 --timeout 1200 --output-junit "$logs/ctest-junit.xml" "$@") 2>&1 |
    python3 "$lib/ctest_filter.py" "$phase" "$logs/ctest.log" || true
  python3 "$lib/ctest_summary.py" "$phase" "$logs/ctest-junit.xml" "$counts"
}

# setup_or_record PHASE BUILD_DIR [cmake args...]: a build that fails is
# counted as one failure of that phase (its log was shown by setup.sh).
setup_or_record() {
  local phase=$1
  shift
  local rc=0
  scripts/setup.sh "$@" || rc=$?
  ((rc != 130)) || exit 130
  if ((rc != 0)); then
    echo "0 1 0" >>"$counts"
    quiet_say "$phase: not run: the build failed"
    return 1
  fi
}

# Minutes and seconds since $1 (a $SECONDS value).
took() { printf '%d:%02d' $(((SECONDS - $1) / 60)) $(((SECONDS - $1) % 60)); }

t0=$SECONDS
times=()
t=$SECONDS
fuzz=-DDALKIT_FUZZ_SECONDS=30
if setup_or_record plain "$root/build" "$fuzz"; then
  times+=("build $(took "$t")")
  t=$SECONDS
  run_ctest plain "$root/build"
  times+=("tests $(took "$t")")
fi
t=$SECONDS
if setup_or_record release "$root/build-release" -DCMAKE_BUILD_TYPE=Release; then
  times+=("Release build $(took "$t")")
  t=$SECONDS
  run_ctest release "$root/build-release" -LE 'go|valgrind|lint|configure|compare|browser|ffi|targets' \
    -E '^(node_(stress_clean|stress_workload|stress_plant_js_.*|target_.*)|postgres_.*)$'
  times+=("Release tests $(took "$t")")
fi
t=$SECONDS
if DALKIT_BUILD_TARGETS="dalshim dalkit_node dalstress dalkit_tracer" \
  setup_or_record clang "$root/build-clang" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++; then
  echo "1 0 0" >>"$counts"
  quiet_say "clang: 1 passed, 0 failed, 0 skipped (the product code compiles without a warning)"
  times+=("clang build $(took "$t")")
fi
t=$SECONDS
if setup_or_record asan "$root/build-asan" -DDALKIT_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug "$fuzz"; then
  times+=("ASan build $(took "$t")")
  t=$SECONDS
  run_ctest asan "$root/build-asan" -LE 'go|valgrind|targets'
  times+=("ASan tests $(took "$t")")
fi

times_txt=""
for x in "${times[@]}"; do times_txt+="${times_txt:+, }$x"; done
read -r passed failed skipped < <(awk '{p+=$1; f+=$2; s+=$3} END {print p+0, f+0, s+0}' "$counts")
quiet_say "ran: ctest in build/ (every label), in build-release/ (Release; every label but go, valgrind, lint," \
  "configure, compare, browser, ffi and targets, the long JS-subject Node runs and the drivers' postgres_* runs), a clang build of the product code in build-clang/, and in build-asan/ (ASan+UBSan+LSan;" \
  "every label but go, valgrind and targets);" \
  "took $(took "$t0")${times_txt:+ ($times_txt)}"
echo "$passed passed, $failed failed, $skipped skipped"
((failed == 0)) || exit 1
