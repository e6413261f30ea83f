# Sourced by the npm entry scripts (stress/node/stress.sh,
# stress/compare/compare.sh): the one way they run scripts/setup.sh first.
#
#   run_setup NAME ROOT
#
# Runs ROOT/scripts/setup.sh with its output on stderr (stdout is the
# report's).  Ctrl-C during setup is the user stopping us, not a broken
# setup: say "NAME: interrupted" and exit 130, the shell's code, so callers
# see an interrupt.  Any other failure: "NAME: setup failed" and exit 2.
run_setup() {
  local name=$1 root=$2 rc=0
  bash "$root/scripts/setup.sh" 1>&2 || rc=$?
  if [ "$rc" = 130 ]; then
    echo "$name: interrupted" >&2
    exit 130
  elif [ "$rc" != 0 ]; then
    echo "$name: setup failed (scripts/setup.sh)" >&2
    exit 2
  fi
}
