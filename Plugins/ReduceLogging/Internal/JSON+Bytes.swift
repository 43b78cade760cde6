// The JSON of values written as UTF-8 bytes: a JSON line is built as bytes, hashed and written
// as they are.

extension JSONValue {
  /// Writes the value's compact JSON as UTF-8, as ``write(to:)-(String)`` writes text.
  func write(to output: inout some ByteOutput) {
    switch self {
    case .null: output.append("null")
    case .bool(let value): output.append(value ? "true" : "false")
    case .number(let text): output.append(text: text)
    case .string(let text): JSONValue.writeString(text, to: &output)
    case .array(let elements):
      output.append(UInt8(ascii: "["))
      for (index, element) in elements.enumerated() {
        if index > 0 { output.append(UInt8(ascii: ",")) }
        element.write(to: &output)
      }
      output.append(UInt8(ascii: "]"))
    case .object(let members):
      output.append(UInt8(ascii: "{"))
      for (index, (key, value)) in members.enumerated() {
        if index > 0 { output.append(UInt8(ascii: ",")) }
        JSONValue.writeString(key, to: &output)
        output.append(UInt8(ascii: ":"))
        value.write(to: &output)
      }
      output.append(UInt8(ascii: "}"))
    }
  }

  /// Writes a JSON string literal as UTF-8, escaped as ``writeString(_:to:)-(_,String)`` does.
  ///
  /// Only ASCII bytes are ever escaped, and no byte of a multi-byte UTF-8 sequence is ASCII, so
  /// the text is copied in runs between the bytes that need an escape. Measured on an audited
  /// dispatch, whose mutator key (`\Ledger.balances`) has a backslash: escaping through a
  /// `String`, scalar by scalar, cost about 10,000 instructions per entry.
  static func writeString(_ text: String, to output: inout some ByteOutput) {
    output.append(UInt8(ascii: "\""))
    var text = text
    text.withUTF8 { utf8 in
      var runStart = 0
      for index in utf8.indices {
        let byte = utf8[index]
        guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else {
          continue
        }
        output.append(
          bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: utf8[runStart..<index])))
        appendEscape(of: byte, to: &output)
        runStart = index + 1
      }
      output.append(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: utf8[runStart...])))
    }
    output.append(UInt8(ascii: "\""))
  }

  /// Appends the escape of a quote, a backslash or a control character.
  private static func appendEscape(of byte: UInt8, to output: inout some ByteOutput) {
    output.append(UInt8(ascii: "\\"))
    switch byte {
    case UInt8(ascii: "\""): output.append(UInt8(ascii: "\""))
    case UInt8(ascii: "\\"): output.append(UInt8(ascii: "\\"))
    case 0x0A: output.append(UInt8(ascii: "n"))
    case 0x0D: output.append(UInt8(ascii: "r"))
    case 0x09: output.append(UInt8(ascii: "t"))
    case 0x08: output.append(UInt8(ascii: "b"))
    case 0x0C: output.append(UInt8(ascii: "f"))
    default:
      // `\u00XX`, lowercase, as `String(_:radix: 16)` writes it in the `String` version.
      let digits = Array("0123456789abcdef".utf8)
      output.append("u00")
      output.append(digits[Int(byte >> 4)])
      output.append(digits[Int(byte & 0x0f)])
    }
  }
}

extension ByteOutput {
  /// Appends an integer's decimal digits, as `String(_:)` writes them: formed in a buffer on
  /// the stack, then appended at once (appending digit by digit checks the array's storage at
  /// every byte).
  mutating func appendDecimal(_ value: Int64) {
    if value < 0 { append(UInt8(ascii: "-")) }
    appendDecimal(value.magnitude)
  }

  /// Appends an unsigned integer's decimal digits.
  mutating func appendDecimal(_ value: UInt64) {
    // Twenty digits hold any UInt64: written from the end of 24 bytes.
    var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
    Swift.withUnsafeMutableBytes(of: &digits) { buffer in
      var magnitude = value
      var start = buffer.count
      repeat {
        start -= 1
        buffer[start] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
        magnitude /= 10
      } while magnitude != 0
      append(bytes: UnsafeRawBufferPointer(rebasing: buffer[start...]))
    }
  }
}
