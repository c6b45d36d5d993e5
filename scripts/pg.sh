#!/usr/bin/env bash
# A throwaway local PostgreSQL server for tests and the demo (docs/testbed.md).
#   scripts/pg.sh up     [--run-dir DIR] [--port P]
#   scripts/pg.sh down   [--run-dir DIR]
#   scripts/pg.sh status [--run-dir DIR]
#   scripts/pg.sh restart ...   (down, then up with the same options)
#   scripts/pg.sh bounce [--run-dir DIR]   (stop and start the server, keeping its data)
# DIR defaults to <repo>/run/pg, P to 15432. `up` prints the connection URI and writes it
# to DIR/uri; the server listens on 127.0.0.1:P and a unix socket in DIR/socket, trusts
# every local connection (throwaway data only) and has a database `hetscale`.
# `down` stops it and removes the data.
set -euo pipefail

SCRIPT=pg.sh
REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=lib/testbed-common.sh
source "$REPO/scripts/lib/testbed-common.sh"

PG_USER=postgres
DB_NAME=hetscale

usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; }

parse_args() {
  VERB=${1:-}
  [ $# -gt 0 ] && shift
  RUN_DIR=$REPO/run/pg PORT=15432
  while [ $# -gt 0 ]; do
    case "$1" in
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
  cg_create "$CG"
  start_server
  as_pg "$PG_BIN/createdb" -h "$SOCK" -p "$PORT" "$DB_NAME" || die "createdb $DB_NAME failed"
  uri >"$RUN_DIR/uri"
  say "up on 127.0.0.1:$PORT and $SOCK"
  cat "$RUN_DIR/uri"
}

# Starts the server on the data directory of $RUN_DIR, in our cgroup.
start_server() {
  cg_spawn "$CG" "$RUN_DIR/pg_ctl.log" runuser -u "$PG_USER" -- "$PG_BIN/pg_ctl" start -D "$DATA" -w -t 30 \
    -l "$RUN_DIR/log/postgres.log" \
    -o "-c listen_addresses=127.0.0.1 -c port=$PORT -c unix_socket_directories=$SOCK -c fsync=off -c synchronous_commit=off -c full_page_writes=off" ||
    die "server did not start (see $RUN_DIR/log/postgres.log)"
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
  rm -rf "$DATA" "$SOCK" "$RUN_DIR/uri" "$RUN_DIR/port"
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
    -h | --help | "") usage; [ -n "$VERB" ] ;;
    *) die "unknown verb '$VERB' (up, down, status, restart, bounce)" ;;
  esac
}

main "$@"
