/// Reads what a chained line is from the way it begins, without parsing its JSON.
///
/// A writer begins every line `{"seq":N,"prev":"<64 hex>","ts":"<time>"`, then `,"action":`,
/// `,"snapshot":` or `,"checkpoint":`. A line of another shape is an entry as far as this
/// says; the verifier, which parses it, tells what it really is.
enum LineKind {
  /// The kind of a line.
  static func of(_ bytes: [UInt8]) -> JournalLine.Kind {
    bytes.withUnsafeBufferPointer { kind(of: $0[...]) }
  }

  /// The kind of a line within a larger buffer.
  static func kind(of bytes: Slice<UnsafeBufferPointer<UInt8>>) -> JournalLine.Kind {
    var index = bytes.startIndex
    guard skip("{\"seq\":", in: bytes, at: &index) else { return .entry }
    while index < bytes.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
      index += 1
    }
    guard skip(",\"prev\":\"", in: bytes, at: &index) else { return .entry }
    index += 64
    guard skip("\",\"ts\":\"", in: bytes, at: &index) else { return .entry }
    while index < bytes.endIndex, bytes[index] != UInt8(ascii: "\"") { index += 1 }
    index += 1
    var after = index
    if skip(",\"snapshot\":", in: bytes, at: &after) { return .snapshot }
    after = index
    if skip(",\"checkpoint\":", in: bytes, at: &after) { return .checkpoint }
    return .entry
  }

  /// The `seq` a line begins with (`{"seq":N,`), or nil when it does not begin so.
  static func sequence(of bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
    var index = bytes.startIndex
    guard skip("{\"seq\":", in: bytes, at: &index) else { return nil }
    var value = 0
    let start = index
    while index < bytes.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
      guard index - start < 18 else { return nil }
      value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
      index += 1
    }
    guard index > start, index < bytes.endIndex, bytes[index] == UInt8(ascii: ",") else {
      return nil
    }
    return value
  }

  /// The `seq` a line begins with, or nil.
  static func sequence(of bytes: [UInt8]) -> Int? {
    bytes.withUnsafeBufferPointer { sequence(of: $0[...]) }
  }

  private static func skip(
    _ literal: StaticString, in bytes: Slice<UnsafeBufferPointer<UInt8>>, at index: inout Int
  ) -> Bool {
    var position = index
    let matched = literal.withUTF8Buffer { text in
      for byte in text {
        guard position < bytes.endIndex, bytes[position] == byte else { return false }
        position += 1
      }
      return true
    }
    if matched { index = position }
    return matched
  }
}
