#!/usr/bin/env bash
# Load test of the ledger server over HTTP on 127.0.0.1: wrk runs random transfers at 1, 8 and
# 64 connections, against the release server with a durable journal (fsync before each answer)
# and with a buffered one, and reports requests per second and the 99th percentile latency.
#
# With --journal postgres, the journal is instead a stream of a throwaway PostgreSQL cluster
# (a temporary directory, a unix socket only, removed at the end), each change committed before
# it is answered.
#
# usage: Scripts/load.sh [--short] [--seconds N] [--debug] [--journal file|postgres]
#   --short      1 s per run (for CI); the default is 5 s per run
#   --seconds N  N seconds per run (at most 60)
#   --debug      the debug build instead of the release build (checks, no figures)
#   --journal    file (durable, then buffered; the default) or postgres
# Exits non-zero if any request fails or is not answered 200, or the server does not shut down
# cleanly on SIGTERM.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

seconds=5
while [ $# -gt 0 ]; do
  case "$1" in
    --short) seconds=1 ;;
    --debug) CONFIGURATION=debug ;;
    --seconds) shift; seconds="${1:-}" ;;
    --journal) shift; JOURNAL="${1:-}" ;;
    *) echo "usage: $0 [--short] [--seconds N] [--debug] [--journal file|postgres]" >&2; exit 64 ;;
  esac
  shift
done
[[ "$seconds" =~ ^[0-9]+$ ]] && [ "$seconds" -ge 1 ] && [ "$seconds" -le 60 ] \
  || { echo "--seconds takes 1 to 60" >&2; exit 64; }
case "$JOURNAL" in file|postgres) ;; *) echo "--journal: file or postgres" >&2; exit 64 ;; esac

need_wrk
build_server
work="$(mktemp -d)"
trap 'cleanup_server; stop_postgres; rm -rf "$work"' EXIT
accounts=64
journals="durable buffered"
if [ "$JOURNAL" = postgres ]; then
  start_postgres
  journals="postgres"
fi

echo "ledger-server load ($CONFIGURATION build): $(nproc) cores, $seconds s per run, $accounts accounts, transfers of 1 to 5"
printf '%-10s %12s %12s %12s %12s\n' journal connections "requests/s" "p50 ms" "p99 ms"
for durability in $journals; do
  log="$work/ledger-$durability.log"
  start_server "$log" "$durability" "$work/server-$durability"
  python3 "$SCRIPTS/ledger_check.py" seed "$SERVER_URL" "$accounts" 1000000000
  for connections in 1 8 64; do
    threads=$((connections < 2 ? connections : 2))
    out="$work/wrk-$durability-$connections.txt"
    LEDGER_ACCOUNTS=$accounts LEDGER_RUN="$durability-$connections" \
      wrk -t "$threads" -c "$connections" -d "${seconds}s" --timeout 10s \
      -s "$SCRIPTS/transfers.lua" "$SERVER_URL" >"$out" 2>&1 \
      || { cat "$out" >&2; fail "wrk failed"; }
    result="$(grep '^RESULT' "$out")" || { cat "$out" >&2; fail "wrk printed no result"; }
    field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" <<<"$result"; }
    for kind in connect read write timeout status; do
      count="$(field "errors_$kind")"
      [ "$count" = 0 ] || { cat "$out" >&2; fail "$durability, $connections connections: $count $kind errors"; }
    done
    [ "$(field requests)" -gt 0 ] || fail "$durability, $connections connections: no request answered"
    printf '%-10s %12s %12s %12s %12s\n' "$durability" "$connections" "$(field rps)" \
      "$(awk -v us="$(field p50_us)" 'BEGIN { printf "%.2f", us / 1000 }')" \
      "$(awk -v us="$(field p99_us)" 'BEGIN { printf "%.2f", us / 1000 }')"
  done
  stop_server
done
echo "load: passed"
