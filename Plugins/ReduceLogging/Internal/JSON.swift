/// A JSON value that keeps the order of object members and the text of numbers, so that what is
/// parsed and written again is byte-for-byte predictable.
enum JSONValue: Sendable, Equatable {
  case null
  case bool(Bool)
  /// A number, as its JSON text (`12`, `-0.5`, `1e+20`).
  case number(String)
  case string(String)
  case array([JSONValue])
  /// Members in order; keys are not deduplicated.
  case object([(String, JSONValue)])

  static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
    switch (lhs, rhs) {
    case (.null, .null): true
    case (.bool(let a), .bool(let b)): a == b
    case (.number(let a), .number(let b)): a == b
    case (.string(let a), .string(let b)): a == b
    case (.array(let a), .array(let b)): a == b
    case (.object(let a), .object(let b)):
      a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
    default: false
    }
  }

  /// The value of the first member named `key`, for an object.
  subscript(key: String) -> JSONValue? {
    guard case .object(let members) = self else { return nil }
    return members.first { $0.0 == key }?.1
  }

  var stringValue: String? {
    if case .string(let text) = self { text } else { nil }
  }

  var intValue: Int? {
    if case .number(let text) = self { Int(text) } else { nil }
  }

  /// Compact JSON text: no whitespace, members in order.
  var serialized: String {
    var output = ""
    write(to: &output)
    return output
  }

  func write(to output: inout String) {
    switch self {
    case .null: output += "null"
    case .bool(let value): output += value ? "true" : "false"
    case .number(let text): output += text
    case .string(let text): JSONValue.writeString(text, to: &output)
    case .array(let elements):
      output += "["
      for (index, element) in elements.enumerated() {
        if index > 0 { output += "," }
        element.write(to: &output)
      }
      output += "]"
    case .object(let members):
      output += "{"
      for (index, (key, value)) in members.enumerated() {
        if index > 0 { output += "," }
        JSONValue.writeString(key, to: &output)
        output += ":"
        value.write(to: &output)
      }
      output += "}"
    }
  }

  static func writeString(_ text: String, to output: inout String) {
    output += "\""
    // Most strings need no escape: append them whole (appending scalar by scalar is slow).
    if !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
      output += text
      output += "\""
      return
    }
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": output += "\\\""
      case "\\": output += "\\\\"
      case "\n": output += "\\n"
      case "\r": output += "\\r"
      case "\t": output += "\\t"
      case "\u{08}": output += "\\b"
      case "\u{0C}": output += "\\f"
      case let control where control.value < 0x20:
        let hex = String(control.value, radix: 16)
        output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: output.unicodeScalars.append(scalar)
      }
    }
    output += "\""
  }
}

/// Why some bytes are not one JSON value.
enum JSONParseError: Error, Equatable {
  /// The input ended inside a value: it is a prefix of some JSON text (a torn write).
  case unexpectedEnd
  /// The input is wrong at a byte offset.
  case invalid(offset: Int, message: String)

  var message: String {
    switch self {
    case .unexpectedEnd: "the text ends in the middle of a value"
    case .invalid(let offset, let message): "\(message) at byte \(offset + 1)"
    }
  }
}

/// A strict RFC 8259 parser over UTF-8 bytes.
struct JSONParser {
  private let bytes: [UInt8]
  private var index = 0
  private var depth = 0

  /// Parses exactly one JSON value, with optional surrounding whitespace.
  static func parse(_ bytes: some Collection<UInt8>) throws(JSONParseError) -> JSONValue {
    var parser = JSONParser(bytes: Array(bytes))
    parser.skipWhitespace()
    let value = try parser.parseValue()
    parser.skipWhitespace()
    if parser.index < parser.bytes.count {
      throw .invalid(offset: parser.index, message: "unexpected text after the value")
    }
    return value
  }

  private init(bytes: [UInt8]) {
    self.bytes = bytes
  }

  private mutating func skipWhitespace() {
    while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
  }

  private func peek() throws(JSONParseError) -> UInt8 {
    guard index < bytes.count else { throw .unexpectedEnd }
    return bytes[index]
  }

  private mutating func parseValue() throws(JSONParseError) -> JSONValue {
    switch try peek() {
    case UInt8(ascii: "{"): return try parseObject()
    case UInt8(ascii: "["): return try parseArray()
    case UInt8(ascii: "\""): return .string(try parseString())
    case UInt8(ascii: "t"):
      try expectLiteral("true")
      return .bool(true)
    case UInt8(ascii: "f"):
      try expectLiteral("false")
      return .bool(false)
    case UInt8(ascii: "n"):
      try expectLiteral("null")
      return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
      return .number(try parseNumber())
    default:
      throw .invalid(offset: index, message: "unexpected character")
    }
  }

  private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
    let start = index
    let expected = literal.withUTF8Buffer { Array($0) }
    for byte in expected {
      guard index < bytes.count else { throw .unexpectedEnd }
      guard bytes[index] == byte else {
        throw .invalid(offset: start, message: "unexpected character")
      }
      index += 1
    }
  }

  private mutating func enter() throws(JSONParseError) {
    depth += 1
    if depth > 512 { throw .invalid(offset: index, message: "nesting too deep") }
  }

  private mutating func parseObject() throws(JSONParseError) -> JSONValue {
    try enter()
    defer { depth -= 1 }
    index += 1
    var members: [(String, JSONValue)] = []
    skipWhitespace()
    if try peek() == UInt8(ascii: "}") {
      index += 1
      return .object(members)
    }
    while true {
      skipWhitespace()
      guard try peek() == UInt8(ascii: "\"") else {
        throw .invalid(offset: index, message: "expected a member name")
      }
      let key = try parseString()
      skipWhitespace()
      guard try peek() == UInt8(ascii: ":") else {
        throw .invalid(offset: index, message: "expected ':'")
      }
      index += 1
      skipWhitespace()
      members.append((key, try parseValue()))
      skipWhitespace()
      switch try peek() {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "}"):
        index += 1
        return .object(members)
      default: throw .invalid(offset: index, message: "expected ',' or '}'")
      }
    }
  }

  private mutating func parseArray() throws(JSONParseError) -> JSONValue {
    try enter()
    defer { depth -= 1 }
    index += 1
    var elements: [JSONValue] = []
    skipWhitespace()
    if try peek() == UInt8(ascii: "]") {
      index += 1
      return .array(elements)
    }
    while true {
      skipWhitespace()
      elements.append(try parseValue())
      skipWhitespace()
      switch try peek() {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "]"):
        index += 1
        return .array(elements)
      default: throw .invalid(offset: index, message: "expected ',' or ']'")
      }
    }
  }

  private mutating func parseNumber() throws(JSONParseError) -> String {
    let start = index
    func digits(_ parser: inout JSONParser) throws(JSONParseError) -> Int {
      var count = 0
      while parser.index < parser.bytes.count,
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(parser.bytes[parser.index])
      {
        parser.index += 1
        count += 1
      }
      if count == 0 {
        guard parser.index < parser.bytes.count else { throw .unexpectedEnd }
        throw .invalid(offset: parser.index, message: "expected a digit")
      }
      return count
    }
    if bytes[index] == UInt8(ascii: "-") { index += 1 }
    let leadingZero = index < bytes.count && bytes[index] == UInt8(ascii: "0")
    let integerDigits = try digits(&self)
    if leadingZero, integerDigits > 1 {
      throw .invalid(offset: start, message: "a number has a leading zero")
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
      index += 1
      _ = try digits(&self)
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
      index += 1
      if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")
      {
        index += 1
      }
      _ = try digits(&self)
    }
    return String(decoding: bytes[start..<index], as: UTF8.self)
  }

  private mutating func parseString() throws(JSONParseError) -> String {
    let start = index
    index += 1
    var utf8: [UInt8] = []
    while true {
      guard index < bytes.count else { throw .unexpectedEnd }
      let byte = bytes[index]
      switch byte {
      case UInt8(ascii: "\""):
        index += 1
        guard let text = String(validating: utf8, as: UTF8.self) else {
          throw .invalid(offset: start, message: "a string is not valid UTF-8")
        }
        return text
      case UInt8(ascii: "\\"):
        index += 1
        guard index < bytes.count else { throw .unexpectedEnd }
        let escape = bytes[index]
        index += 1
        switch escape {
        case UInt8(ascii: "\""): utf8.append(0x22)
        case UInt8(ascii: "\\"): utf8.append(0x5C)
        case UInt8(ascii: "/"): utf8.append(0x2F)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"): try appendUnicodeEscape(to: &utf8)
        default: throw .invalid(offset: index - 2, message: "an invalid escape in a string")
        }
      case 0..<0x20:
        throw .invalid(offset: index, message: "a control character in a string")
      default:
        utf8.append(byte)
        index += 1
      }
    }
  }

  private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
    var value: UInt32 = 0
    for _ in 0..<4 {
      guard index < bytes.count else { throw .unexpectedEnd }
      let byte = bytes[index]
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: throw .invalid(offset: index, message: "an invalid \\u escape")
      }
      value = value << 4 | UInt32(digit)
      index += 1
    }
    return value
  }

  private mutating func appendUnicodeEscape(to utf8: inout [UInt8]) throws(JSONParseError) {
    let start = index - 2
    var code = try parseHex4()
    if (0xD800..<0xDC00).contains(code) {
      guard index + 1 < bytes.count else { throw .unexpectedEnd }
      guard bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
        throw .invalid(offset: start, message: "an unpaired surrogate")
      }
      index += 2
      let low = try parseHex4()
      guard (0xDC00..<0xE000).contains(low) else {
        throw .invalid(offset: start, message: "an unpaired surrogate")
      }
      code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
    } else if (0xDC00..<0xE000).contains(code) {
      throw .invalid(offset: start, message: "an unpaired surrogate")
    }
    guard let scalar = Unicode.Scalar(code) else {
      throw .invalid(offset: start, message: "an invalid \\u escape")
    }
    UTF8.encode(scalar) { utf8.append($0) }
  }
}
