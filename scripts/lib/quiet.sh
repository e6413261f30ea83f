# quiet.sh -- sourced by the kit's scripts: run steps with their output in a
# log file that is shown only when the step fails, and report Ctrl-C as an
# interrupt rather than as a failure.
#
#   quiet_init NAME       NAME prefixes every message ("setup", "test")
#   quiet_step LOG WHAT CMD...
#                         runs CMD with stdout and stderr appended to LOG; on
#                         failure prints "NAME: WHAT failed (exit N)", the
#                         last lines of LOG and its path, and exits 2
#   quiet_say TEXT        one line on stderr, prefixed with NAME
#   quiet_rel PATH        PATH relative to the repository root, for messages
#
# Ctrl-C reaches the whole foreground process group; bash runs the INT trap
# once the interrupted child has returned, so an interrupted build ends as
# "NAME: interrupted" with exit 130 (128 + SIGINT), never "build failed".

quiet_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
quiet_name=dalkit
quiet_tail_lines=80

quiet_init() {
  quiet_name=$1
  trap 'quiet_say "interrupted"; exit 130' INT
  trap 'quiet_say "terminated"; exit 143' TERM
}

quiet_say() { printf '%s: %s\n' "$quiet_name" "$*" >&2; }

quiet_rel() {
  local p=$1
  case $p in
    "$quiet_root"/*) printf '%s' "${p#"$quiet_root"/}" ;;
    *) printf '%s' "$p" ;;
  esac
}

quiet_step() {
  local log=$1 what=$2 rc=0
  shift 2
  mkdir -p "$(dirname "$log")"
  { printf '\n==== %s: %s\n==== %s\n' "$(date -u '+%F %T UTC')" "$what" "$*"; } >>"$log"
  "$@" >>"$log" 2>&1 </dev/null || rc=$?
  if ((rc != 0)); then
    quiet_say "$what failed (exit $rc); last $quiet_tail_lines lines of $(quiet_rel "$log"):"
    tail -n "$quiet_tail_lines" "$log" >&2
    quiet_say "$what failed (exit $rc); full log: $(quiet_rel "$log")"
    exit 2
  fi
}
