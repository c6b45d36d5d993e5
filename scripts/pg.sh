#!/usr/bin/env bash
# A throwaway local PostgreSQL server for tests and the demo (docs/testbed.md).
#   scripts/pg.sh up     [--run-dir DIR] [--port P] [--durable]
#   scripts/pg.sh down   [--run-dir DIR]
#   scripts/pg.sh status [--run-dir DIR]
#   scripts/pg.sh restart ...   (down, then up with the same options)
#   scripts/pg.sh bounce [--run-dir DIR]   (stop and start the server, keeping its data)
#   scripts/pg.sh crash  [--run-dir DIR]   (SIGKILL postmaster and backends, keep the data)
#   scripts/pg.sh start  [--run-dir DIR]   (start on the kept data, as `up` started it)
# DIR defaults to <repo>/run/pg, P to 15432. `up` prints the connection URI and writes it
# to DIR/uri; the server listens on 127.0.0.1:P and a unix socket in DIR/socket, trusts
# every local connection (throwaway data only) and has a database `hetscale`. It runs
# with fsync=off, synchronous_commit=off and full_page_writes=off (fast, for tests),
# or with all three on under --durable (crash tests: a commit reported is on disk).
# `down` stops it and removes the data. `crash` and `start` leave the data in place, so a
# test can kill the server in the middle of its work and see what crash recovery keeps.
set -euo pipefail

SCRIPT=pg.sh
REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=lib/testbed-common.sh
source "$REPO/scripts/lib/testbed-common.sh"

PG_USER=postgres
DB_NAME=hetscale

usage() { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; }

parse_args() {
  VERB=${1:-}
  [ $# -gt 0 ] && shift
  RUN_DIR=$REPO/run/pg PORT=15432 DURABLE=0
  while [ $# -gt 0 ]; do
    case "$1" in
      --durable) DURABLE=1; shift ;;
      --run-dir) RUN_DIR=${2:?--run-dir needs a value}; shift 2 ;;
      --port) PORT=${2:?--port needs a value}; shift 2 ;;
      -h | --help) usage; exit 0 ;;
      *) die "unknown argument '$1' (try --help)" ;;
    esac
  done
  [[ "$PORT" =~ ^[0-9]+$ ]] && [ "$PORT" -ge 1024 ] && [ "$PORT" -le 65535 ] ||
    die "--port must be a number in 1024..65535, got '$PORT'"
  RUN_DIR=$(abs_path "$RUN_DIR")
  DATA=$RUN_DIR/data SOCK=$RUN_DIR/socket
  CG_NAME=hetscale-pg-$(dir_id "$RUN_DIR")
  cg_detect
  CG=$CG_ROOT/$CG_NAME
  PG_BIN=$(find /usr/lib/postgresql -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -n 1)
  [ -x "${PG_BIN:-}/initdb" ] || die "PostgreSQL server binaries not found (scripts/install-deps.sh)"
}

as_pg() { runuser -u "$PG_USER" -- "$@"; }

is_running() { [ -d "$DATA" ] && as_pg "$PG_BIN/pg_ctl" status -D "$DATA" >/dev/null 2>&1; }

uri() { echo "postgresql://$PG_USER@127.0.0.1:$(cat "$RUN_DIR/port")/$DB_NAME"; }

cmd_up() {
  if is_running; then
    say "already running in $RUN_DIR (nothing done)"
    uri
    return 0
  fi
  cleanup
  port_free "$PORT" || die "port $PORT is already in use (choose another with --port)"
  mkdir -p "$RUN_DIR"
  as_pg test -x "$RUN_DIR" || die "user $PG_USER cannot reach $RUN_DIR (a parent directory is not searchable)"
  install -d -o "$PG_USER" -g "$PG_USER" -m 700 "$DATA" "$SOCK" "$RUN_DIR/log"
  echo "$PORT" >"$RUN_DIR/port"
  as_pg "$PG_BIN/initdb" -D "$DATA" --no-sync --auth=trust --username="$PG_USER" \
    --encoding=UTF8 --locale=C >"$RUN_DIR/initdb.log" 2>&1 ||
    die "initdb failed (see $RUN_DIR/initdb.log)"
  local sync=off
  [ "$DURABLE" = 1 ] && sync=on
  echo "-c listen_addresses=127.0.0.1 -c port=$PORT -c unix_socket_directories=$SOCK -c fsync=$sync -c synchronous_commit=$sync -c full_page_writes=$sync" \
    >"$RUN_DIR/server-options"
  start_server
  as_pg "$PG_BIN/createdb" -h "$SOCK" -p "$PORT" "$DB_NAME" || die "createdb $DB_NAME failed"
  uri >"$RUN_DIR/uri"
  say "up on 127.0.0.1:$PORT and $SOCK"
  cat "$RUN_DIR/uri"
}

# Starts the server on $DATA with the options `up` saved, in our cgroup.
start_server() {
  cg_create "$CG"
  cg_spawn "$CG" "$RUN_DIR/pg_ctl.log" runuser -u "$PG_USER" -- "$PG_BIN/pg_ctl" start -D "$DATA" -w -t 60 \
    -l "$RUN_DIR/log/postgres.log" -o "$(cat "$RUN_DIR/server-options")" ||
    die "server did not start (see $RUN_DIR/log/postgres.log)"
}

# SIGKILL to every process of the server at once (postmaster and backends: all of our
# cgroup), as a power cut would leave them; the data stays for `start`.
cmd_crash() {
  is_running || die "not running in $RUN_DIR"
  local i pids
  for i in $(seq 1 50); do
    pids=$(cg_pids "$CG")
    [ -z "$pids" ] && break
    # shellcheck disable=SC2086
    kill -KILL $pids 2>/dev/null || true
    sleep 0.1
  done
  [ -z "$(cg_pids "$CG")" ] || die "processes of the server survived SIGKILL"
  # The killed postmaster is reaped by init, not by us: until then pg_ctl sees it running.
  for i in $(seq 1 100); do
    is_running || break
    sleep 0.1
  done
  ! is_running || die "the killed postmaster was not reaped within 10 s"
  say "crashed: every process of the server in $RUN_DIR was killed, data kept"
}

cmd_start() {
  [ -f "$RUN_DIR/server-options" ] && [ -d "$DATA" ] || die "no server data in $RUN_DIR (use up)"
  if is_running; then
    say "already running in $RUN_DIR (nothing done)"
  else
    start_server
    say "started on the data in $RUN_DIR (after crash recovery, if it had crashed)"
  fi
  uri
}

# A fresh server process on the same data: PostgreSQL's shared buffers start empty.
cmd_bounce() {
  is_running || die "not running in $RUN_DIR (nothing to bounce)"
  PORT=$(cat "$RUN_DIR/port")
  as_pg "$PG_BIN/pg_ctl" stop -D "$DATA" -m fast -w -t 30 >/dev/null || die "pg_ctl stop failed"
  start_server
  say "bounced: up again on 127.0.0.1:$PORT with its data"
}

# Stops our server if it runs, kills what is left in our cgroup, removes the data.
cleanup() {
  if [ -f "$DATA/postmaster.pid" ] && is_running; then
    as_pg "$PG_BIN/pg_ctl" stop -D "$DATA" -m fast -w -t 10 >/dev/null 2>&1 || warn "pg_ctl stop failed"
  fi
  cg_destroy "$CG"
  rm -rf "$DATA" "$SOCK" "$RUN_DIR/uri" "$RUN_DIR/port" "$RUN_DIR/server-options"
}

cmd_down() {
  cleanup
  say "down: nothing of $RUN_DIR is running, data removed"
}

cmd_status() {
  if is_running; then
    say "running in $RUN_DIR: $(uri)"
  else
    say "not running ($RUN_DIR)"
    return 3
  fi
}

main() {
  parse_args "$@"
  [ "$(id -u)" -eq 0 ] || die "must run as root (runs the server as $PG_USER)"
  case "$VERB" in
    up) cmd_up ;;
    down) cmd_down ;;
    status) cmd_status ;;
    restart) cmd_down && cmd_up ;;
    bounce) cmd_bounce ;;
    crash) cmd_crash ;;
    start) cmd_start ;;
    -h | --help | "") usage; [ -n "$VERB" ] ;;
    *) die "unknown verb '$VERB' (up, down, status, restart, bounce, crash, start)" ;;
  esac
}

main "$@"
