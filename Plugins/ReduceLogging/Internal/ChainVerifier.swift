/// Checks a log's lines one after another.
///
/// The first line either starts a chain (`seq` 1, `prev` the genesis value) or continues an
/// earlier file (`seq` above 1, after a copy-and-truncate rotation); every later line follows
/// the one before it.
struct ChainVerifier {
  /// How many lines were checked, all intact.
  private(set) var count = 0
  /// The first entry's `seq`.
  private(set) var firstSequence = 1
  /// The first entry's `prev`.
  private(set) var firstPreviousHash = AuditLog.genesisHash
  /// The hash of the last intact line.
  private(set) var lastHash = AuditLog.genesisHash
  /// Checks keyed checkpoints, when a key is given; it goes on from one file to the next.
  var tracker: CheckpointTracker?

  init(tracker: CheckpointTracker? = nil) {
    self.tracker = tracker
  }

  /// The summary of the lines checked so far.
  var verification: AuditLog.Verification {
    var verification = AuditLog.Verification(
      entries: count, firstSequence: firstSequence, firstPreviousHash: firstPreviousHash,
      lastHash: lastHash)
    if let tracker {
      verification.checkpoints = tracker.verified
      verification.entriesAfterLastCheckpoint = tracker.since
    }
    return verification
  }

  /// Checks the next line; `terminated` is false for a last line without a newline.
  ///
  /// An unterminated last line is torn only when it is what an interrupted write of the entry
  /// that was due leaves: a prefix of the bytes the logger would write, which begin
  /// `{"seq":<next>,"prev":"<hash of the line before>"`. Anything else there (another `seq`
  /// or `prev`, or bytes that are not a prefix of JSON) no crash can produce: tampering.
  mutating func check(_ line: ArraySlice<UInt8>, terminated: Bool) throws(AuditLogError) {
    let number = count + 1
    let entry: JSONValue
    do {
      entry = try JSONParser.parse(line)
    } catch {
      if !terminated, error == .unexpectedEnd, beginsNextEntry(line), isCompact(line) {
        throw .tornLastLine(line: number)
      }
      throw .malformedEntry(
        line: number,
        reason: line.isEmpty
          ? "an empty line"
          : terminated ? error.message : notTornReason)
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
    if count == 0, sequence > 1 {
      // The file continues an earlier one: its first `prev` links to that file's last line.
      firstSequence = sequence
      firstPreviousHash = previous
      lastHash = previous
    }
    let expected = firstSequence + count
    if firstSequence > 1, sequence < firstSequence {
      // An entry from before the first line: the file does not continue an earlier one but
      // starts out of order.
      throw .sequenceGap(line: 1, expected: 1, found: firstSequence)
    }
    guard sequence == expected else {
      throw .sequenceGap(line: number, expected: expected, found: sequence)
    }
    guard previous == lastHash else {
      throw .brokenLink(line: max(number - 1, 1), recordedBy: number)
    }
    if !terminated {
      // Complete, but the newline that ends every written entry is missing: a write cut
      // short just before it, if the line is as the logger writes it.
      guard beginsNextEntry(line), isCompact(line), line.last == UInt8(ascii: "}") else {
        throw .malformedEntry(line: number, reason: notTornReason)
      }
      throw .tornLastLine(line: number)
    }
    if var tracker {
      switch tracker.check(entry, sequence: sequence, previous: previous) {
      case .bad(let reason)?: throw .badCheckpoint(line: number, reason: reason)
      case .missing(let every)?: throw .missingCheckpoint(line: number, every: every)
      case nil: self.tracker = tracker
      }
    }
    lastHash = SHA256.hex(of: line)
    count = number
  }

  /// Whether a line has no white space outside its strings, as every line a writer makes:
  /// a crash cuts a line short, but adds nothing to it.
  private func isCompact(_ line: ArraySlice<UInt8>) -> Bool {
    var inString = false
    var escaped = false
    for byte in line {
      if inString {
        if escaped {
          escaped = false
        } else if byte == UInt8(ascii: "\\") {
          escaped = true
        } else if byte == UInt8(ascii: "\"") {
          inString = false
        }
      } else if byte == UInt8(ascii: "\"") {
        inString = true
      } else if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
        || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n")
      {
        return false
      }
    }
    return true
  }

  private var notTornReason: String {
    "an incomplete last line that is not the beginning of the entry that was due, so not what a crash leaves"
  }

  /// Whether a line is a prefix of the entry that is due, or begins like it.
  ///
  /// The entry begins with its `seq` and `prev`, in the logger's order and spelling. Before
  /// the first line any `seq` and any hash will do (a file may continue an earlier one).
  private func beginsNextEntry(_ line: ArraySlice<UInt8>) -> Bool {
    var pattern = EntryStart(line)
    guard pattern.literal("{\"seq\":") else { return pattern.ended }
    if count == 0 {
      guard pattern.anyNumber() else { return pattern.ended }
    } else {
      guard pattern.literal(String(firstSequence + count)) else { return pattern.ended }
    }
    guard pattern.literal(",\"prev\":\"") else { return pattern.ended }
    if count == 0 {
      guard pattern.anyHash() else { return pattern.ended }
    } else {
      guard pattern.literal(lastHash) else { return pattern.ended }
    }
    return pattern.literal("\"") || pattern.ended
  }
}

/// Matches the start of a line against the pieces an entry begins with, one after another.
///
/// Each match returns true when the piece is there whole; when it returns false, ``ended``
/// tells whether the line merely ended inside the piece (a prefix: still a match) or differs.
private struct EntryStart {
  let bytes: ArraySlice<UInt8>
  var index: ArraySlice<UInt8>.Index
  private(set) var ended = false

  init(_ bytes: ArraySlice<UInt8>) {
    self.bytes = bytes
    self.index = bytes.startIndex
  }

  mutating func literal(_ text: String) -> Bool {
    for byte in text.utf8 {
      guard index < bytes.endIndex else {
        ended = true
        return false
      }
      guard bytes[index] == byte else { return false }
      index += 1
    }
    return true
  }

  /// A positive decimal number without leading zeros, followed by a byte that is not a digit.
  mutating func anyNumber() -> Bool {
    let start = index
    while index < bytes.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
      if index == start, bytes[index] == UInt8(ascii: "0") { return false }
      index += 1
    }
    if index == bytes.endIndex { ended = true }
    return index > start && !ended
  }

  /// 64 lowercase hexadecimal digits.
  mutating func anyHash() -> Bool {
    for _ in 0..<64 {
      guard index < bytes.endIndex else {
        ended = true
        return false
      }
      let byte = bytes[index]
      guard
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
          || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
      else { return false }
      index += 1
    }
    return true
  }
}
