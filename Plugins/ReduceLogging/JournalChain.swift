public import Foundation

/// The writer's side of a journal's chain: numbers records, links each line to the one before,
/// and adds keyed checkpoints when due.
///
/// A ``FileLogSink`` keeps its chain itself. A ``LogSink`` of your own that stores lines
/// elsewhere (a database table) keeps one of these, under its own lock, so that its lines
/// verify and replay like a file's:
///
/// ```swift
/// var chain = try JournalChain(after: lastStoredPosition)
/// let saved = chain
/// let lines = chain.append(record)  // the entry, and a checkpoint when one is due
/// do {
///   try insert(lines)  // (stream, seq) as the primary key
/// } catch {
///   chain = saved  // nothing was stored: the next record takes the same seq
///   throw error
/// }
/// ```
public struct JournalChain: Sendable {
  /// The last line made: its `seq` and its hash (``JournalPosition/start`` before the first).
  public private(set) var position: JournalPosition
  /// The keyed checkpoints the chain adds, if any.
  public let checkpoints: AuditCheckpoints?
  private var lastDigest: SHA256.Digest
  /// Entries since the last checkpoint; nil when none was made since the chain was created.
  private var sinceCheckpoint: Int?

  /// Creates the chain of a new journal: its first line will have `seq` 1 and the genesis
  /// `prev`.
  ///
  /// - Parameter checkpoints: Keyed checkpoints to add: one first, then one after every
  ///   ``AuditCheckpoints/every`` entries.
  public init(checkpoints: AuditCheckpoints? = nil) {
    self.position = .start
    self.checkpoints = checkpoints
    self.lastDigest = .zero
  }

  /// Creates a chain that continues after a stored line.
  init(continuing line: JournalLine, checkpoints: AuditCheckpoints?) {
    self.lastDigest = SHA256.digest(of: line.bytes)
    self.position = JournalPosition(sequence: line.sequence, hash: lastDigest.hex)
    self.checkpoints = checkpoints
    self.sinceCheckpoint = line.kind == .checkpoint ? 0 : nil
  }

  /// Creates a chain that continues after a position.
  ///
  /// - Parameters:
  ///   - position: The last stored line; ``JournalPosition/start`` for a new journal.
  ///   - checkpoints: Keyed checkpoints to add: one first (covering `position`), then one
  ///     after every ``AuditCheckpoints/every`` entries.
  /// - Throws: ``JournalError/brokenChain(sequence:reason:)`` when the position's hash is not
  ///   a lowercase hexadecimal SHA-256, or its `seq` is negative.
  public init(after position: JournalPosition, checkpoints: AuditCheckpoints? = nil)
    throws(JournalError)
  {
    guard position.sequence >= 0, let digest = SHA256.Digest(hex: position.hash) else {
      throw .brokenChain(
        sequence: position.sequence + 1,
        reason: "the position to continue is not a seq of 0 or more and a SHA-256")
    }
    self.position = position
    self.checkpoints = checkpoints
    self.lastDigest = digest
  }

  /// Makes the chained JSON line of a record, and the checkpoints due around it.
  ///
  /// The line is the record's entry in the ``LogFormat/jsonLines`` layout with the next `seq`
  /// and the last line's hash in `prev` (whatever the record's own format and `sequence`). With
  /// checkpoints, the first line a chain makes is a checkpoint, and one follows every
  /// ``AuditCheckpoints/every`` entries.
  ///
  /// - Parameter record: The entry.
  /// - Returns: The lines to store, in order.
  public mutating func append(_ record: LogRecord) -> [JournalLine] {
    var lines: [JournalLine] = []
    if let checkpoints, sinceCheckpoint == nil {
      lines.append(makeCheckpoint(checkpoints, timestamp: record.entry.timestamp))
    }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(320)
    EntryFormatter.writeJSONLine(
      record.entry, sequence: position.sequence + 1, previous: lastDigest, to: &bytes)
    lines.append(advance(bytes))
    if let checkpoints {
      let count = (sinceCheckpoint ?? 0) + 1
      sinceCheckpoint = count
      if count >= checkpoints.every {
        lines.append(makeCheckpoint(checkpoints, timestamp: record.entry.timestamp))
      }
    }
    return lines
  }

  /// Makes a checkpoint line now, covering the chain so far; nil without checkpoints.
  ///
  /// - Parameter timestamp: Its `ts`.
  /// - Returns: The line to store.
  public mutating func appendCheckpoint(at timestamp: Date) -> JournalLine? {
    guard let checkpoints else { return nil }
    return makeCheckpoint(checkpoints, timestamp: timestamp)
  }

  private mutating func makeCheckpoint(_ checkpoints: AuditCheckpoints, timestamp: Date)
    -> JournalLine
  {
    var bytes: [UInt8] = []
    CheckpointLine.write(
      sequence: position.sequence + 1, previous: lastDigest, timestamp: timestamp,
      checkpoints: checkpoints, to: &bytes)
    sinceCheckpoint = 0
    return advance(bytes)
  }

  private mutating func advance(_ bytes: [UInt8]) -> JournalLine {
    let line = JournalLine(sequence: position.sequence + 1, bytes: bytes)
    lastDigest = SHA256.digest(of: bytes)
    position = JournalPosition(sequence: line.sequence, hash: lastDigest.hex)
    return line
  }
}

/// The bytes of a checkpoint line.
enum CheckpointLine {
  /// Writes `{"seq":N,"prev":"…","ts":"…","checkpoint":{"every":E,"mac":"…"}}`.
  static func write(
    sequence: Int, previous: SHA256.Digest, timestamp: Date, checkpoints: AuditCheckpoints,
    to line: inout some ByteOutput
  ) {
    let previousHex = previous.hex
    line.append("{\"seq\":")
    line.appendDecimal(Int64(sequence))
    line.append(",\"prev\":\"")
    line.append(text: previousHex)
    line.append("\",\"ts\":\"")
    line.append(timestamp: timestamp)
    line.append("\",\"checkpoint\":{\"every\":")
    line.appendDecimal(Int64(checkpoints.every))
    line.append(",\"mac\":\"")
    line.append(
      text: checkpoints.key.code(
        sequence: sequence, previous: previousHex, every: checkpoints.every))
    line.append("\"}}")
  }
}
