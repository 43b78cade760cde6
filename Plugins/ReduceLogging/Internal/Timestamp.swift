import Foundation

/// ISO 8601 timestamps in UTC with milliseconds (`2024-05-01T12:00:00.123Z`), formatted and
/// parsed by hand: no formatter object to share between threads.
enum Timestamp {
  /// Formats a date; milliseconds are truncated (after rounding to the microsecond, which absorbs
  /// the binary representation's error), so a log never shows the future.
  static func format(_ date: Date) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(24)
    write(date, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// The text of the last second written, up to its milliseconds (`2024-05-01T12:00:00.`),
  /// kept to write the timestamps within that second.
  ///
  /// A log writes many entries a second: measured on an audited ledger, finding the date and
  /// writing its digits anew for each cost about 400 instructions more per entry.
  struct LastSecond {
    /// The second's number since 1970; `Int64.min` before any.
    var second = Int64.min
    /// The 20 bytes of its text, in 24.
    var text: (UInt64, UInt64, UInt64) = (0, 0, 0)
  }

  /// Appends the text of ``format(_:)`` to some UTF-8, digit by digit: a JSON line's timestamp
  /// without a `String` made for it.
  static func write(_ date: Date, to bytes: inout some ByteOutput) {
    var last = LastSecond()
    write(date, to: &bytes, reusing: &last)
  }

  /// Appends the text of ``format(_:)``, reusing the text of `last` within its second, and
  /// keeping this one's there otherwise.
  static func write(_ date: Date, to bytes: inout some ByteOutput, reusing last: inout LastSecond) {
    let microseconds = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
    let totalMilliseconds =
      microseconds >= 0 ? microseconds / 1000 : (microseconds - 999) / 1000
    let second =
      totalMilliseconds >= 0 ? totalMilliseconds / 1000 : (totalMilliseconds - 999) / 1000
    if second == last.second {
      var text = last.text
      withUnsafeMutableBytes(of: &text) { buffer in
        var rest = totalMilliseconds - second * 1000
        for offset in stride(from: 22, through: 20, by: -1) {
          buffer[offset] = UInt8(ascii: "0") + UInt8(rest % 10)
          rest /= 10
        }
        buffer[23] = UInt8(ascii: "Z")
        bytes.append(bytes: UnsafeRawBufferPointer(buffer))
      }
      return
    }
    var days = totalMilliseconds / 86_400_000
    var milliseconds = totalMilliseconds % 86_400_000
    if milliseconds < 0 {
      milliseconds += 86_400_000
      days -= 1
    }
    let (year, month, day) = civil(fromDays: days)
    let seconds = milliseconds / 1000
    guard (0...9999).contains(year) else {
      let text =
        "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(seconds / 3600, 2)):"
        + "\(pad(seconds / 60 % 60, 2)):\(pad(seconds % 60, 2)).\(pad(milliseconds % 1000, 3))Z"
      bytes.append(text: text)
      return
    }
    // The 24 characters, written into a buffer on the stack and appended at once.
    var text: (UInt64, UInt64, UInt64) = (0, 0, 0)
    withUnsafeMutableBytes(of: &text) { buffer in
      var index = 0
      func put(_ value: Int64, _ width: Int) {
        var rest = value
        for offset in stride(from: width - 1, through: 0, by: -1) {
          buffer[index + offset] = UInt8(ascii: "0") + UInt8(rest % 10)
          rest /= 10
        }
        index += width
      }
      func put(_ character: Unicode.Scalar) {
        buffer[index] = UInt8(ascii: character)
        index += 1
      }
      put(year, 4)
      put("-")
      put(month, 2)
      put("-")
      put(day, 2)
      put("T")
      put(seconds / 3600, 2)
      put(":")
      put(seconds / 60 % 60, 2)
      put(":")
      put(seconds % 60, 2)
      put(".")
      put(milliseconds % 1000, 3)
      put("Z")
      bytes.append(bytes: UnsafeRawBufferPointer(buffer))
    }
    last = LastSecond(second: second, text: text)
  }

  /// Parses `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM:SSZ` or `YYYY-MM-DDTHH:MM:SS.fffZ` (UTC).
  static func parse(_ text: String) -> Date? {
    let bytes = Array(text.utf8)
    func number(_ range: Range<Int>) -> Int64? {
      guard range.upperBound <= bytes.count else { return nil }
      var value: Int64 = 0
      for byte in bytes[range] {
        guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
        value = value * 10 + Int64(byte - UInt8(ascii: "0"))
      }
      return value
    }
    func byte(_ offset: Int, is character: Character) -> Bool {
      offset < bytes.count && bytes[offset] == character.asciiValue
    }
    guard let year = number(0..<4), byte(4, is: "-"), let month = number(5..<7), byte(7, is: "-"),
      let day = number(8..<10), (1...12).contains(month), (1...31).contains(day)
    else { return nil }
    var milliseconds = days(fromCivil: year, month, day) * 86_400_000
    if bytes.count == 10 { return Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
    guard byte(10, is: "T"), let hour = number(11..<13), byte(13, is: ":"),
      let minute = number(14..<16), byte(16, is: ":"), let second = number(17..<19),
      hour < 24, minute < 60, second < 61
    else { return nil }
    milliseconds += ((hour * 60 + minute) * 60 + second) * 1000
    var offset = 19
    if byte(19, is: ".") {
      var digits = 0
      var fraction: Int64 = 0
      offset = 20
      while offset < bytes.count, let digit = number(offset..<(offset + 1)) {
        if digits < 3 { fraction = fraction * 10 + digit }
        digits += 1
        offset += 1
      }
      guard digits > 0 else { return nil }
      for _ in min(digits, 3)..<3 { fraction *= 10 }
      milliseconds += fraction
    }
    guard byte(offset, is: "Z"), offset + 1 == bytes.count else { return nil }
    return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
  }

  private static func pad(_ value: Int64, _ width: Int) -> String {
    let text = String(value)
    return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
  }

  // Howard Hinnant's civil-date algorithms (proleptic Gregorian calendar).
  private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }

  private static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }
}
