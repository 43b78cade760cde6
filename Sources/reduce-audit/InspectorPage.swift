import Foundation

/// The page `reduce-audit html` writes: one HTML file holding the logs' exact bytes and the code
/// that reads, filters and verifies them in the browser, with no network resources.
///
/// Each log is embedded in base64 in a `<script type="application/octet-stream">` element, so
/// that the page decodes the very bytes the hashes were computed over; the page's
/// Content-Security-Policy forbids every fetch. The style and the script are in
/// `InspectorPage+Style.swift` and `InspectorPage+Script.swift`.
enum InspectorPage {
  /// One log file of the page.
  struct File {
    /// Its name as given on the command line, shown in the page and in its messages.
    var name: String
    /// Its exact contents.
    var bytes: Data
  }

  /// The page for log files, oldest first.
  static func render(_ files: [File]) -> String {
    let names = files.map(\.name).joined(separator: ", ")
    var data = ""
    for file in files {
      data += "<script type=\"application/octet-stream\" class=\"log-file\" data-name=\""
      data += escape(file.name) + "\" data-size=\"\(file.bytes.count)\">"
      data += file.bytes.base64EncodedString()
      data += "</script>\n"
    }
    return """
      <!doctype html>
      <html lang="en">
      <head>
      <meta charset="utf-8">
      <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <title>\(escape(names)) · Reduce audit log</title>
      <style>\(style)</style>
      </head>
      <body data-ready="" data-chain="pending">
      <header>
        <h1>Reduce audit log</h1>
        <span id="names" class="names">\(escape(names))</span>
        <span id="chain" class="badge pending" role="status">Reading the log…</span>
        <button id="goto-broken" class="hidden" type="button">Go to the broken line</button>
      </header>
      <main>
        <aside id="filters" aria-label="Filters">
          <label>Action type<select id="f-type"><option value="">all</option></select></label>
          <label>Outcome<select id="f-outcome"><option value="">all</option>\
      <option value="ok">ok</option><option value="failed">failed</option></select></label>
          <label>Touched (mutator or substate)<input id="f-touched" list="touched-list" \
      placeholder="e.g. \\.accounts" autocomplete="off" spellcheck="false"></label>
          <datalist id="touched-list"></datalist>
          <label>Text<input id="f-text" type="search" placeholder="anything in the line" \
      spellcheck="false"></label>
          <div class="range">
            <label>Seq from<input id="f-from" type="number" inputmode="numeric"></label>
            <label>to<input id="f-to" type="number" inputmode="numeric"></label>
          </div>
          <button id="f-clear" type="button">Clear the filters</button>
          <p id="count" class="count"></p>
          <h2>Chain</h2>
          <p id="chain-text" class="note warn">Verifying…</p>
          <h2>Files</h2>
          <ul id="file-list" class="plain"></ul>
          <h2>Snapshots</h2>
          <ul id="snapshot-list" class="plain"></ul>
          <p id="timing" class="timing"></p>
        </aside>
        <section id="timeline" aria-label="Timeline">
          <div class="row head" role="row"><span>seq</span><span>time (UTC)</span>\
      <span>action</span><span>outcome</span><span>touched / error</span></div>
          <div id="viewport" tabindex="0"><div id="spacer"></div><div id="rows"></div></div>
        </section>
        <section id="detail" aria-label="Entry"><p class="hint">Select an entry to see its \
      payload, its error and its place in the chain.</p></section>
      </main>
      <noscript><p class="noscript">This page needs JavaScript to read the log.</p></noscript>
      \(data)<script>\(script)</script>
      </body>
      </html>

      """
  }

  /// Text made safe for HTML content and attribute values.
  static func escape(_ text: String) -> String {
    var escaped = ""
    escaped.reserveCapacity(text.utf8.count)
    for character in text {
      switch character {
      case "&": escaped += "&amp;"
      case "<": escaped += "&lt;"
      case ">": escaped += "&gt;"
      case "\"": escaped += "&quot;"
      case "'": escaped += "&#39;"
      default: escaped.append(character)
      }
    }
    return escaped
  }
}
