#!/usr/bin/env bash
# Checks the inspector page of `reduce-audit html`, first its sources in
# Sources/reduce-audit/Resources: `node --check` parses inspector.js, the script holds no
# `</script` or `<!--` and the style sheet no `</style` (either would end its element early in
# the page), and inspector.html has exactly the slots `InspectorPage.Slot` fills. Then in a real
# browser: headless Chromium opens the pages of (a) a small rotated ledger log (two files, a
# snapshot), (b) a copy of a log with one byte changed in a middle line, (c) a 100,000-entry
# log, (d) a torn log and (e) the demo's `--log` file, and the script checks the DOM each
# leaves: the entry counts, a filter read from the URL fragment, the chain as `reduce-audit
# verify` sees it (the broken line of the tampered log), and the 100,000-entry page finishing in
# time. It takes screenshots and prints where.
#
# Usage: Scripts/inspector-check.sh [DIR]   (the logs, pages and screenshots go to DIR, by
# default a new temporary directory). Installs chromium and nodejs from Debian when they are
# missing.
# Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."

out="${1:-$(mktemp -d "${TMPDIR:-/tmp}/inspector-check.XXXXXX")}"
mkdir -p "$out/screenshots"
out="$(cd "$out" && pwd)"
limit_ms=15000

fail() {
  echo "inspector-check: FAIL: $*" >&2
  exit 1
}
pass() { echo "ok: $*"; }

resources=Sources/reduce-audit/Resources
echo "== the page's sources ($resources)"
if ! command -v node >/dev/null 2>&1; then
  echo "node is missing: installing nodejs from Debian"
  Scripts/install-debian-package.sh nodejs
fi
node --check "$resources/inspector.js" || fail "$resources/inspector.js: node --check finds a syntax error"
pass "node --check $resources/inspector.js"
# A `</script` or `<!--` in the script, or a `</style` in the style sheet, would change where
# the page's element ends.
! grep -n -i -e '</script' -e '<!--' "$resources/inspector.js" ||
  fail "$resources/inspector.js holds </script or <!-- (write \\x3c/script or split the string)"
! grep -n -i '</style' "$resources/inspector.css" || fail "$resources/inspector.css holds </style"
pass "no closing tag in inspector.js and inspector.css"
slots="$(grep -o '{{[^}]*}}' "$resources/inspector.html" | sort | uniq -c | awk '{ print $2 "x" $1 }' |
  paste -s -d ' ')"
[ "$slots" = "{{logs}}x1 {{names}}x2 {{script}}x1 {{style}}x1" ] ||
  fail "$resources/inspector.html: the slots are '$slots', not {{logs}}, {{names}} twice, {{script}}, {{style}}"
pass "the slots of inspector.html: $slots"
echo

if ! command -v chromium >/dev/null 2>&1; then
  echo "chromium is missing: installing it from Debian"
  Scripts/install-debian-package.sh chromium
fi

echo "building reduce-audit, InspectorLogWriter and reduce-demo"
for product in reduce-audit InspectorLogWriter reduce-demo; do
  swift build --product "$product" >"$out/build-$product.txt" 2>&1 ||
    { cat "$out/build-$product.txt" >&2; fail "swift build --product $product"; }
done
bin="$(swift build --show-bin-path)"
audit="$bin/reduce-audit"

# Opens a page headless until it is idle (the page verifies the chain before it says it is
# ready) and writes the DOM it leaves: dump PAGE FRAGMENT OUTPUT. Prints the milliseconds taken.
dump() {
  local began ended
  began=$(date +%s%N)
  chromium --headless --no-sandbox --disable-gpu --virtual-time-budget=60000 \
    --window-size=1400,900 --dump-dom "file://$1#$2" >"$3" 2>"$3.stderr" ||
    fail "chromium could not open $1 (see $3.stderr)"
  ended=$(date +%s%N)
  echo $(((ended - began) / 1000000))
}

# Takes a screenshot of a page: shoot PAGE FRAGMENT PNG.
shoot() {
  chromium --headless --no-sandbox --disable-gpu --virtual-time-budget=60000 \
    --hide-scrollbars --window-size=1400,900 --screenshot="$3" "file://$1#$2" \
    >/dev/null 2>"$3.stderr" || fail "chromium could not take a screenshot of $1"
  [ -s "$3" ] || fail "no screenshot at $3"
}

# The value of a data attribute of the dumped page's <body>: body DOM NAME.
body() {
  grep -o '<body [^>]*>' "$1" | head -n 1 | grep -o " $2=\"[^\"]*\"" | sed 's/^[^"]*"//; s/"$//' |
    sed 's/&quot;/"/g; s/&lt;/</g; s/&gt;/>/g; s/&amp;/\&/g' || true
}

# Fails unless the dumped page is ready with a chain in the given state: ready DOM CHAIN.
ready() {
  local state
  [ "$(body "$1" data-ready)" = 1 ] ||
    fail "$1: the page did not finish (data-ready='$(body "$1" data-ready)' $(body "$1" data-failure))"
  state="$(body "$1" data-chain)"
  [ "$state" = "$2" ] || fail "$1: chain '$state' where '$2' was expected: $(body "$1" data-chain-message)"
}

# Fails unless two values are equal: same WHAT ACTUAL EXPECTED.
same() {
  [ "$2" = "$3" ] || fail "$1: the page says '$2', expected '$3'"
  pass "$1: $2"
}

cd "$out"

echo
echo "== (a) a small ledger log, rotated once: two files, a snapshot"
"$bin/InspectorLogWriter" small.log 40 --rotate-after 25
"$audit" html small.log.1 small.log -o small.html >/dev/null
lines=$(cat small.log.1 small.log | wc -l)
dump "$out/small.html" "" small.dom >/dev/null
ready small.dom intact
same "entries of small.log.1 + small.log" "$(body small.dom data-entries)" "$lines"
same "entries shown without a filter" "$(body small.dom data-shown)" "$lines"
same "the chain, as reduce-audit verify says it" "$(body small.dom data-chain-message)" \
  "$("$audit" verify small.log.1 small.log)"
same "snapshots" "$(body small.dom data-snapshots)" "$("$audit" snapshots small.log.1 small.log | wc -l)"
rows=$(grep -o '<div class="row intact[^"]*" data-i="[0-9]*"' small.dom | wc -l)
[ "$rows" -gt 0 ] || fail "small.dom: no timeline row"
pass "timeline rows in the document: $rows (the rows in view)"
dump "$out/small.html" "type=Deposit" small-deposit.dom >/dev/null
ready small-deposit.dom intact
same "filter #type=Deposit" "$(body small-deposit.dom data-shown)" \
  "$(cat small.log.1 small.log | grep -c '"action":"Deposit"')"
dump "$out/small.html" 'touched=%5C.transfers' small-transfers.dom >/dev/null
same "filter #touched=\\.transfers (what touched \\.transfers?)" \
  "$(body small-transfers.dom data-shown)" \
  "$(cat small.log.1 small.log | grep -c '"mutators":\[[^]]*Ledger.transfers')"
shoot "$out/small.html" "entry=26" "$out/screenshots/small.png"

echo
echo "== (b) the same kind of log with one byte changed in a middle line"
"$bin/InspectorLogWriter" intact.log 40
sed '20s/acct-/acct_/' intact.log >tampered.log
[ "$(cmp -l intact.log tampered.log | wc -l)" = 1 ] || fail "tampered.log differs by other than one byte"
status=0
"$audit" verify tampered.log 2>verify-tampered.txt || status=$?
[ "$status" = 1 ] || fail "reduce-audit verify tampered.log exited $status, not 1"
expected_line=$(sed -n 's/^[^:]*: line \([0-9]*\):.*/\1/p' verify-tampered.txt)
"$audit" html tampered.log -o tampered.html >/dev/null
dump "$out/tampered.html" "entry=$expected_line" tampered.dom >/dev/null
ready tampered.dom broken
same "the first broken line (reduce-audit verify: line $expected_line)" \
  "$(body tampered.dom data-broken-line)" "$expected_line"
same "the reason, as reduce-audit verify says it" \
  "$(body tampered.dom data-chain-message | sed 's/^tampered.log: //')" \
  "$(sed 's/^[^:]*: //' verify-tampered.txt)"
grep -q "<div class=\"row broken[^\"]*\" data-i=\"[0-9]*\" data-line=\"$expected_line\"" tampered.dom ||
  fail "tampered.dom: line $expected_line is not marked broken in the timeline"
pass "line $expected_line is marked broken in the timeline"
shoot "$out/tampered.html" "entry=$expected_line" "$out/screenshots/tampered.png"

echo
echo "== (c) 100,000 entries"
"$bin/InspectorLogWriter" large.log 100000
"$audit" html large.log -o large.html >/dev/null
ms=$(dump "$out/large.html" 'type=Transfer&touched=%5C.transfers' large.dom)
ready large.dom intact
same "entries of large.log" "$(body large.dom data-entries)" 100000
same "filter #type=Transfer&touched=\\.transfers" "$(body large.dom data-shown)" \
  "$(grep -c '"action":"Transfer".*"mutators":\[[^]]*Ledger.transfers' large.log)"
[ "$ms" -lt "$limit_ms" ] || fail "large.html took $ms ms in headless Chromium, over $limit_ms"
pass "large.html opened, verified and filtered in $ms ms of headless Chromium, browser start included (the page: ready at $(body large.dom data-ready-ms) ms, verified in $(body large.dom data-verify-ms) ms, filtered in $(body large.dom data-filter-ms) ms)"
shoot "$out/large.html" 'type=Transfer&touched=%5C.transfers' "$out/screenshots/large.png"
rm -f large.log large.html # 60 MB, not needed any more

echo
echo "== (d) a log whose last line is torn (a crash during a write)"
head -c -40 intact.log >torn.log
status=0
"$audit" verify torn.log 2>verify-torn.txt || status=$?
[ "$status" = 2 ] || fail "reduce-audit verify torn.log exited $status, not 2"
"$audit" html torn.log -o torn.html >/dev/null
dump "$out/torn.html" "" torn.dom >/dev/null
ready torn.dom torn
same "the torn line, as reduce-audit verify says it" \
  "$(body torn.dom data-chain-message | sed 's/^torn.log: //')" "$(sed 's/^[^:]*: //' verify-torn.txt)"

echo
echo "== the page and reduce-audit verify agree on other damage"
# agree NAME FILE...: the page of the files says what `reduce-audit verify` says of them, by
# absolute paths, so that both name the files alike: the chain's state, the first bad line, and
# the message (for a line that is not JSON, up to the parser's own words).
agree() {
  local name="$1" status=0 expected state message
  shift
  "$audit" verify "$@" >"verify-$name.txt" 2>&1 || status=$?
  case "$status" in
    0) state=intact ;;
    1) state=broken ;;
    2) state=torn ;;
    3) state=incomplete ;;
    *) fail "$name: reduce-audit verify exited $status: $(cat "verify-$name.txt")" ;;
  esac
  "$audit" html "$@" -o "$name.html" >/dev/null
  dump "$out/$name.html" "" "$name.dom" >/dev/null
  ready "$name.dom" "$state"
  expected="$(head -n 1 "verify-$name.txt")"
  message="$(body "$name.dom" data-chain-message)"
  if [[ "$expected" == *": not a valid entry: "* && "$name" == *json* ]]; then
    expected="${expected%%: not a valid entry: *}: not a valid entry:"
    message="${message%%: not a valid entry: *}: not a valid entry:"
  fi
  [ "$message" = "$expected" ] ||
    fail "$name: the page says '$message' where reduce-audit verify says '$expected'"
  pass "$name ($state): $message"
}
sed '15d' intact.log >removed.log
awk 'NR == 10 { held = $0; next } NR == 11 { print; print held; next } { print }' intact.log \
  >swapped.log
sed '5s/acct-/acct_/' small.log >second-file-edited.log
sed '1s/"prev":"0/"prev":"1/' intact.log >genesis.log
sed '12s/.*/garbage/' intact.log >notjson.log
sed '8s/.*//' intact.log >empty-line.log
sed '5s/.*/[1,2]/' intact.log >array.log
head -c -40 intact.log | sed '$s/"seq":40/"seq":41/' >torn-other-seq.log
agree removed "$out/removed.log"
agree swapped "$out/swapped.log"
agree genesis "$out/genesis.log"
agree notjson "$out/notjson.log"
agree empty-line "$out/empty-line.log"
agree array "$out/array.log"
agree torn-other-seq "$out/torn-other-seq.log"
agree files-out-of-order "$out/small.log" "$out/small.log.1"
agree second-file-edited "$out/small.log.1" "$out/second-file-edited.log"
same "the file of the broken line" "$(body second-file-edited.dom data-broken-file)" \
  "$out/second-file-edited.log"
agree continuing-alone "$out/small.log"

echo
echo "== (e) the demo's --log file"
printf '%s\n' "add Buy milk" "add Call Ada" "done 1" "rename 2 Call Ada today" "undo" \
  "remove 1" "quit" >demo-script.txt
rm -f demo.log demo-state.json
REDUCE_DEMO_LOAD_DELAY_MS=0 "$bin/reduce-demo" --script demo-script.txt --state demo-state.json \
  --log demo.log >demo-output.txt
"$audit" html demo.log -o demo.html >/dev/null
dump "$out/demo.html" "" demo.dom >/dev/null
ready demo.dom intact
same "entries of demo.log" "$(body demo.dom data-entries)" "$(wc -l <demo.log)"
same "the chain, as reduce-audit verify says it" "$(body demo.dom data-chain-message)" \
  "$("$audit" verify demo.log)"
dump "$out/demo.html" "touched=%5C.ui.status" demo-status.dom >/dev/null
same "filter #touched=\\.ui.status" "$(body demo-status.dom data-shown)" \
  "$(grep -c '"path":"ui.status"' demo.log)"
shoot "$out/demo.html" "entry=1" "$out/screenshots/demo.png"

echo
echo "== bad input"
status=0
"$audit" html "$out/no-such.log" -o nowhere.html 2>/dev/null || status=$?
[ "$status" = 66 ] || fail "a missing log: exit $status, not 66"
pass "a missing log: exit 66"
status=0
"$audit" html small.log -o "$out/no-such-directory/page.html" 2>/dev/null || status=$?
[ "$status" = 73 ] || fail "an unwritable page: exit $status, not 73"
pass "an unwritable page: exit 73"

echo
echo "screenshots: $out/screenshots/small.png $out/screenshots/tampered.png" \
  "$out/screenshots/large.png $out/screenshots/demo.png"
echo "inspector-check: all checks passed ($out)"
