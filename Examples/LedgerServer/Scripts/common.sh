# Shared by load.sh and kill-test.sh: building, starting and stopping the release server.
# Sourced, not run. Everything listens on 127.0.0.1 only.

SCRIPTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PACKAGE="$(cd "$SCRIPTS/.." && pwd)"
SERVER_PID=""
SERVER_URL=""
# release, or debug with --debug: a CI that has built the package for its tests already can
# check the server's behaviour without a release build (its figures are then not worth keeping).
CONFIGURATION=release

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

# start_server LOG DURABILITY OUTPUT_PREFIX: starts the server on a free port, waits (at most
# 120 s) until it listens, and sets SERVER_PID and SERVER_URL.
start_server() {
  local log="$1" durability="$2" out="$3"
  # Removed first: the child truncates the file only once it runs, and a look at it before
  # then would find the last server's line.
  rm -f "$out.stdout"
  "$SERVER_BIN" --host 127.0.0.1 --port 0 --log "$log" --durability "$durability" \
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
