#!/usr/bin/env bash
# Prints the instructions per dispatch of one reduce-bench workload, counted by callgrind.
#
#   Scripts/callgrind.sh [WORKLOAD]        (default: counter)
#
# It runs the workload's store twice, with 10,000 and 110,000 dispatches, and divides the
# difference of the two instruction totals by 100,000: set-up and start-up cancel out.
# Instruction counts do not depend on the machine's load, unlike times.
set -euo pipefail
cd "$(dirname "$0")/.."
workload="${1:-counter}"
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }
swift build -c release --product reduce-bench >&2
bench="$(swift build -c release --show-bin-path)/reduce-bench"
count() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bench" --profile "$workload" --dispatches "$1" 2>&1 \
    | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
small=$(count 10000)
large=$(count 110000)
echo "$workload: $(( (large - small) / 100000 )) instructions per dispatch"
