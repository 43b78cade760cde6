extension String {
  /// The string with its control characters written as `\u{1B}`-style escapes.
  ///
  /// Titles come from the keyboard, from scripts, from `load FILE` and from the state file, so
  /// they may hold an escape sequence that would clear the screen, retitle the window or hide
  /// the text after it. The demo prints every title, echoed line and file name it did not
  /// write itself through this, so that what reaches the terminal is text, never a command.
  ///
  /// Escaped are the C0 controls (U+0000 to U+001F: ESC, BEL, tab, carriage return and line
  /// feed among them), DEL (U+007F) and the C1 controls (U+0080 to U+009F: CSI and NEL among
  /// them), each as `\u{` and at least two uppercase hex digits and `}`: ESC is `\u{1B}`.
  /// Everything else, a backslash included, is kept as it is.
  ///
  /// - Returns: The string, with nothing in it a terminal reads as a control.
  /// - Complexity: O(*n*) in the length of the string.
  func escapingControlCharacters() -> String {
    guard unicodeScalars.contains(where: \.isTerminalControl) else { return self }
    var escaped = String.UnicodeScalarView()
    for scalar in unicodeScalars {
      guard scalar.isTerminalControl else {
        escaped.append(scalar)
        continue
      }
      let hex = String(scalar.value, radix: 16, uppercase: true)
      let digits = hex.count < 2 ? "0" + hex : hex
      escaped.append(contentsOf: "\\u{\(digits)}".unicodeScalars)
    }
    return String(escaped)
  }
}

extension Unicode.Scalar {
  /// Whether a terminal may act on the scalar instead of showing it: C0, DEL or C1.
  fileprivate var isTerminalControl: Bool {
    value < 0x20 || (0x7F...0x9F).contains(value)
  }
}
