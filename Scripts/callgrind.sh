#!/usr/bin/env bash
# Counts instructions per dispatch of reduce-bench workloads with callgrind.
#
#   Scripts/callgrind.sh [WORKLOAD]   instructions per dispatch of one workload (default: counter)
#   Scripts/callgrind.sh --budgets    every instruction budget: a table of workload,
#                                     instructions, budget and met; exits 1 when one is missed
#
# Each count runs the workload's store twice, with 10,000 and 110,000 dispatches, and divides the
# difference of the two instruction totals by 100,000: set-up and start-up cancel out.
# Instruction counts do not depend on the machine's load, unlike times. The budgets live with
# the workloads (Sources/reduce-bench); `reduce-bench --list-budgets` names the workloads to
# count and `reduce-bench --check-instructions NAME=COUNT ...` judges the counts.
# REDUCE_BENCH names a release build of reduce-bench to count instead of building one (CI
# passes the one it built).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }
bench="${REDUCE_BENCH:-}"
if [[ -z "$bench" ]]; then
  swift build -c release --product reduce-bench >&2
  bench="$(swift build -c release --show-bin-path)/reduce-bench"
fi

# Instructions callgrind counts for WORKLOAD's store with N dispatches: total (WORKLOAD, N).
# Hashing is seeded the same in every run, so that a dictionary costs the same each time.
total() {
  SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bench" --profile "$1" --dispatches "$2" 2>&1 \
    | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

# Instructions per dispatch of WORKLOAD.
per_dispatch() {
  local small large
  small=$(total "$1" 10000)
  large=$(total "$1" 110000)
  [[ -n "$small" && -n "$large" ]] || { echo "callgrind.sh: callgrind counted nothing for $1" >&2; exit 2; }
  echo $(( (large - small) / 100000 ))
}

if [[ "${1:-}" == "--budgets" ]]; then
  checks=()
  for workload in $("$bench" --list-budgets); do
    count=$(per_dispatch "$workload")
    echo "$workload: $count instructions per dispatch" >&2
    checks+=(--check-instructions "$workload=$count")
  done
  exec "$bench" "${checks[@]}"
fi

workload="${1:-counter}"
echo "$workload: $(per_dispatch "$workload") instructions per dispatch"
