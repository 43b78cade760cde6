#!/usr/bin/env bash
# Builds the DocC documentation of every library module, with warnings as errors, without a
# plugin dependency: symbol graphs from the package manager, then `docc convert` per module.
#
#   Scripts/docs.sh [OUTPUT_DIR]     (default: .build-docs/site)
#
# Links from a plugin's documentation to core symbols are written as code spans: DocC resolves
# double-backtick links within one module only.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-.build-docs/site}"
graphs=.build-docs/symbol-graphs
modules=(Reduce ReduceTesting ReduceThunk ReduceThrottle ReduceLogging ReduceUndo ReducePersistence)
rm -rf "$graphs"
mkdir -p "$graphs" "$out"
# The command also tries the test-runner modules, which have no symbol graph to give, and then
# exits non-zero: its status is ignored, and every library module's graph is checked instead.
mkdir -p .build-docs
if ! swift package --scratch-path .build-docs dump-symbol-graph --minimum-access-level public \
  >.build-docs/dump-symbol-graph.log 2>&1; then
  echo "docs.sh: dump-symbol-graph reported errors (expected for the test modules); log in .build-docs/dump-symbol-graph.log" >&2
fi
found=$(find .build-docs -path '*symbolgraph*' -name 'Reduce.symbols.json' -print -quit)
[ -n "$found" ] || { echo "docs.sh: no symbol graph was produced" >&2; exit 1; }
source_dir=$(dirname "$found")
for module in "${modules[@]}"; do
  mkdir -p "$graphs/$module"
  [ -f "$source_dir/$module.symbols.json" ] || { echo "docs.sh: no symbol graph for $module" >&2; exit 1; }
  cp "$source_dir/$module.symbols.json" "$graphs/$module/"
  cp "$source_dir/$module"@*.symbols.json "$graphs/$module/" 2>/dev/null || true
  if docc convert --additional-symbol-graph-dir "$graphs/$module" \
    --fallback-display-name "$module" --fallback-bundle-identifier "reduce.$module" \
    --output-path "$out/$module.doccarchive" --warnings-as-errors >&2; then
    echo "$module: $out/$module.doccarchive"
  else
    echo "$module: documentation has errors (above)"
    failed=1
  fi
done
exit "${failed:-0}"
