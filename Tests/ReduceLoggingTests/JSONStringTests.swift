import Testing

@testable import ReduceLogging

/// JSON string literals written as UTF-8 bytes are the ones written as text.
@Suite struct JSONStringTests {
  static let texts = [
    "", "plain", "quote \" inside", "\\Ledger.balances", "ends with a backslash \\",
    "\n\r\t\u{08}\u{0C}", "\u{00}\u{01}\u{1F} controls", "héllo ✓ 😀 \u{2028}", "\"\\\"",
    "a\u{7F}b",
  ]

  @Test("bytes and text escape alike", arguments: texts)
  func sameAsText(_ text: String) throws {
    var bytes: [UInt8] = []
    JSONValue.writeString(text, to: &bytes)
    var string = ""
    JSONValue.writeString(text, to: &string)
    #expect(bytes == Array(string.utf8))
    #expect(try JSONParser.parse(bytes) == .string(text))
  }

  @Test("a control character is a lowercase \\u escape")
  func controlEscape() {
    var bytes: [UInt8] = []
    JSONValue.writeString("\u{1B}\u{00}", to: &bytes)
    #expect(String(decoding: bytes, as: UTF8.self) == #""\u001b\u0000""#)
  }
}
