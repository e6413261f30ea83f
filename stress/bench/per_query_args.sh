# Sourced by instructions.sh and syscalls.sh: their shared command line,
#   [--build DIR] [--queries N] [workload ...]
# and set-up. The caller sets `queries` (its default), `tool` (the program
# it needs) and `help_lines` (the sed range of its usage comment) first;
# this sets build, queries, workloads, bin and tmp (removed at exit).
me=$(basename "$0")
build=build
workloads=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --queries) queries=$2; shift 2 ;;
    -h|--help) sed -n "$help_lines" "$0"; exit 0 ;;
    -*) echo "$me: unknown option $1" >&2; exit 2 ;;
    *) workloads+=("$1"); shift ;;
  esac
done
case "$queries" in ''|*[!0-9]*|0) echo "$me: --queries wants a positive integer, got '$queries'" >&2; exit 2 ;; esac
[ ${#workloads[@]} -gt 0 ] || workloads=(reference rows write mixed)
bin=$build/out/dal_floor_bench
[ -x "$bin" ] || { echo "$me: $bin not found; build first (cmake --build $build)" >&2; exit 2; }
command -v "$tool" >/dev/null || { echo "$me: $tool not found (apt-get install $tool)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
