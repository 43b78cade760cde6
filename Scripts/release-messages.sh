#!/usr/bin/env bash
# Checks that the mistakes a store stops for say so in a release build too: builds
# Tests/ReduceMisuse with optimization (where a failed `precondition` stops with no message) and
# runs each mistake, expecting the process to stop with the store's message on standard error.
# The debug build is checked by Tests/ReduceTests/MisuseTests.swift.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product ReduceMisuse
misuse="$(swift build -c release --show-bin-path)/ReduceMisuse"
errors="$(mktemp)"
trap 'rm -f "$errors"' EXIT
check() {
  local mistake="$1" message="$2"
  # No backtrace: it is slow to make and not what is checked.
  if SWIFT_BACKTRACE=enable=no "$misuse" "$mistake" 2>"$errors"; then
    echo "release-messages.sh: $mistake did not stop the program" >&2
    exit 1
  fi
  if ! grep -qF "Fatal error: $message" "$errors"; then
    echo "release-messages.sh: $mistake stopped without the message \"$message\"; it wrote:" >&2
    cat "$errors" >&2
    exit 1
  fi
  echo "$mistake: stopped with \"$message\""
}
check reducer-dispatches "A reducer dispatched to the store."
check reducer-reads-state "A reducer read the store's state or dispatched to it."
check reducer-subscribes "A reducer subscribed to the store."
