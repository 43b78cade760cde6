#!/usr/bin/env bash
# Runs the PostgreSQL journal's tests against a real PostgreSQL: installs Debian's postgresql
# package when initdb is missing, then builds and tests the package. Each test run makes its own
# throwaway clusters (initdb in a temporary directory, reached through a unix socket there, no
# TCP port) and removes them; nothing is mocked.
#
# Usage: Integrations/ReducePostgres/Scripts/ci.sh [--bench]
#   --bench  also runs the benchmark (reduce-postgres-bench) in release, with its default
#            bounds (a few seconds per workload).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${PG_BIN:-}" ] && ! ls /usr/lib/postgresql/*/bin/initdb > /dev/null 2>&1; then
  echo "ci.sh: installing PostgreSQL from Debian"
  ../../Scripts/install-debian-package.sh postgresql
fi

# A test process killed half-way leaves its clusters running: stop those left by a run that
# ended more than an hour ago (a run going on now keeps its own).
find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'reduce-pg-*' -type d -mmin +60 | while read -r dir; do
  bin=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)}
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -m immediate stop > /dev/null 2>&1 || true
  else
    "$bin/pg_ctl" -D "$dir/data" -m immediate stop > /dev/null 2>&1 || true
  fi
  rm -rf "$dir"
done

swift build --build-tests
swift test

if [ "${1:-}" = "--bench" ]; then
  swift run -c release reduce-postgres-bench
fi
