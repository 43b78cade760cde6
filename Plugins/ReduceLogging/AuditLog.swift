public import Foundation

/// Checks hash-chained audit logs written by a ``FileLogSink`` with `chained: true`.
///
/// Each line of such a log is one JSON entry. Its `seq` is its line number and its `prev` is
/// the SHA-256 (lowercase hex) of the previous line's exact bytes, without the newline; the
/// first entry's `prev` is ``genesisHash``. Editing, removing, inserting or reordering entries
/// therefore breaks the chain at that point.
///
/// ```swift
/// do {
///   let count = try AuditLog.verify(contentsOf: URL(fileURLWithPath: "audit.log"))
///   print("\(count) entries, chain intact")
/// } catch {
///   print(error)  // names the first bad line and why
/// }
/// ```
public enum AuditLog {
  /// The `prev` of a log's first entry: 64 zeros.
  public static let genesisHash = String(repeating: "0", count: 64)

  /// The SHA-256 of a line, as the next entry's `prev` records it.
  ///
  /// - Parameter line: The line's bytes, without its newline.
  /// - Returns: The digest in lowercase hexadecimal (64 characters).
  public static func hash(ofLine line: some Sequence<UInt8>) -> String {
    SHA256.hex(of: line)
  }

  /// Verifies the chain of a log file, reading it a piece at a time.
  ///
  /// Nothing is written: the file is only read.
  ///
  /// - Parameter url: The log file.
  /// - Returns: The number of entries, all intact.
  /// - Throws: An ``AuditLogError`` that names the first bad line and why; every entry before
  ///   that line is intact (``AuditLogError/intactEntries``).
  /// - Complexity: O(*n*) in the file's size; memory is bounded by the longest line.
  public static func verify(contentsOf url: URL) throws(AuditLogError) -> Int {
    let handle: FileHandle
    do {
      handle = try FileHandle(forReadingFrom: url)
    } catch {
      throw .unreadable(path: url.path, reason: error.localizedDescription)
    }
    // Closing a file opened for reading cannot lose data; there is nothing to report.
    defer { try? handle.close() }
    var verifier = ChainVerifier()
    var pending: [UInt8] = []
    while true {
      let chunk: Data?
      do {
        chunk = try handle.read(upToCount: 1 << 20)
      } catch {
        throw .unreadable(path: url.path, reason: error.localizedDescription)
      }
      guard let chunk, !chunk.isEmpty else { break }
      pending.append(contentsOf: chunk)
      var start = 0
      while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
        try verifier.check(pending[start..<newline], terminated: true)
        start = newline + 1
      }
      pending.removeFirst(start)
    }
    if !pending.isEmpty { try verifier.check(pending[...], terminated: false) }
    return verifier.count
  }

  /// Verifies the chain of a log held in memory.
  ///
  /// - Parameter bytes: The log's contents.
  /// - Returns: The number of entries, all intact.
  /// - Throws: An ``AuditLogError`` that names the first bad line and why.
  public static func verify(_ bytes: [UInt8]) throws(AuditLogError) -> Int {
    var verifier = ChainVerifier()
    var start = 0
    while let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
      try verifier.check(bytes[start..<newline], terminated: true)
      start = newline + 1
    }
    if start < bytes.count { try verifier.check(bytes[start...], terminated: false) }
    return verifier.count
  }

  /// Whether a text is a lowercase hexadecimal SHA-256.
  static func isHash(_ text: String) -> Bool {
    text.utf8.count == 64
      && text.utf8.allSatisfy {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
          || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
      }
  }
}

/// Checks a log's lines one after another.
struct ChainVerifier {
  private(set) var count = 0
  private var lastHash = AuditLog.genesisHash

  /// Checks the next line; `terminated` is false for a last line without a newline.
  mutating func check(_ line: ArraySlice<UInt8>, terminated: Bool) throws(AuditLogError) {
    let number = count + 1
    let entry: JSONValue
    do {
      entry = try JSONParser.parse(line)
    } catch {
      // A write cut short leaves a prefix of an entry, without its newline.
      if !terminated, error == .unexpectedEnd { throw .tornLastLine(line: number) }
      throw .malformedEntry(line: number, reason: line.isEmpty ? "an empty line" : error.message)
    }
    guard case .object = entry else {
      throw .malformedEntry(line: number, reason: "not a JSON object")
    }
    guard let sequence = entry["seq"]?.intValue else {
      throw .malformedEntry(line: number, reason: "no integer `seq`")
    }
    guard let previous = entry["prev"]?.stringValue, AuditLog.isHash(previous) else {
      throw .malformedEntry(line: number, reason: "no SHA-256 `prev`")
    }
    guard sequence == number else {
      throw .sequenceGap(line: number, expected: number, found: sequence)
    }
    guard previous == lastHash else {
      throw .brokenLink(line: max(number - 1, 1), recordedBy: number)
    }
    // Complete, but the newline that ends every written entry is missing: still a torn write.
    if !terminated { throw .tornLastLine(line: number) }
    lastHash = SHA256.hex(of: line)
    count = number
  }
}

/// Why an audit log failed verification, naming the first bad line.
///
/// Every entry before ``line`` is intact. A ``tornLastLine(line:)`` is what a crash in the middle
/// of a write leaves; every other case means the file was changed after it was written (or
/// is not an audit log).
public enum AuditLogError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The line is not a chained entry: not JSON, not an object, or without `seq` or `prev`.
  case malformedEntry(line: Int, reason: String)
  /// The line's `seq` is not its line number: entries were removed, inserted or reordered
  /// right before it.
  case sequenceGap(line: Int, expected: Int, found: Int)
  /// The line's bytes do not hash to the `prev` recorded by line `recordedBy` (the next line):
  /// one of the two was edited. For the first line, `recordedBy` is 1 and its own `prev` is not
  /// the genesis value.
  case brokenLink(line: Int, recordedBy: Int)
  /// The last line is incomplete and has no newline: a write was interrupted. Not tampering.
  case tornLastLine(line: Int)
  /// The file cannot be read.
  case unreadable(path: String, reason: String)

  /// The first bad line, counting from 1; nil when the file cannot be read.
  public var line: Int? {
    switch self {
    case .malformedEntry(let line, _), .sequenceGap(let line, _, _), .brokenLink(let line, _),
      .tornLastLine(let line):
      line
    case .unreadable: nil
    }
  }

  /// How many entries before the first bad line are intact.
  public var intactEntries: Int {
    (line ?? 1) - 1
  }

  /// Whether the only problem is a torn last line (a crash during a write).
  public var isTornLastLine: Bool {
    if case .tornLastLine = self { true } else { false }
  }

  /// A sentence naming the line and the reason.
  public var description: String {
    switch self {
    case .malformedEntry(let line, let reason):
      "line \(line): not a valid entry: \(reason)"
    case .sequenceGap(let line, let expected, let found):
      "line \(line): sequence number \(found) where \(expected) was expected: entries were removed, inserted or reordered before this line"
    case .brokenLink(let line, let recordedBy) where line == recordedBy:
      "line \(line): its prev is not the genesis value: the start of the log was changed"
    case .brokenLink(let line, let recordedBy):
      "line \(line): its hash does not match the prev recorded by line \(recordedBy): line \(line) was edited (or the prev of line \(recordedBy))"
    case .tornLastLine(let line):
      "line \(line): the last line is incomplete: a write was interrupted (a crash), not tampering; the \(line - 1) entries before it are intact"
    case .unreadable(let path, let reason):
      "cannot read \(path): \(reason)"
    }
  }
}
