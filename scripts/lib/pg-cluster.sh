#!/usr/bin/env bash
# pg-cluster.sh -- a throwaway PostgreSQL primary and streaming replica for
# the tests, under build/pg-test/ (or, run as root from a checkout the
# postgres user cannot enter, in a temporary directory linked from there),
# stopped and removed on every exit path.
#
#   scripts/lib/pg-cluster.sh run [--no-replica] -- CMD [ARG...]
#       Creates a cluster in a new temporary directory, starts the primary
#       and (unless --no-replica) a streaming replica made with
#       pg_basebackup, runs CMD with these variables set, then stops both
#       servers and removes the directory, whether CMD passed, failed or was
#       interrupted (Ctrl-C, SIGTERM). Exits with CMD's status.
#
#         DALKIT_PG_URL          the primary, as superuser postgres (trust)
#         DALKIT_PG_REPLICA_URL  the replica (unset with --no-replica)
#         DALKIT_PG_AUTH_URL     the primary as role dal_pw, with its password
#                                (scram-sha-256), to test authentication
#         DALKIT_PG_CLUSTER      the cluster's directory, for the commands below
#
#       CMD runs in a process group of its own, and this script forwards SIGINT,
#       SIGTERM and SIGHUP to CMD's process group once, then exits with
#       128 + the signal's number (Ctrl-C: 130) after CMD has exited: a
#       terminal's Ctrl-C reaches CMD once (not twice, from the terminal
#       and from here) even when CMD runs this script's caller again, and a
#       signal sent to this script's process alone (a driver's `kill`)
#       reaches CMD too.  The servers run in a session of their own as well,
#       so that a Ctrl-C meant for CMD does not shut them down under it.
#
#   scripts/lib/pg-cluster.sh stop-server DIR primary|replica
#       Stops a server of the cluster DIR at once (immediate shutdown: no
#       checkpoint, recovery on the next start, as after a crash).
#   scripts/lib/pg-cluster.sh start-server DIR primary|replica
#       Starts it again on the same port.
#
# Servers listen on 127.0.0.1 only (no Unix socket), on free ports. Run as
# root, initdb and the servers run as the postgres user, as PostgreSQL
# requires. The binaries are Debian's (postgresql, scripts/deps.sh), or
# those in DALKIT_PG_BIN. A cluster whose owning run died without cleaning
# up (kill -9) is removed by the next run.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
base=$root/build/pg-test

die() {
  echo "pg-cluster: $*" >&2
  exit 2
}

find_bin() {
  if [ -n "${DALKIT_PG_BIN:-}" ]; then
    [ -x "$DALKIT_PG_BIN/initdb" ] || die "DALKIT_PG_BIN=$DALKIT_PG_BIN has no initdb (Debian's are in /usr/lib/postgresql/N/bin: install the package postgresql with scripts/deps.sh)"
    echo "$DALKIT_PG_BIN"
    return
  fi
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  [ -n "$d" ] && [ -x "$d/initdb" ] || die "PostgreSQL server binaries not found (Debian package postgresql: run scripts/deps.sh, or set DALKIT_PG_BIN)"
  echo "$d"
}

bin=$(find_bin)
as_server=()
if [ "$(id -u)" -eq 0 ]; then
  id postgres >/dev/null 2>&1 || die "running as root, but there is no postgres user to run the servers as"
  as_server=(runuser -u postgres --)
fi

# From /: the postgres user may not be able to enter the caller's directory
# (every path given to the servers is absolute).
pg() { (cd / && "${as_server[@]}" "$bin/$1" "${@:2}"); }

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

free_port() {
  local p
  for _ in $(seq 50); do
    p=$((20000 + RANDOM % 20000))
    if port_free "$p"; then
      echo "$p"
      return
    fi
  done
  die "no free port found on 127.0.0.1"
}

# server_start DIR NAME: start DIR/NAME with its log in DIR/NAME.log.
server_start() {
  (cd / && setsid -w "${as_server[@]}" "$bin/pg_ctl" -D "$1/$2" -l "$1/$2.log" -w -t 60 start >/dev/null) ||
    die "$2 did not start; last lines of $1/$2.log:$(echo; tail -n 20 "$1/$2.log" 2>/dev/null)"
}

server_stop() {
  [ -f "$1/$2/postmaster.pid" ] || return 0
  pg pg_ctl -D "$1/$2" -m immediate -w -t 30 stop >/dev/null 2>&1 || true
}

# cluster_remove DIR: DIR is the cluster, or its link in $base (below).
cluster_remove() {
  local real
  real=$(readlink -f "$1")
  server_stop "$real" replica
  server_stop "$real" primary
  rm -rf "$real"
  [ "$real" = "$1" ] || rm -f "$1"
}

# Clusters left by runs that were killed before they could clean up.
remove_stale() {
  local d pid
  for d in "$base"/cluster.*; do
    if [ -L "$d" ] && [ ! -e "$d" ]; then
      rm -f "$d" # its temporary directory is gone already
      continue
    fi
    [ -d "$d" ] || continue
    pid=$(cat "$d/owner.pid" 2>/dev/null || echo 0)
    if [ "$pid" -gt 0 ] && kill -0 "$pid" 2>/dev/null; then
      continue
    fi
    cluster_remove "$d"
  done
}

configure_primary() {
  local dir=$1 port=$2
  cat >>"$dir/primary/postgresql.conf" <<EOF
# pg-cluster.sh: a test server, loopback only, fast rather than durable
# against power loss (a killed server still recovers every commit).
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = ''
fsync = off
full_page_writes = off
wal_level = replica
max_wal_senders = 4
hot_standby = on
max_connections = 100
shared_buffers = 32MB
EOF
  cat >"$dir/primary/pg_hba.conf" <<EOF
host all         dal_pw 127.0.0.1/32 scram-sha-256
host all         all    127.0.0.1/32 trust
host replication all    127.0.0.1/32 trust
EOF
}

start_cluster() {
  local with_replica=$1 dir port rport
  mkdir -p "$base"
  remove_stale
  if [ ${#as_server[@]} -gt 0 ] && ! "${as_server[@]}" test -x "$base"; then
    # Run as root from a checkout the postgres user cannot reach (under
    # /root, say): the cluster lives in a temporary directory instead, and
    # build/pg-test/ holds a link to it, so that a killed run's cluster is
    # still found and removed by the next run.
    dir=$(mktemp -d "${TMPDIR:-/tmp}/dalkit-pg.XXXXXX")
    cluster_link=$base/cluster.${dir##*.}
    ln -s "$dir" "$cluster_link"
  else
    dir=$(mktemp -d "$base/cluster.XXXXXX")
  fi
  echo $$ >"$dir/owner.pid"
  chmod 755 "$dir"
  [ ${#as_server[@]} -eq 0 ] || chown postgres "$dir"
  cluster=$dir
  pg initdb -D "$dir/primary" -U postgres --auth=trust -E UTF8 --locale=C --no-sync --no-instructions >"$dir/initdb.log" 2>&1 ||
    die "initdb failed; see $dir/initdb.log:$(echo; tail -n 20 "$dir/initdb.log")"
  port=$(free_port)
  configure_primary "$dir" "$port"
  server_start "$dir" primary
  "$bin/psql" -X -q -h 127.0.0.1 -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 \
    -c "CREATE ROLE dal_pw LOGIN PASSWORD 'dal-test-secret'; GRANT CREATE ON DATABASE postgres TO dal_pw" >/dev/null
  export DALKIT_PG_URL="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
  export DALKIT_PG_AUTH_URL="postgres://dal_pw:dal-test-secret@127.0.0.1:$port/postgres?sslmode=disable"
  export DALKIT_PG_CLUSTER=$dir
  if [ "$with_replica" = 1 ]; then
    pg pg_basebackup -h 127.0.0.1 -p "$port" -U postgres -D "$dir/replica" -R -X stream --no-sync >"$dir/basebackup.log" 2>&1 ||
      die "pg_basebackup failed; see $dir/basebackup.log:$(echo; tail -n 20 "$dir/basebackup.log")"
    rport=$(free_port)
    echo "port = $rport" | "${as_server[@]}" tee -a "$dir/replica/postgresql.auto.conf" >/dev/null
    server_start "$dir" replica
    export DALKIT_PG_REPLICA_URL="postgres://postgres@127.0.0.1:$rport/postgres?sslmode=disable"
  fi
}

case "${1:-}" in
  run)
    shift
    with_replica=1
    if [ "${1:-}" = --no-replica ]; then
      with_replica=0
      shift
    fi
    [ "${1:-}" = -- ] || die "usage: $0 run [--no-replica] -- CMD [ARG...]"
    shift
    [ $# -gt 0 ] || die "run: no command given"
    cluster= cluster_link=
    trap '[ -z "$cluster" ] || cluster_remove "$cluster"; [ -z "$cluster_link" ] || rm -f "$cluster_link"' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    trap 'exit 129' HUP
    start_cluster "$with_replica"
    # With job control (set -m), only for starting it, CMD gets a process
    # group of its own (outside the terminal's foreground group), and not
    # what bash gives an asynchronous command without it: SIGINT and
    # SIGQUIT ignored, stdin from /dev/null.
    set -m
    "$@" &
    child=$! caught=0
    set +m
    forward() {
      caught=$2
      kill -s "$1" -- "-$child" 2>/dev/null || true
    }
    trap 'forward INT 130' INT
    trap 'forward TERM 143' TERM
    trap 'forward HUP 129' HUP
    set +e
    # wait returns early when a trapped signal arrives: wait again until
    # CMD itself has exited (and been reaped, so kill -0 fails).
    while :; do
      wait "$child"
      rc=$?
      kill -0 "$child" 2>/dev/null || break
    done
    set -e
    [ "$caught" -eq 0 ] || rc=$caught
    exit $rc
    ;;
  stop-server | start-server)
    [ $# -eq 3 ] && [ -d "$2/$3" ] || die "usage: $0 $1 DIR primary|replica"
    if [ "$1" = stop-server ]; then server_stop "$2" "$3"; else server_start "$2" "$3"; fi
    ;;
  *)
    die "usage: $0 run [--no-replica] -- CMD [ARG...] | stop-server DIR NAME | start-server DIR NAME"
    ;;
esac
