/// The shape of a JSON text and the line each value starts on, to say where a state file is
/// wrong.
///
/// `JSONDecoder` reports a coding path (`items`, index 2, `title`) but no line, and for a syntax
/// error neither; the demo reads a file that failed to decode (or to validate) once more with
/// this scanner, to name the line of the value at fault, or the line and column where the text
/// stops being JSON. It checks the grammar of RFC 8259 and keeps no values, only their lines.
struct JSONOutline {
  /// Where and why a text is not JSON.
  struct SyntaxError: Error, Equatable {
    /// The line, from 1.
    var line: Int
    /// The column, from 1, in characters.
    var column: Int
    /// What the scanner expected there, as the end of a sentence: `expected a value`.
    var problem: String
  }

  /// A value: an object's members or an array's elements, and the line the value starts on.
  indirect enum Node {
    case object(line: Int, members: [String: Node])
    case array(line: Int, elements: [Node])
    case scalar(line: Int)

    /// The line the value starts on.
    var line: Int {
      switch self {
      case .object(let line, _), .array(let line, _), .scalar(let line): line
      }
    }
  }

  /// The top-level value.
  let root: Node

  /// Scans a JSON text.
  ///
  /// - Parameter bytes: The text, UTF-8.
  /// - Throws: ``SyntaxError`` at the first place the text is not JSON.
  init(_ bytes: [UInt8]) throws(SyntaxError) {
    var scanner = Scanner(bytes: bytes)
    scanner.skipWhitespace()
    root = try scanner.value()
    scanner.skipWhitespace()
    guard scanner.isAtEnd else { throw scanner.error("expected the end of the file") }
  }

  /// The line of the value at a coding path, or of the deepest value on the way that exists.
  ///
  /// - Parameter path: Keys and indexes from the top-level value, as `DecodingError` gives them.
  /// - Returns: A line number, from 1.
  func line(at path: [any CodingKey]) -> Int {
    var node = root
    for key in path {
      switch node {
      case .object(_, let members):
        guard let member = members[key.stringValue] else { return node.line }
        node = member
      case .array(_, let elements):
        guard let index = key.intValue, elements.indices.contains(index) else { return node.line }
        node = elements[index]
      case .scalar:
        return node.line
      }
    }
    return node.line
  }
}

/// Reads a JSON text byte by byte, keeping the line and the start of the line.
private struct Scanner {
  let bytes: [UInt8]
  var index = 0
  var line = 1
  var lineStart = 0

  var isAtEnd: Bool { index == bytes.count }
  var current: UInt8? { index < bytes.count ? bytes[index] : nil }

  /// An error at the current position.
  func error(_ problem: String) -> JSONOutline.SyntaxError {
    let before = bytes[lineStart..<min(index, bytes.count)]
    let column = String(decoding: before, as: UTF8.self).count + 1
    return JSONOutline.SyntaxError(
      line: line, column: column, problem: isAtEnd ? "the file ends too early" : problem)
  }

  mutating func skipWhitespace() {
    while let byte = current, [0x20, 0x09, 0x0A, 0x0D].contains(byte) {
      index += 1
      if byte == 0x0A {
        line += 1
        lineStart = index
      }
    }
  }

  mutating func value() throws(JSONOutline.SyntaxError) -> JSONOutline.Node {
    let start = line
    guard let byte = current else { throw error("expected a value") }
    switch byte {
    case UInt8(ascii: "{"): return try object()
    case UInt8(ascii: "["): return try array()
    case UInt8(ascii: "\""): _ = try string()
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
    case UInt8(ascii: "t"): try literal("true")
    case UInt8(ascii: "f"): try literal("false")
    case UInt8(ascii: "n"): try literal("null")
    default: throw error("expected a value")
    }
    return .scalar(line: start)
  }

  private mutating func object() throws(JSONOutline.SyntaxError) -> JSONOutline.Node {
    let start = line
    var members: [String: JSONOutline.Node] = [:]
    index += 1
    skipWhitespace()
    if current == UInt8(ascii: "}") {
      index += 1
      return .object(line: start, members: members)
    }
    while true {
      guard current == UInt8(ascii: "\"") else { throw error("expected a name in quotes") }
      let name = try string()
      skipWhitespace()
      guard current == UInt8(ascii: ":") else { throw error("expected \":\" after a name") }
      index += 1
      skipWhitespace()
      members[name] = try value()
      skipWhitespace()
      switch current {
      case UInt8(ascii: ","):
        index += 1
        skipWhitespace()
      case UInt8(ascii: "}"):
        index += 1
        return .object(line: start, members: members)
      default:
        throw error("expected \",\" or \"}\"")
      }
    }
  }

  private mutating func array() throws(JSONOutline.SyntaxError) -> JSONOutline.Node {
    let start = line
    var elements: [JSONOutline.Node] = []
    index += 1
    skipWhitespace()
    if current == UInt8(ascii: "]") {
      index += 1
      return .array(line: start, elements: elements)
    }
    while true {
      elements.append(try value())
      skipWhitespace()
      switch current {
      case UInt8(ascii: ","):
        index += 1
        skipWhitespace()
      case UInt8(ascii: "]"):
        index += 1
        return .array(line: start, elements: elements)
      default:
        throw error("expected \",\" or \"]\"")
      }
    }
  }

  /// A string; its value is decoded only as far as names need (escapes as written).
  private mutating func string() throws(JSONOutline.SyntaxError) -> String {
    index += 1
    var content: [UInt8] = []
    while let byte = current {
      switch byte {
      case UInt8(ascii: "\""):
        index += 1
        return String(decoding: content, as: UTF8.self)
      case UInt8(ascii: "\\"):
        index += 1
        guard let escaped = current else { break }
        if escaped == UInt8(ascii: "u") {
          for _ in 0..<4 {
            index += 1
            guard let digit = current, digit.isHexDigit else {
              throw error("expected four hex digits after \\u")
            }
          }
        } else if !Array("\"\\/bfnrt".utf8).contains(escaped) {
          throw error("expected an escape such as \\n or \\\" after a backslash")
        }
        content += [UInt8(ascii: "\\"), escaped]
        index += 1
      case 0..<0x20:
        throw error("expected the end of the text before a control character or line break")
      default:
        content.append(byte)
        index += 1
      }
    }
    throw error("expected a closing quotation mark")
  }

  private mutating func number() throws(JSONOutline.SyntaxError) {
    if current == UInt8(ascii: "-") { index += 1 }
    guard let first = current, first.isDigit else { throw error("expected a digit") }
    index += 1
    if first != UInt8(ascii: "0") { skipDigits() }
    if current == UInt8(ascii: ".") {
      index += 1
      guard current?.isDigit == true else { throw error("expected a digit after \".\"") }
      skipDigits()
    }
    if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
      index += 1
      if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
      guard current?.isDigit == true else { throw error("expected a digit in the exponent") }
      skipDigits()
    }
  }

  private mutating func skipDigits() {
    while current?.isDigit == true { index += 1 }
  }

  private mutating func literal(_ word: String) throws(JSONOutline.SyntaxError) {
    let end = index + word.utf8.count
    guard end <= bytes.count, bytes[index..<end].elementsEqual(word.utf8) else {
      throw error("expected a value")
    }
    index = end
  }
}

extension UInt8 {
  fileprivate var isDigit: Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) }
  fileprivate var isHexDigit: Bool {
    isDigit || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self | 0x20)
  }
}
