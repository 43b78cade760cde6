extension InspectorPage {
  /// The page's script: it reads the embedded logs, verifies their chain and shows them.
  static var script: String { reading + verifying + viewing }

  /// Decodes the embedded files and parses each line once.
  static let reading = #"""
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
    """#

  /// Verifies the chain with WebCrypto by the rule of `reduce-audit verify`.
  static let verifying = #"""
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
    """#
}
