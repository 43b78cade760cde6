public import Foundation

/// One verified line of a journal, as a ``JournalReader`` or ``JournalFollower`` yields it.
public struct JournalEntry: Sendable {
  /// The line, as the source stores it.
  public let line: JournalLine
  /// The SHA-256 of the line's bytes, which the next line records as its `prev`.
  public let hash: String
  /// What the line holds.
  public let kind: JournalLine.Kind
  /// The parsed line.
  let value: JSONValue

  /// The line's `ts`: when the writer handled the action; nil when it has none.
  public var timestamp: Date? { value["ts"]?.stringValue.flatMap(Timestamp.parse) }

  /// The line's `seq`.
  public var sequence: Int { line.sequence }

  /// The line's place in the chain.
  public var position: JournalPosition { JournalPosition(sequence: line.sequence, hash: hash) }

  /// The line read as an audit log entry (what `reduce-audit show` prints).
  ///
  /// - Returns: The entry.
  /// - Throws: ``AuditLogError/malformedEntry(line:reason:)`` (with the `seq` as the line) when
  ///   the line has no `ts`, `action` or `outcome`.
  public func decoded() throws(AuditLogError) -> AuditLog.Entry {
    try AuditLog.Entry(parsing: String(decoding: line.bytes, as: UTF8.self), line: sequence)
  }
}

/// Reads a journal from a source, verifying its chain line by line: the lines there now, from
/// a chosen start.
///
/// Each ``next()`` returns the next verified line, or nil when the source holds no more yet;
/// call it again later (after ``waitForMore(timeout:)``) to go on where it stopped. Every line
/// must have the next `seq` and record the previous line's hash in `prev`; the first line's
/// `prev` is checked against the start (``JournalStart``) or taken on trust. With a key, every
/// checkpoint's code is checked, and more than a checkpoint's `every` entries without the next
/// one is an error.
///
/// ```swift
/// var reader = JournalReader(FileJournal(path: "ledger.log"), from: .beginning)
/// while let entry = try await reader.next() {
///   print(entry.sequence, entry.kind)
/// }
/// ```
///
/// ``JournalFollower`` is the same reading as an async sequence that waits for new lines.
public struct JournalReader<Source: JournalSource>: Sendable {
  /// The source read.
  public let source: Source
  /// Where reading starts.
  public let start: JournalStart
  private let key: AuditCheckpoints.Key?
  private let batchSize: Int
  private var started = false
  /// The `seq` due next.
  private var expected = 1
  /// The hash the next line's `prev` must be; nil to take it on trust (the first line only).
  private var lastHash: String?
  private var buffer: [JournalLine] = []
  private var bufferIndex = 0
  private var tracker: CheckpointTracker?
  /// The last line verified; nil before the first.
  public private(set) var position: JournalPosition?

  /// Creates a reader.
  ///
  /// - Parameters:
  ///   - source: Where the journal is.
  ///   - start: Where to start; at the newest snapshot by default.
  ///   - key: The checkpoints' key, to check them; nil to take them as links only.
  ///   - batchSize: How many lines to ask the source for at once.
  public init(
    _ source: Source, from start: JournalStart = .newestSnapshot,
    key: AuditCheckpoints.Key? = nil, batchSize: Int = 1024
  ) {
    self.source = source
    self.start = start
    self.key = key
    self.batchSize = max(1, batchSize)
    self.tracker = key.map(CheckpointTracker.init)
  }

  /// The `seq` of the line due next.
  public var nextSequence: Int { expected }

  /// The next verified line, or nil when the source holds no more yet.
  ///
  /// - Returns: The line, verified.
  /// - Throws: A ``JournalError``: the line does not verify, lines are missing, or the source
  ///   failed. The reader stays before the bad line: a later call reads it again.
  public mutating func next() async throws(JournalError) -> JournalEntry? {
    if !started { try await begin() }
    if bufferIndex == buffer.count {
      buffer = try await Self.call { [source, expected, batchSize] in
        try await source.lines(from: expected, limit: batchSize)
      }
      bufferIndex = 0
      guard !buffer.isEmpty else { return nil }
    }
    let entry = try verify(buffer[bufferIndex])
    bufferIndex += 1
    return entry
  }

  /// Waits until the source may hold lines after the last one read, or `timeout` has passed;
  /// returns early when the task is cancelled.
  ///
  /// - Parameter timeout: The longest to wait.
  /// - Throws: ``JournalError/sourceFailed(reason:)`` when watching the source failed.
  public mutating func waitForMore(timeout: Duration) async throws(JournalError) {
    guard !Task.isCancelled else { return }
    do {
      try await source.waitForLines(after: expected - 1, timeout: timeout)
    } catch is CancellationError {
      return
    } catch {
      throw .sourceFailed(reason: "\(error)")
    }
  }

  private mutating func begin() async throws(JournalError) {
    switch start {
    case .beginning:
      expected = 1
      lastHash = AuditLog.genesisHash
    case .sequence(let sequence):
      expected = max(1, sequence)
      lastHash = sequence <= 1 ? AuditLog.genesisHash : nil
    case .after(let position):
      expected = position.sequence + 1
      lastHash = position.hash
    case .newestSnapshot:
      let snapshot = try await Self.call { [source] in try await source.newestSnapshot(through: nil)
      }
      expected = snapshot ?? 1
      lastHash = snapshot == nil ? AuditLog.genesisHash : nil
    }
    started = true
  }

  /// Checks a line against the chain so far, and moves past it.
  private mutating func verify(_ line: JournalLine) throws(JournalError) -> JournalEntry {
    guard line.sequence == expected else {
      if line.sequence > expected { throw .gap(expected: expected, found: line.sequence) }
      throw .malformedLine(
        sequence: line.sequence,
        reason: "the source gave it where \(expected) or after was asked for")
    }
    let value: JSONValue
    do {
      value = try JSONParser.parse(line.bytes)
    } catch {
      throw .malformedLine(sequence: line.sequence, reason: error.message)
    }
    guard value["seq"]?.intValue == line.sequence else {
      throw .malformedLine(
        sequence: line.sequence, reason: "its `seq` is not the one it is stored under")
    }
    guard let previous = value["prev"]?.stringValue, AuditLog.isHash(previous) else {
      throw .malformedLine(sequence: line.sequence, reason: "no SHA-256 `prev`")
    }
    if let lastHash, previous != lastHash {
      throw .brokenChain(
        sequence: line.sequence,
        reason: expected == 1
          ? "its prev is not the genesis value"
          : "its prev is not the hash of entry \(expected - 1): one of the two was edited")
    }
    if var tracker {
      switch tracker.check(value, sequence: line.sequence, previous: previous) {
      case .bad(let reason)?: throw .badCheckpoint(sequence: line.sequence, reason: reason)
      case .missing(let every)?:
        throw .badCheckpoint(
          sequence: line.sequence,
          reason: "more than \(every) entries follow the last checkpoint: checkpoints were removed")
      case nil: self.tracker = tracker
      }
    }
    let hash = AuditLog.hash(ofLine: line.bytes)
    lastHash = hash
    expected += 1
    position = JournalPosition(sequence: line.sequence, hash: hash)
    return JournalEntry(line: line, hash: hash, kind: line.kind, value: value)
  }

  /// Runs a call to the source, its failure made a ``JournalError``.
  private static func call<Result: Sendable>(
    _ body: @Sendable () async throws -> Result
  ) async throws(JournalError) -> Result {
    do {
      return try await body()
    } catch {
      throw .sourceFailed(reason: "\(error)")
    }
  }
}

/// Follows a journal: an async sequence of its verified lines, from a chosen start, that waits
/// for new lines as the writer adds them.
///
/// It reads what the source holds (``JournalReader``), then waits for more
/// (``JournalSource/waitForLines(after:timeout:)``) and goes on, across a rotation or a
/// copy-and-truncate when the source follows them (``FileJournal`` does). It ends when its task
/// is cancelled, and throws a ``JournalError`` at the first line that does not verify.
///
/// ```swift
/// for try await entry in JournalFollower(FileJournal(path: "ledger.log"), from: .beginning) {
///   print("#\(entry.sequence)", entry.kind)
/// }
/// ```
public struct JournalFollower<Source: JournalSource>: AsyncSequence, Sendable {
  /// A verified line.
  public typealias Element = JournalEntry
  /// What the iteration throws.
  public typealias Failure = JournalError

  private let reader: JournalReader<Source>
  private let pollTimeout: Duration

  /// Creates a follower.
  ///
  /// - Parameters:
  ///   - source: Where the journal is.
  ///   - start: Where to start; at the newest snapshot by default.
  ///   - key: The checkpoints' key, to check them.
  ///   - pollTimeout: The longest one wait for new lines lasts before the source is asked
  ///     again (a source whose wait can miss a line, as a database notification can, is asked
  ///     at least this often).
  public init(
    _ source: Source, from start: JournalStart = .newestSnapshot,
    key: AuditCheckpoints.Key? = nil, pollTimeout: Duration = .seconds(1)
  ) {
    self.reader = JournalReader(source, from: start, key: key)
    self.pollTimeout = pollTimeout
  }

  /// Makes an iterator that starts at the follower's start.
  ///
  /// - Returns: The iterator.
  public func makeAsyncIterator() -> Iterator {
    Iterator(reader: reader, pollTimeout: pollTimeout)
  }

  /// Reads and waits for the lines of a ``JournalFollower``.
  public struct Iterator: AsyncIteratorProtocol {
    var reader: JournalReader<Source>
    let pollTimeout: Duration

    /// The next verified line, once the source holds it; nil once the task is cancelled.
    ///
    /// - Returns: The line, or nil when the task was cancelled.
    /// - Throws: A ``JournalError`` at the first line that does not verify, or when the source
    ///   fails.
    public mutating func next() async throws(JournalError) -> JournalEntry? {
      while !Task.isCancelled {
        if let entry = try await reader.next() { return entry }
        try await reader.waitForMore(timeout: pollTimeout)
      }
      return nil
    }
  }
}
