# Shared by load.sh and kill-test.sh: building, starting and stopping the release server, and
# for `--journal postgres` a throwaway PostgreSQL cluster. Sourced, not run. Everything listens
# on 127.0.0.1 only; the cluster listens on a unix socket in its temporary directory only.

SCRIPTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PACKAGE="$(cd "$SCRIPTS/.." && pwd)"
SERVER_PID=""
SERVER_URL=""
# release, or debug with --debug: a CI that has built the package for its tests already can
# check the server's behaviour without a release build (its figures are then not worth keeping).
CONFIGURATION=release
# file, or postgres (--journal postgres): the server's journal.
JOURNAL=file
PG_DIR=""
PG_BIN_DIR=""
PG_STREAM=ledger

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

need_wrk() {
  if ! command -v wrk >/dev/null 2>&1; then
    echo "wrk is missing: installing Debian's package" >&2
    (apt-get install -y -qq wrk >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq wrk; }) \
      || fail "could not install wrk (apt-get install wrk)"
  fi
}

build_server() {
  swift build -c "$CONFIGURATION" --package-path "$PACKAGE" --product ledger-server >&2 \
    || fail "the $CONFIGURATION build of ledger-server failed"
  SERVER_BIN="$(swift build -c "$CONFIGURATION" --package-path "$PACKAGE" --show-bin-path)/ledger-server"
  [ -x "$SERVER_BIN" ] || fail "no ledger-server at $SERVER_BIN"
}

# Runs a command as the postgres user when this script runs as root (initdb and pg_ctl refuse
# root), from / (which that user can enter).
as_postgres() {
  if [ "$(id -u)" -eq 0 ]; then
    (cd / && runuser -u postgres -- "$@")
  else
    (cd / && "$@")
  fi
}

# start_postgres: makes and starts a throwaway cluster (Debian's postgresql package, installed
# when missing, or PG_BIN's binaries) in a temporary directory, reached through a unix socket
# there; sets PG_DIR. stop_postgres removes it.
start_postgres() {
  if [ -n "${PG_BIN:-}" ]; then
    PG_BIN_DIR="$PG_BIN"
  else
    if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
      echo "PostgreSQL is missing: installing Debian's package" >&2
      (apt-get install -y -qq postgresql >/dev/null 2>&1 \
        || { apt-get update -qq && apt-get install -y -qq postgresql; }) \
        || fail "could not install PostgreSQL (apt-get install postgresql)"
    fi
    PG_BIN_DIR="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
  fi
  [ -x "$PG_BIN_DIR/initdb" ] || fail "no initdb in $PG_BIN_DIR"
  PG_DIR="$(mktemp -d "${TMPDIR:-/tmp}/ledger-pg-XXXXXX")"
  if [ "$(id -u)" -eq 0 ]; then chown postgres:postgres "$PG_DIR"; fi
  as_postgres "$PG_BIN_DIR/initdb" -D "$PG_DIR/data" -U postgres -A trust --no-sync \
    --locale=C >"$PG_DIR/initdb.txt" 2>&1 || { cat "$PG_DIR/initdb.txt" >&2; fail "initdb failed"; }
  as_postgres "$PG_BIN_DIR/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
    -o "-k $PG_DIR -c listen_addresses=''" start >/dev/null \
    || { cat "$PG_DIR/server.log" >&2; fail "PostgreSQL did not start"; }
}

# stop_postgres: stops the cluster start_postgres made, if any, and removes its directory.
stop_postgres() {
  [ -n "$PG_DIR" ] || return 0
  as_postgres "$PG_BIN_DIR/pg_ctl" -D "$PG_DIR/data" -w -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$PG_DIR"
  PG_DIR=""
}

# dump_postgres LOG: writes the stream's stored lines, in seq order, to LOG: the chained log
# that reduce-audit and ledger_check.py read.
dump_postgres() {
  "$PG_BIN_DIR/psql" -h "$PG_DIR" -U postgres -d postgres -X -q -At -v ON_ERROR_STOP=1 \
    -c "SELECT convert_from(line, 'UTF8') FROM reduce_journal WHERE stream = '$PG_STREAM' ORDER BY seq" \
    >"$1" || fail "psql could not read the journal"
}

# start_server LOG DURABILITY OUTPUT_PREFIX: starts the server on a free port, waits (at most
# 120 s) until it listens, and sets SERVER_PID and SERVER_URL. With JOURNAL=postgres the
# journal is the stream PG_STREAM of start_postgres's cluster, and LOG and DURABILITY are not
# used.
start_server() {
  local log="$1" durability="$2" out="$3"
  local journal=(--log "$log" --durability "$durability")
  if [ "$JOURNAL" = postgres ]; then
    # PG_HOLDER_LEASE=ignore: the caller killed the previous server itself (kill-test.sh).
    journal=(--journal postgres --pg-socket "$PG_DIR" --pg-stream "$PG_STREAM"
      --pg-writer ledger-script --pg-holder-lease "${PG_HOLDER_LEASE:-wait}")
  fi
  # Removed first: the child truncates the file only once it runs, and a look at it before
  # then would find the last server's line.
  rm -f "$out.stdout"
  "$SERVER_BIN" --host 127.0.0.1 --port 0 "${journal[@]}" \
    --log-level warning >"$out.stdout" 2>>"$out.stderr" &
  SERVER_PID=$!
  local waited=0
  while ! grep -q "listening on" "$out.stdout" 2>/dev/null; do
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
      cat "$out.stderr" >&2
      fail "the server exited before it listened"
    fi
    sleep 0.05
    waited=$((waited + 1))
    [ "$waited" -lt 2400 ] || fail "the server did not listen within 120 s"
  done
  SERVER_URL="$(sed -n 's/^ledger-server listening on //p' "$out.stdout" | head -n 1)"
  case "$SERVER_URL" in
    http://127.0.0.1:*) ;;
    *) fail "unexpected listening address: $SERVER_URL" ;;
  esac
}

# stop_server: SIGTERM, then waits (at most 30 s) and fails unless the server exited 0.
stop_server() {
  [ -n "$SERVER_PID" ] || return 0
  kill -TERM "$SERVER_PID" 2>/dev/null || true
  local status=0 waited=0
  while kill -0 "$SERVER_PID" 2>/dev/null; do
    sleep 0.05
    waited=$((waited + 1))
    if [ "$waited" -ge 600 ]; then
      kill -KILL "$SERVER_PID" 2>/dev/null || true
      fail "the server did not exit within 30 s of SIGTERM"
    fi
  done
  wait "$SERVER_PID" || status=$?
  SERVER_PID=""
  [ "$status" -eq 0 ] || fail "the server exited $status after SIGTERM"
}

# kill_server: SIGKILL, and waits until it is gone.
kill_server() {
  [ -n "$SERVER_PID" ] || return 0
  kill -KILL "$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=""
}

# Ends the server this script started (by its process id) if the script stops early.
cleanup_server() {
  if [ -n "$SERVER_PID" ]; then
    kill -KILL "$SERVER_PID" 2>/dev/null || true
  fi
}
