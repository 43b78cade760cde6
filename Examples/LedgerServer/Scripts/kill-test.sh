#!/usr/bin/env bash
# Kill test of the ledger server over HTTP on 127.0.0.1: the release server, with a durable
# journal, is killed with SIGKILL N times while wrk sends it transfers. After each restart:
#   - every transfer that was answered 200 (wrk's response hook records its reference) is an
#     applied entry of the journal;
#   - the balances the server answers are the fold of the journal, and sum to what was
#     deposited (transfers conserve the total);
#   - `reduce-audit verify` passes on the journal.
# At the end the server is stopped with SIGTERM, which must exit 0, and the journal verified.
# With --journal postgres the journal is a stream of a throwaway PostgreSQL cluster (made in a
# temporary directory, a unix socket only, removed at the end), whose rows are read back with
# psql as a log file before each check.
#
# usage: Scripts/kill-test.sh [N] [--short] [--durability durable|buffered] [--debug]
#                             [--journal file|postgres]
#   N         how many kills (default 50, at most 500)
#   --short   5 kills, for CI (an explicit N wins)
#   --debug   the debug build of the server instead of the release build
#   --journal file (the default) or postgres (then --durability does not apply)
# Exits non-zero on any failure.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

kills=""
short=0
durability=durable
while [ $# -gt 0 ]; do
  case "$1" in
    --short) short=1 ;;
    --debug) CONFIGURATION=debug ;;
    --durability) shift; durability="${1:-}" ;;
    --journal) shift; JOURNAL="${1:-}" ;;
    [0-9]*) kills="$1" ;;
    *) echo "usage: $0 [N] [--short] [--durability durable|buffered] [--debug] [--journal file|postgres]" >&2; exit 64 ;;
  esac
  shift
done
if [ -z "$kills" ]; then kills=$([ "$short" = 1 ] && echo 5 || echo 50); fi
[[ "$kills" =~ ^[0-9]+$ ]] && [ "$kills" -ge 1 ] && [ "$kills" -le 500 ] \
  || { echo "N takes 1 to 500" >&2; exit 64; }
case "$durability" in durable|buffered) ;; *) echo "--durability: durable or buffered" >&2; exit 64 ;; esac
case "$JOURNAL" in file|postgres) ;; *) echo "--journal: file or postgres" >&2; exit 64 ;; esac

need_wrk
build_server
swift build --package-path "$PACKAGE/../.." --product reduce-audit >&2 \
  || fail "the build of reduce-audit failed"
AUDIT="$(swift build --package-path "$PACKAGE/../.." --show-bin-path)/reduce-audit"
[ -x "$AUDIT" ] || fail "no reduce-audit at $AUDIT"

work="$(mktemp -d)"
WRK_PID=""
trap 'cleanup_server; [ -z "$WRK_PID" ] || kill "$WRK_PID" 2>/dev/null || true; stop_postgres; rm -rf "$work"' EXIT
log="$work/ledger.log"
acks="$work/acks"
mkdir -p "$acks"
accounts=16
deposit=1000000
total=$((accounts * deposit))

verify() {
  if [ "$JOURNAL" = postgres ]; then dump_postgres "$log"; fi
  "$AUDIT" verify "$log" >"$work/verify.txt" 2>&1 || { cat "$work/verify.txt" >&2; fail "reduce-audit verify: $1"; }
}
check() {
  python3 "$SCRIPTS/ledger_check.py" check "$SERVER_URL" "$log" "$acks" "$accounts" "$total" \
    || fail "the ledger does not match its journal: $1"
}

journal_name="$durability file"
if [ "$JOURNAL" = postgres ]; then
  start_postgres
  journal_name="PostgreSQL"
fi
echo "ledger-server kill test ($CONFIGURATION build): $kills kills, $journal_name journal, $(nproc) cores"
start_server "$log" "$durability" "$work/server"
python3 "$SCRIPTS/ledger_check.py" seed "$SERVER_URL" "$accounts" "$deposit"
started=$(date +%s)
for kill in $(seq 1 "$kills"); do
  # Load for 2 s; the kill comes 0.3 to 1.2 s in, while transfers are in flight.
  LEDGER_ACCOUNTS=$accounts LEDGER_RUN="k$kill" LEDGER_ACKS="$acks" \
    wrk -t 2 -c 8 -d 2s --timeout 5s -s "$SCRIPTS/transfers.lua" "$SERVER_URL" \
    >"$work/wrk-$kill.txt" 2>&1 &
  WRK_PID=$!
  sleep "0.$((3 + RANDOM % 10))"
  kill_server
  wait "$WRK_PID" || true
  WRK_PID=""
  acked=$(cat "$acks"/acks-k"$kill"-*.txt 2>/dev/null | wc -l)

  # The script killed the server itself: the restart need not wait out its PostgreSQL lease.
  PG_HOLDER_LEASE=ignore start_server "$log" "$durability" "$work/server"
  verify "after kill $kill"
  summary="$(check "after kill $kill")"
  echo "kill $kill: $acked transfers answered before it; $summary"
done
elapsed=$(( $(date +%s) - started ))
# A run in which no transfer was ever answered would have checked nothing.
total_acked=$(cat "$acks"/*.txt 2>/dev/null | wc -l)
[ "$total_acked" -gt 0 ] || fail "no transfer was answered in $kills rounds of load"
stop_server
verify "after SIGTERM"
torn=$(ls "$log".torn* 2>/dev/null | wc -l || true)
echo "kill test: passed: $kills kills in $elapsed s, $total_acked acknowledged transfers, all in the journal; $(wc -l <"$log") entries; $torn torn lines set aside; $(cat "$work/verify.txt")"
