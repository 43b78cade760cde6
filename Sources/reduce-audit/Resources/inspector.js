"use strict";
// Reading: the embedded files' bytes, split into lines, each parsed once.
const GENESIS = "0".repeat(64);
const HASH = /^[0-9a-f]{64}$/;
const started = performance.now();
const files = [];
const entries = [];
const marks = {};

function decodeBase64(text) {
  if (typeof Uint8Array.fromBase64 === "function") return Uint8Array.fromBase64(text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

// A mutator key or a change's path, reduced to the path below the state: "\Ledger.accounts",
// "\.accounts" and "accounts" are all "accounts".
function substatePath(key) {
  let path = String(key).trim();
  if (path.startsWith("\\")) {
    const rest = path.slice(1);
    const cut = rest.search(/[.[]/);
    path = cut < 0 ? "" : rest.slice(cut);
  }
  if (path.startsWith(".")) path = path.slice(1);
  return path;
}

function parseLine(text, file, line, start, end, terminated) {
  const entry = {
    file, line, start, end, terminated, text, seq: null, prev: null, ts: "", action: "",
    outcome: "", error: null, mutators: [], changes: null, paths: [], snapshot: false,
    parsed: false, problem: null, state: "pending", hash: null, lower: null,
  };
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    entry.problem = error.message;
    entry.action = "(not JSON)";
    return entry;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    entry.action = "(not an object)";
    return entry;
  }
  entry.parsed = true;
  if (Number.isSafeInteger(value.seq)) entry.seq = value.seq;
  if (typeof value.prev === "string") entry.prev = value.prev;
  if (typeof value.ts === "string") entry.ts = value.ts;
  entry.snapshot = value.snapshot !== undefined;
  entry.action = typeof value.action === "string" ? value.action
    : entry.snapshot ? "snapshot" : "(no action)";
  entry.outcome = typeof value.outcome === "string" ? value.outcome
    : entry.snapshot ? "ok" : "";
  if (typeof value.error === "string") entry.error = value.error;
  if (Array.isArray(value.mutators)) {
    entry.mutators = value.mutators.filter((key) => typeof key === "string");
  }
  if (Array.isArray(value.changes)) entry.changes = value.changes;
  const paths = entry.mutators.map(substatePath);
  if (entry.changes) {
    for (const change of entry.changes) {
      if (change && typeof change.path === "string") paths.push(substatePath(change.path));
    }
  }
  entry.paths = paths;
  return entry;
}

function readFiles() {
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  document.querySelectorAll("script.log-file").forEach((node, index) => {
    const bytes = decodeBase64(node.textContent.trim());
    // The bytes are kept in memory; the text of the element is not needed any more.
    node.remove();
    const file = { name: node.dataset.name, bytes, first: entries.length, count: 0 };
    files.push(file);
    // A newline byte is never part of a UTF-8 sequence, so the text's lines are the bytes' lines.
    const texts = decoder.decode(bytes).split("\n");
    let start = 0;
    let line = 0;
    while (start < bytes.length) {
      let end = bytes.indexOf(10, start);
      const terminated = end >= 0;
      if (!terminated) end = bytes.length;
      entries.push(parseLine(texts[line], index, line + 1, start, end, terminated));
      line += 1;
      start = end + 1;
    }
    file.count = entries.length - file.first;
  });
}

// Verifying: the rule of `reduce-audit verify` (ChainVerifier), with WebCrypto's SHA-256 of
// each line's exact bytes, without its newline.
const NOT_TORN = "an incomplete last line that is not the beginning of the entry that was due, so not what a crash leaves";

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

function hex(buffer) {
  const bytes = new Uint8Array(buffer);
  let text = "";
  for (let i = 0; i < bytes.length; i++) text += HEX[bytes[i]];
  return text;
}

// Hashes every complete line, a batch of digests at a time.
async function hashLines(progress) {
  const batch = 4096;
  for (let from = 0; from < entries.length; from += batch) {
    const to = Math.min(from + batch, entries.length);
    const digests = [];
    for (let i = from; i < to; i++) {
      const entry = entries[i];
      digests.push(entry.terminated
        ? crypto.subtle.digest("SHA-256", files[entry.file].bytes.subarray(entry.start, entry.end))
        : null);
    }
    const done = await Promise.all(digests);
    for (let i = from; i < to; i++) if (done[i - from]) entries[i].hash = hex(done[i - from]);
    progress(to);
  }
}

// Whether a line is a prefix of the entry that was due, or begins like it: `{"seq":N,"prev":"H"`.
// Before the first line any number and any hash will do (a file may continue an earlier one).
function beginsNextEntry(text, checked, expectedSeq, lastHash) {
  let i = 0;
  let ended = false;
  const literal = (piece) => {
    for (let k = 0; k < piece.length; k++) {
      if (i >= text.length) { ended = true; return false; }
      if (text[i] !== piece[k]) return false;
      i++;
    }
    return true;
  };
  const anyNumber = () => {
    const start = i;
    while (i < text.length && text[i] >= "0" && text[i] <= "9") {
      if (i === start && text[i] === "0") return false;
      i++;
    }
    if (i === text.length) ended = true;
    return i > start && !ended;
  };
  const anyHash = () => {
    for (let k = 0; k < 64; k++) {
      if (i >= text.length) { ended = true; return false; }
      const c = text[i];
      if (!((c >= "0" && c <= "9") || (c >= "a" && c <= "f"))) return false;
      i++;
    }
    return true;
  };
  if (!literal('{"seq":')) return ended;
  if (!(checked === 0 ? anyNumber() : literal(String(expectedSeq)))) return ended;
  if (!literal(',"prev":"')) return ended;
  if (!(checked === 0 ? anyHash() : literal(lastHash))) return ended;
  return literal('"') || ended;
}

// Whether JSON.parse failed only because the text ended early (a prefix of some JSON text).
function endedEarly(entry) {
  const message = entry.problem || "";
  if (/end of (JSON input|data)|Unterminated string/i.test(message)) return true;
  const position = /position (\d+)/.exec(message);
  return position !== null && Number(position[1]) >= entry.text.length;
}

function lineError(line, kind, reason, extra) {
  return Object.assign({ line, kind, reason }, extra || {});
}

function lineErrorText(error) {
  switch (error.kind) {
    case "malformed": return `line ${error.line}: not a valid entry: ${error.reason}`;
    case "gap": return `line ${error.line}: sequence number ${error.found} where ${error.expected} was expected: entries were removed, inserted or reordered before this line`;
    case "genesis": return `line ${error.line}: its prev is not the genesis value: the start of the log was changed`;
    case "link": return `line ${error.line}: its hash does not match the prev recorded by line ${error.recordedBy}: line ${error.line} was edited (or the prev of line ${error.recordedBy})`;
    case "torn": return `line ${error.line}: the last line is incomplete: a write was interrupted (a crash), not tampering; the ${error.line - 1} entries before it are intact`;
    default: return `line ${error.line}: ${error.reason}`;
  }
}

// One file's chain: its summary, or the first bad line.
function verifyFile(file) {
  let count = 0;
  let firstSeq = 1;
  let firstPrev = GENESIS;
  let lastHash = GENESIS;
  for (let k = 0; k < file.count; k++) {
    const entry = entries[file.first + k];
    const number = count + 1;
    if (entry.problem !== null) {
      if (!entry.terminated && endedEarly(entry)
        && beginsNextEntry(entry.text, count, firstSeq + count, lastHash)) {
        return { error: lineError(number, "torn") };
      }
      const reason = entry.text === "" ? "an empty line"
        : entry.terminated ? entry.problem : NOT_TORN;
      return { error: lineError(number, "malformed", reason) };
    }
    if (!entry.parsed) return { error: lineError(number, "malformed", "not a JSON object") };
    if (entry.seq === null) return { error: lineError(number, "malformed", "no integer `seq`") };
    if (entry.prev === null || !HASH.test(entry.prev)) {
      return { error: lineError(number, "malformed", "no SHA-256 `prev`") };
    }
    if (count === 0 && entry.seq > 1) {
      firstSeq = entry.seq;
      firstPrev = entry.prev;
      lastHash = entry.prev;
    }
    const expected = firstSeq + count;
    if (firstSeq > 1 && entry.seq < firstSeq) {
      return { error: lineError(1, "gap", "", { expected: 1, found: firstSeq }) };
    }
    if (entry.seq !== expected) {
      return { error: lineError(number, "gap", "", { expected, found: entry.seq }) };
    }
    if (entry.prev !== lastHash) {
      const line = Math.max(number - 1, 1);
      return { error: lineError(line, line === number ? "genesis" : "link", "", { recordedBy: number }) };
    }
    if (!entry.terminated) {
      if (!beginsNextEntry(entry.text, count, firstSeq + count, lastHash)) {
        return { error: lineError(number, "malformed", NOT_TORN) };
      }
      return { error: lineError(number, "torn") };
    }
    lastHash = entry.hash;
    count = number;
  }
  return { count, firstSeq, firstPrev, lastHash };
}

// The files in order as one log, as `reduce-audit verify FILE...` checks them.
function verifyChain() {
  let total = null;
  let previousName = "";
  for (let index = 0; index < files.length; index++) {
    const file = files[index];
    const result = verifyFile(file);
    if (result.error) {
      let error = result.error;
      if (error.kind === "torn" && index < files.length - 1) {
        error = lineError(error.line, "malformed", "an incomplete last line in a file that a later file continues");
      }
      return { status: error.kind === "torn" ? "torn" : "broken", file: index, line: error.line,
        recordedBy: error.recordedBy, message: `${file.name}: ${lineErrorText(error)}` };
    }
    if (result.count === 0) continue;
    if (total === null) {
      total = result;
      previousName = file.name;
      continue;
    }
    const lastSeq = total.firstSeq + total.count - 1;
    let reason = null;
    if (result.firstSeq !== lastSeq + 1) {
      reason = `its first entry is number ${result.firstSeq} where ${lastSeq + 1} was expected: entries are missing between the files, or the files are out of order`;
    } else if (result.firstPrev !== total.lastHash) {
      reason = `its first prev is not the hash of the last line of ${previousName}: one of the two was edited`;
    }
    if (reason !== null) {
      return { status: "broken", file: index, line: 1,
        message: `${file.name}: line 1: does not continue ${previousName}: ${reason}` };
    }
    total = { count: total.count + result.count, firstSeq: total.firstSeq,
      firstPrev: total.firstPrev, lastHash: result.lastHash };
    previousName = file.name;
  }
  const count = total ? total.count : 0;
  const names = files.map((file) => file.name).join(", ");
  const place = `${count} ${count === 1 ? "entry" : "entries"}${files.length === 1 ? "" : ` in ${files.length} files`}`;
  if (total && total.firstSeq > 1) {
    // As `reduce-audit verify` (exit 3): the entries before the first are missing, so the
    // log is not shown as intact. The lines it holds link up; nothing of them is marked.
    const missing = total.firstSeq - 1;
    const entriesText = missing === 1 ? "entry" : "entries";
    const verb = missing === 1 ? "is" : "are";
    const message = `${files[0].name}: line 1: the log starts at entry ${total.firstSeq}: the ${missing} ${entriesText} before it ${verb} missing; verify it with the earlier files, oldest first, or name where it must start (--from-seq ${total.firstSeq}, or --continues HASH with the hash of the earlier file's last line)`;
    const note = `Its first prev is ${total.firstPrev}: open it with the earlier files, oldest first: reduce-audit html EARLIER ${names} -o PAGE.`;
    return { status: "incomplete", message, note, count };
  }
  const message = `${names}: ${place}, chain intact`;
  return { status: "intact", message, note: null, count };
}

// Marks each line: intact, broken (the first bad line), torn, or unchecked after it.
function markEntries(chain) {
  let broken = entries.length;
  if (chain.status !== "intact" && chain.status !== "incomplete") {
    broken = files[chain.file].first + chain.line - 1;
  }
  for (let i = 0; i < entries.length; i++) {
    entries[i].state = i < broken ? "intact" : i === broken ? chain.status : "unchecked";
  }
  return broken < entries.length ? broken : -1;
}

// Viewing: the filters, the timeline (only the rows in view are in the document), one entry.
const ROW = 26;
const $ = (id) => document.getElementById(id);
const body = document.body;
let shown = [];
let selected = -1;
let chain = null;
const filterIds = { type: "f-type", outcome: "f-outcome", touched: "f-touched", q: "f-text",
  from: "f-from", to: "f-to" };

function esc(text) {
  return String(text).replace(/[&<>"']/g, (c) =>
    ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

function count(n, one, many) {
  return `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
}

function touches(entry, wanted) {
  for (const path of entry.paths) {
    if (path === "" || path === wanted || path.startsWith(wanted + ".")
      || path.startsWith(wanted + "[") || wanted.startsWith(path + ".")
      || wanted.startsWith(path + "[")) return true;
  }
  return false;
}

function readFilters() {
  const value = (key) => $(filterIds[key]).value.trim();
  const number = (key) => (value(key) === "" ? null : Number(value(key)));
  return { type: value("type"), outcome: value("outcome"), touched: value("touched"),
    q: value("q"), from: number("from"), to: number("to") };
}

function applyFilters() {
  const began = performance.now();
  const f = readFilters();
  const wanted = f.touched === "" ? null : substatePath(f.touched);
  const text = f.q.toLowerCase();
  shown = [];
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    if (f.type !== "" && entry.action !== f.type) continue;
    if (f.outcome !== "" && entry.outcome !== f.outcome) continue;
    if (f.from !== null && !(entry.seq !== null && entry.seq >= f.from)) continue;
    if (f.to !== null && !(entry.seq !== null && entry.seq <= f.to)) continue;
    if (wanted !== null && !touches(entry, wanted)) continue;
    if (text !== "") {
      if (entry.lower === null) entry.lower = entry.text.toLowerCase();
      if (!entry.lower.includes(text)) continue;
    }
    shown.push(i);
  }
  const active = Object.values(f).some((v) => v !== "" && v !== null);
  $("count").textContent = active
    ? `${count(shown.length, "entry", "entries")} of ${entries.length.toLocaleString("en-US")}`
    : count(entries.length, "entry", "entries");
  body.dataset.entries = String(entries.length);
  body.dataset.shown = String(shown.length);
  $("spacer").style.height = `${shown.length * ROW}px`;
  writeFragment(f);
  renderRows();
  return performance.now() - began;
}

function writeFragment(f) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(f)) if (value !== "" && value !== null) params.set(key, value);
  if (selected >= 0 && entries[selected].seq !== null) params.set("entry", entries[selected].seq);
  const fragment = params.toString();
  if (fragment !== location.hash.slice(1)) history.replaceState(null, "", fragment ? `#${fragment}` : location.pathname + location.search);
}

function readFragment() {
  const params = new URLSearchParams(location.hash.slice(1));
  for (const [key, id] of Object.entries(filterIds)) {
    const value = params.get(key);
    if (value === null) continue;
    const input = $(id);
    if (input.tagName === "SELECT" && ![...input.options].some((o) => o.value === value)) {
      input.add(new Option(`${value} (not in the log)`, value));
    }
    input.value = value;
  }
  return params.get("entry");
}

// A key path's key without its root type, as the timeline shows it: "\Ledger.accounts" is
// "\.accounts"; other keys as they are.
function shortKey(key) {
  return /^\\[^.[]+[.[]/.test(key) ? "\\" + key.slice(key.search(/[.[]/)) : key;
}

function rowHTML(i) {
  const entry = entries[i];
  const classes = ["row", entry.state];
  if (entry.snapshot) classes.push("snapshot");
  if (i === selected) classes.push("selected");
  const time = entry.ts.replace("T", " ").replace("Z", "");
  let touched = entry.mutators.map(shortKey).join(", ");
  if (entry.changes) touched = entry.changes.map((c) => (c && c.path) || "?").join(", ") || "no change";
  if (entry.error !== null) touched = entry.error;
  if (entry.snapshot) touched = "the state at rotation";
  if (entry.problem !== null || !entry.parsed) touched = entry.text.slice(0, 120);
  const outcome = entry.outcome || "?";
  return `<div class="${classes.join(" ")}" data-i="${i}" data-line="${entry.line}" data-file="${entry.file}" role="row">`
    + `<span class="seq">${entry.seq === null ? "?" : entry.seq}</span><span class="time">${esc(time)}</span>`
    + `<span class="action">${esc(entry.action)}</span><span class="outcome-${esc(outcome)}">${esc(outcome)}</span>`
    + `<span class="muts${entry.error !== null ? " err" : ""}" title="${esc(touched)}">${esc(touched)}</span></div>`;
}

function renderRows() {
  const viewport = $("viewport");
  const height = viewport.clientHeight || 800;
  const first = Math.max(0, Math.floor(viewport.scrollTop / ROW) - 8);
  const last = Math.min(shown.length, Math.ceil((viewport.scrollTop + height) / ROW) + 8);
  const rows = $("rows");
  rows.style.transform = `translateY(${first * ROW}px)`;
  let html = "";
  for (let k = first; k < last; k++) html += rowHTML(shown[k]);
  if (shown.length === 0) html = '<p class="empty">No entry matches the filters.</p>';
  rows.innerHTML = html;
}

function prettyJSON(value) {
  const text = JSON.stringify(value, null, 2);
  if (text === undefined) return "";
  return esc(text).replace(/(&quot;(?:[^&\\]|\\.|&(?!quot;))*&quot;)(\s*:)?|\b(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)\b|\b(true|false|null)\b/g,
    (match, string, colon, number, literal) => {
      if (string) return colon ? `<span class="j-key">${string}</span>${colon}` : `<span class="j-str">${string}</span>`;
      if (number) return `<span class="j-num">${number}</span>`;
      return `<span class="j-lit">${literal}</span>`;
    });
}

function chainNote(i) {
  const entry = entries[i];
  if (!chain) return '<p class="note warn">The chain is being verified.</p>';
  if (chain.status === "unavailable") return `<p class="note warn">${esc(chain.message)}</p>`;
  if (entry.state === "intact") return '<p class="note ok">Intact: this line is part of the verified chain.</p>';
  if (entry.state === "unchecked") return '<p class="note warn">Not verified: it comes after the first broken line, where verification stops.</p>';
  return `<p class="note ${entry.state === "torn" ? "warn" : "bad"}">${esc(chain.message)}</p>`;
}

function showEntry(i) {
  selected = i;
  const entry = entries[i];
  const file = files[entry.file];
  let value = null;
  try { value = JSON.parse(entry.text); } catch (error) { value = null; }
  const object = value && typeof value === "object" && !Array.isArray(value) ? value : {};
  const rows = [["file", `${esc(file.name)}, line ${entry.line}`], ["time", esc(entry.ts || "?")],
    ["outcome", `<span class="outcome-${esc(entry.outcome)}">${esc(entry.outcome || "?")}</span>`]];
  if (entry.error !== null) rows.push(["error", `<span class="outcome-failed">${esc(entry.error)}</span>`]);
  if (Number.isFinite(object.durationNs)) rows.push(["duration", `${(object.durationNs / 1e6).toFixed(3)} ms`]);
  if (entry.mutators.length) rows.push(["mutators", `<span class="mono">${esc(entry.mutators.join(", "))}</span>`]);
  rows.push(["prev", `<span class="mono">${esc(entry.prev === null ? "none" : entry.prev)}</span>`]);
  rows.push(["SHA-256", `<span class="mono">${esc(entry.hash === null ? "not computed" : entry.hash)}</span>`]);
  let html = `<h2>#${entry.seq === null ? "?" : entry.seq} ${esc(entry.action)}</h2>` + chainNote(i);
  html += "<dl>" + rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join("") + "</dl>";
  if (entry.changes) {
    html += "<h3>Changes</h3><ul class=\"changes\">" + entry.changes.map((c) => {
      const side = (value) => (value === undefined ? "<i>none</i>" : esc(value));
      return `<li><b>${esc((c && c.path) || "?")}</b>: ${side(c && c.old)} → ${side(c && c.new)}</li>`;
    }).join("") + "</ul>";
  }
  if (object.payload !== undefined) html += `<h3>Payload</h3><pre>${prettyJSON(object.payload)}</pre>`;
  if (entry.snapshot) {
    html += `<h3>Snapshot: the state when the log was rotated</h3><pre>${prettyJSON(object.snapshot)}</pre>`;
  } else {
    let before = -1;
    for (let k = i - 1; k >= 0; k--) if (entries[k].snapshot) { before = k; break; }
    if (before >= 0) html += `<h3>Snapshot</h3><p>The state this entry applied to is the snapshot of <a href="#" data-goto="${before}">entry #${entries[before].seq}</a> and the entries after it.</p>`;
  }
  html += `<h3>Line, exactly as written</h3><pre>${esc(entry.text)}</pre>`;
  $("detail").innerHTML = html;
  writeFragment(readFilters());
  renderRows();
}

function reveal(i) {
  let position = shown.indexOf(i);
  if (position < 0) {
    for (const id of Object.values(filterIds)) $(id).value = "";
    applyFilters();
    position = shown.indexOf(i);
  }
  const viewport = $("viewport");
  const top = position * ROW;
  if (top < viewport.scrollTop || top + ROW > viewport.scrollTop + viewport.clientHeight) {
    viewport.scrollTop = Math.max(0, top - viewport.clientHeight / 3);
  }
  showEntry(i);
}

function fillLists() {
  const types = new Map();
  const keys = new Map();
  for (const entry of entries) {
    types.set(entry.action, (types.get(entry.action) || 0) + 1);
    for (const key of entry.mutators) keys.set(key, (keys.get(key) || 0) + 1);
    if (entry.changes) {
      for (const c of entry.changes) {
        if (c && typeof c.path === "string") {
          const root = "\\." + substatePath(c.path).split(/[.[]/)[0];
          keys.set(root, (keys.get(root) || 0) + 1);
        }
      }
    }
  }
  for (const [type, n] of [...types].sort()) {
    $("f-type").add(new Option(`${type} (${n.toLocaleString("en-US")})`, type));
  }
  const sortedKeys = [...keys.keys()].sort();
  if (sortedKeys.length > 0) $("f-touched").placeholder = `e.g. ${shortKey(sortedKeys[0])}`;
  $("touched-list").innerHTML = sortedKeys.map((k) => `<option value="${esc(k)}"></option>`).join("");
  $("file-list").innerHTML = files.map((file) =>
    `<li>${esc(file.name)}: ${count(file.count, "line", "lines")}, ${count(file.bytes.length, "byte", "bytes")}</li>`).join("");
  const snapshots = [];
  entries.forEach((entry, i) => {
    if (entry.snapshot) snapshots.push(`<li><a href="#" data-goto="${i}">#${entry.seq}</a> ${esc(files[entry.file].name)}, line ${entry.line}, ${esc(entry.ts)}</li>`);
  });
  $("snapshot-list").innerHTML = snapshots.length ? snapshots.join("") : "<li>none</li>";
  body.dataset.snapshots = String(snapshots.length);
}

function showChain(broken) {
  const badge = $("chain");
  badge.className = `badge ${chain.status}`;
  const label = { intact: "✓", broken: "✗ Chain broken:", torn: "Torn last line:", incomplete: "Entries missing before the first:", unavailable: "Chain not verified:" }[chain.status];
  badge.textContent = `${label} ${chain.message}`;
  badge.title = chain.message;
  $("chain-text").textContent = chain.note ? `${chain.message}. ${chain.note}` : chain.message;
  $("chain-text").className = `note ${{ intact: "ok", broken: "bad" }[chain.status] || "warn"}`;
  body.dataset.chain = chain.status;
  body.dataset.chainMessage = chain.message;
  if (broken >= 0) {
    body.dataset.brokenFile = files[entries[broken].file].name;
    body.dataset.brokenLine = String(entries[broken].line);
    body.dataset.brokenSeq = entries[broken].seq === null ? "" : String(entries[broken].seq);
    const button = $("goto-broken");
    button.classList.remove("hidden");
    button.onclick = () => reveal(broken);
  }
}

async function start() {
  readFiles();
  const read = performance.now();
  fillLists();
  const entry = readFragment();
  applyFilters();
  $("chain").textContent = "Verifying the chain…";
  if (window.crypto && crypto.subtle) {
    await hashLines((done) => { $("chain").textContent = `Verifying the chain: ${done.toLocaleString("en-US")} of ${entries.length.toLocaleString("en-US")} lines hashed…`; });
    chain = verifyChain();
  } else {
    chain = { status: "unavailable", message: "this browser offers no WebCrypto (crypto.subtle) here, so the chain was not checked; open the page from a file or over HTTPS" };
  }
  const verified = performance.now();
  const broken = chain.status === "unavailable" ? -1 : markEntries(chain);
  showChain(broken);
  const filtering = applyFilters();
  if (entry !== null) {
    const index = entries.findIndex((e) => String(e.seq) === entry);
    if (index >= 0) reveal(index);
  }
  const ready = performance.now();
  const seconds = (ms) => (ms / 1000).toFixed(2);
  $("timing").textContent = `Opened in ${seconds(ready)} s: read ${seconds(read - started)} s, `
    + `verified ${seconds(verified - read)} s, filtered in ${filtering.toFixed(0)} ms.`;
  Object.assign(body.dataset, { readMs: (read - started).toFixed(0), verifyMs: (verified - read).toFixed(0),
    filterMs: filtering.toFixed(0), readyMs: ready.toFixed(0), ready: "1" });
}

let pending = 0;
function onFilterInput() {
  clearTimeout(pending);
  pending = setTimeout(applyFilters, 120);
}
for (const id of Object.values(filterIds)) {
  $(id).addEventListener("input", onFilterInput);
  $(id).addEventListener("change", applyFilters);
}
$("f-clear").addEventListener("click", () => {
  for (const id of Object.values(filterIds)) $(id).value = "";
  applyFilters();
});
$("viewport").addEventListener("scroll", () => requestAnimationFrame(renderRows));
window.addEventListener("resize", () => renderRows());
$("rows").addEventListener("click", (event) => {
  const row = event.target.closest(".row");
  if (row) showEntry(Number(row.dataset.i));
});
document.addEventListener("click", (event) => {
  const link = event.target.closest("[data-goto]");
  if (!link) return;
  event.preventDefault();
  reveal(Number(link.dataset.goto));
});
$("viewport").addEventListener("keydown", (event) => {
  if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
  event.preventDefault();
  const position = shown.indexOf(selected) + (event.key === "ArrowDown" ? 1 : -1);
  if (position >= 0 && position < shown.length) reveal(shown[position]);
});
start().catch((error) => {
  $("chain").className = "badge broken";
  $("chain").textContent = `The page failed: ${error.message}`;
  body.dataset.ready = "error";
  body.dataset.failure = String(error);
});
