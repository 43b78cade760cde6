#!/usr/bin/env bash
# Builds the DocC documentation of every library module, with warnings as errors, without a
# plugin dependency: symbol graphs from the package manager, then `docc convert` per module.
#
#   Scripts/docs.sh [OUTPUT_DIR]     (default: .build-docs/site)
#
# Each module's catalog (Sources/MODULE/MODULE.docc or Plugins/MODULE/MODULE.docc: its landing
# page, with an overview and topics) is copied with the module's guides from Guides/ added as
# articles, so that the guides are written once and read in both places. Links between guides
# of one module become DocC links; links to another module's guide or to source files stay
# relative links to the repository.
#
# Links from a plugin's documentation to core symbols are written as code spans: DocC resolves
# double-backtick links within one module only.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-.build-docs/site}"
graphs=.build-docs/symbol-graphs
modules=(Reduce ReduceTesting ReduceThunk ReduceThrottle ReduceLogging ReduceUndo ReducePersistence)

# The guides each module's documentation carries as articles.
guides_of() {
  case "$1" in
    Reduce) echo "GettingStarted Concepts Composing WritingMiddleware Performance MigratingFromRxReduce" ;;
    ReduceTesting) echo "Testing" ;;
    ReduceThunk) echo "Thunks" ;;
    ReduceThrottle) echo "Throttle" ;;
    ReduceLogging) echo "Logging AuditTrail MultipleMachines" ;;
    ReduceUndo) echo "Undo" ;;
    ReducePersistence) echo "Persistence" ;;
  esac
}

# The name of a guide's article: its own, unless a symbol of the module has it.
article_of() {
  case "$1" in
    AuditTrail) echo "AuditTrailGuide" ;;
    *) echo "$1" ;;
  esac
}

# Copies a module's catalog and its guides into .build-docs/catalogs; prints the copy's path.
make_catalog() {
  local module=$1 catalog=.build-docs/catalogs/$1.docc source
  source=$(ls -d "Sources/$module/$module.docc" "Plugins/$module/$module.docc" 2>/dev/null | head -n 1)
  [ -n "$source" ] || { echo "docs.sh: no catalog for $module" >&2; exit 1; }
  rm -rf "$catalog"
  mkdir -p "$(dirname "$catalog")"
  cp -R "$source" "$catalog"
  local guides guide
  guides=$(guides_of "$module")
  for guide in $guides; do
    # Links to a guide of the same module, with or without an anchor, become DocC links.
    local sed_args=()
    for other in $guides; do
      sed_args+=(-e "s/](${other}\.md\(#[^)]*\)\{0,1\})/](<doc:$(article_of "$other")>)/g")
    done
    sed "${sed_args[@]}" "Guides/$guide.md" >"$catalog/$(article_of "$guide").md"
  done
  echo "$catalog"
}
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
  catalog=$(make_catalog "$module")
  if docc convert "$catalog" --additional-symbol-graph-dir "$graphs/$module" \
    --fallback-display-name "$module" --fallback-bundle-identifier "reduce.$module" \
    --output-path "$out/$module.doccarchive" --warnings-as-errors >&2; then
    echo "$module: $out/$module.doccarchive (articles: $(guides_of "$module"))"
  else
    echo "$module: documentation has errors (above)"
    failed=1
  fi
done
exit "${failed:-0}"
