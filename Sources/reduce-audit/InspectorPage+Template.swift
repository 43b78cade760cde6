/// The page's resources, embedded in the executable by SwiftPM (`PackageResources`), so that
/// `reduce-audit html` needs no file beside the binary and works from any directory.
extension InspectorPage {
  /// A place in `inspector.html` that the page fills, written `{{name}}` there.
  enum Slot: String, CaseIterable {
    /// The log files' names, escaped, joined by ", ": in the title and the header.
    case names
    /// `inspector.css`, inside the page's `<style>` element.
    case style
    /// One `<script type="application/octet-stream">` element per log file.
    case logs
    /// `inspector.js`, inside the page's last `<script>` element.
    case script
  }

  /// `inspector.html` cut at its slots: text to copy, and slots to fill.
  struct Template {
    /// One part of the template.
    enum Part {
      /// Markup copied as it is.
      case text(String)
      /// A slot, filled with what ``filled(with:)`` gives for it.
      case slot(Slot)
    }

    /// The parts, in the order of the page.
    var parts: [Part]

    /// Cuts markup at each `{{name}}` that names a ``Slot``; any other braces are text.
    init(_ markup: String) {
      parts = []
      var rest = markup[...]
      var text = ""
      while let open = rest.range(of: "{{") {
        text += rest[..<open.lowerBound]
        let afterOpen = rest[open.upperBound...]
        if let close = afterOpen.range(of: "}}"),
          let slot = Slot(rawValue: String(afterOpen[..<close.lowerBound]))
        {
          parts.append(.text(text))
          parts.append(.slot(slot))
          text = ""
          rest = afterOpen[close.upperBound...]
        } else {
          text += "{{"
          rest = afterOpen
        }
      }
      parts.append(.text(text + rest))
    }

    /// The page: the template's text with each slot replaced by `content(slot)`.
    ///
    /// What a slot is filled with is copied as it is and never read for slots again, so a log's
    /// name or bytes that contain `{{script}}` stay text.
    func filled(with content: (Slot) -> String) -> String {
      var page = ""
      for part in parts {
        switch part {
        case .text(let text): page += text
        case .slot(let slot): page += content(slot)
        }
      }
      return page
    }
  }

  /// `inspector.html`, cut at its slots.
  static let template = Template(String(decoding: PackageResources.inspector_html, as: UTF8.self))

  /// `inspector.css`, the page's style sheet, without the file's last newline.
  static let style = resourceText(PackageResources.inspector_css)

  /// `inspector.js`, the page's script, without the file's last newline.
  ///
  /// The script reads the embedded logs, verifies their chain and shows them.
  static let script = resourceText(PackageResources.inspector_js)

  /// An embedded text file's contents without its last newline, which the page does not keep
  /// before the closing tag.
  static func resourceText(_ bytes: [UInt8]) -> String {
    let text = String(decoding: bytes, as: UTF8.self)
    return text.hasSuffix("\n") ? String(text.dropLast()) : text
  }
}
