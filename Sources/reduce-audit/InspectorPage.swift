import Foundation

/// The page `reduce-audit html` writes: one HTML file holding the logs' exact bytes and the code
/// that reads, filters and verifies them in the browser, with no network resources.
///
/// Each log is embedded in base64 in a `<script type="application/octet-stream">` element, so
/// that the page decodes the very bytes the hashes were computed over; the page's
/// Content-Security-Policy forbids every fetch. The page's markup, style sheet and script are the
/// files `Resources/inspector.html`, `inspector.css` and `inspector.js`, embedded in the
/// executable when it is built (`InspectorPage+Template.swift` says how they are put together).
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
    let names = escape(files.map(\.name).joined(separator: ", "))
    var logs = ""
    for file in files {
      logs += "<script type=\"application/octet-stream\" class=\"log-file\" data-name=\""
      logs += escape(file.name) + "\" data-size=\"\(file.bytes.count)\">"
      logs += file.bytes.base64EncodedString()
      logs += "</script>\n"
    }
    return template.filled { slot in
      switch slot {
      case .names: names
      case .style: style
      case .logs: logs
      case .script: script
      }
    }
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
