extension InspectorPage {
  /// The filters, the virtualised timeline, one entry's details, and the start.
  static let viewing = #"""
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
    """#
}
