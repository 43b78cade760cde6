/// One line of a journal (a chained audit log): its `seq` and its exact bytes.
///
/// The bytes are the line as the writer wrote it, without its newline: the next line's `prev`
/// is their SHA-256, so a store of lines must keep them byte for byte (a PostgreSQL `text` or
/// `bytea` column does; `jsonb` rewrites them and breaks the chain).
public struct JournalLine: Sendable, Hashable {
  /// The line's `seq`.
  public var sequence: Int
  /// The line's bytes, without its newline.
  public var bytes: [UInt8]

  /// Creates a line.
  ///
  /// - Parameters:
  ///   - sequence: The line's `seq`, as recorded in its bytes.
  ///   - bytes: The line's exact bytes, without its newline.
  public init(sequence: Int, bytes: [UInt8]) {
    self.sequence = sequence
    self.bytes = bytes
  }

  /// What the line holds, read from the way it begins (the JSON is not parsed).
  ///
  /// - Complexity: O(1): the kind is after the `seq`, `prev` and `ts` members.
  public var kind: Kind { LineKind.of(bytes) }

  /// What a journal line holds.
  public enum Kind: Sendable, Hashable {
    /// An action's entry (or a line of another shape: a verifier says which).
    case entry
    /// A snapshot of the state (`"snapshot":`): a replay may start here.
    case snapshot
    /// A keyed checkpoint (`"checkpoint":`, see ``AuditCheckpoints``).
    case checkpoint
  }
}

/// A place in a journal's chain: the `seq` of a line and the SHA-256 of its bytes, which the
/// next line records as its `prev`.
public struct JournalPosition: Sendable, Hashable, CustomStringConvertible {
  /// The line's `seq`; 0 before the first line.
  public var sequence: Int
  /// The SHA-256 of the line's bytes in lowercase hexadecimal; ``AuditLog/genesisHash`` before
  /// the first line.
  public var hash: String

  /// The place before a journal's first line: `seq` 0 and the genesis hash.
  public static let start = JournalPosition(sequence: 0, hash: AuditLog.genesisHash)

  /// Creates a position.
  ///
  /// - Parameters:
  ///   - sequence: The line's `seq`.
  ///   - hash: The SHA-256 of its bytes, in lowercase hexadecimal.
  public init(sequence: Int, hash: String) {
    self.sequence = sequence
    self.hash = hash
  }

  /// The position of a line: its `seq` and the hash of its bytes.
  ///
  /// - Parameter line: The line.
  public init(of line: JournalLine) {
    self.init(sequence: line.sequence, hash: AuditLog.hash(ofLine: line.bytes))
  }

  /// `seq` and hash, as `#1824 9c1f…`.
  public var description: String { "#\(sequence) \(hash)" }
}

/// Where a journal is kept, read by `seq`: files (``FileJournal``), bytes in memory
/// (``MemoryJournal``), or a database table.
///
/// A source hands out lines as they are stored; it checks nothing. A
/// ``JournalReader`` (and so ``JournalFollower``, ``AuditLog`` replay and ``StandbyStore``)
/// verifies the chain as it reads.
///
/// A source of your own, a database table of `(stream, seq, line)` say, implements the four
/// requirements with one query each:
///
/// ```swift
/// struct TableJournal: JournalSource {
///   let table: Table  // your database access
///   func lines(from sequence: Int, limit: Int) async throws -> [JournalLine] {
///     try await table.rows(where: "seq >= \(sequence)", orderBy: "seq", limit: limit)
///       .map { JournalLine(sequence: $0.seq, bytes: Array($0.line.utf8)) }
///   }
///   func newestSnapshot(through sequence: Int?) async throws -> Int? {
///     try await table.maxSeq(where: "is_snapshot", upTo: sequence)
///   }
///   func lastSequence() async throws -> Int { try await table.maxSeq() ?? 0 }
///   func waitForLines(after sequence: Int, timeout: Duration) async throws {
///     try await table.waitForNotification(timeout: timeout)  // LISTEN/NOTIFY
///   }
/// }
/// ```
///
/// `seq` order is the writer's order: one writer numbers the lines, in the store's turn, so a
/// source that returns lines by `seq` never shows a later line before an earlier one that is
/// still being committed (the gap that readers of event stores with concurrent writers meet).
public protocol JournalSource: Sendable {
  /// The stored lines from `sequence` on, in `seq` order, at most `limit` of them.
  ///
  /// The first line has `seq` `sequence` when the source holds it. When the source holds
  /// nothing from there yet, the result is empty; when its first line from there is later (the
  /// lines before it were removed, or never stored), a reader reports the gap
  /// (``JournalError/gap(expected:found:)``). A line being written (not yet complete) is not
  /// returned.
  ///
  /// - Parameters:
  ///   - sequence: The first `seq` wanted, 1 or more.
  ///   - limit: The most lines to return, 1 or more.
  /// - Returns: The lines, in order.
  /// - Throws: Any error reading the source; a reader reports it as
  ///   ``JournalError/sourceFailed(reason:)``.
  func lines(from sequence: Int, limit: Int) async throws -> [JournalLine]

  /// The `seq` of the newest snapshot line at or before `sequence`.
  ///
  /// - Parameter sequence: The latest `seq` that will do; nil for the newest snapshot anywhere.
  /// - Returns: The snapshot's `seq`, or nil when there is none.
  /// - Throws: Any error reading the source.
  func newestSnapshot(through sequence: Int?) async throws -> Int?

  /// The `seq` of the source's last complete line; 0 when it holds none.
  ///
  /// - Returns: The `seq`.
  /// - Throws: Any error reading the source.
  func lastSequence() async throws -> Int

  /// Waits until a line after `sequence` may have been stored, or `timeout` has passed.
  ///
  /// It may return early, and must return soon after the task is cancelled: a reader asks
  /// again with ``lines(from:limit:)`` either way.
  ///
  /// - Parameters:
  ///   - sequence: The last `seq` the reader has.
  ///   - timeout: The longest to wait.
  /// - Throws: Any error watching the source.
  func waitForLines(after sequence: Int, timeout: Duration) async throws
}

/// Why a journal could not be read or did not verify, by `seq`.
public enum JournalError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The source's next line is `found` where `expected` was due: lines are missing (removed, an
  /// archive not kept, or a copy-and-truncate rotation that lost the lines between the copy and
  /// the truncation).
  case gap(expected: Int, found: Int)
  /// The line is not the one that follows the line before it: its `prev` is not that line's
  /// hash, or its `seq` is not the next one. Tampering, or another journal than the one read
  /// so far.
  case brokenChain(sequence: Int, reason: String)
  /// The line is not a chained entry (not JSON, no `seq` or `prev`), or its `seq` is not the one
  /// the source gave it.
  case malformedLine(sequence: Int, reason: String)
  /// A keyed checkpoint does not verify with the key: the chain before it was rewritten, or the
  /// key is not the writer's.
  case badCheckpoint(sequence: Int, reason: String)
  /// The journal holds no line at `sequence` or after it where one was needed to start: it is
  /// empty, or the place asked for is past its end.
  case notFound(sequence: Int)
  /// Reading the source failed.
  case sourceFailed(reason: String)

  /// What went wrong, and at which `seq`.
  public var description: String {
    switch self {
    case .gap(let expected, let found):
      "entry \(found) where \(expected) was due: \(found - expected) entries are missing"
    case .brokenChain(let sequence, let reason):
      "entry \(sequence) does not continue the chain: \(reason)"
    case .malformedLine(let sequence, let reason):
      "entry \(sequence) is not a chained entry: \(reason)"
    case .badCheckpoint(let sequence, let reason):
      "the checkpoint at entry \(sequence) does not verify: \(reason)"
    case .notFound(let sequence):
      "the journal holds no entry at \(sequence) or after it"
    case .sourceFailed(let reason):
      "reading the journal failed: \(reason)"
    }
  }
}

/// Where a ``JournalReader`` starts.
public enum JournalStart: Sendable, Hashable {
  /// At the first line, `seq` 1, whose `prev` must be the genesis value.
  case beginning
  /// At the newest snapshot, whose `prev` is taken on trust; at the beginning when there is
  /// none. What a replay or a new standby wants: the time it takes is bounded by the entries
  /// since the snapshot.
  case newestSnapshot
  /// At the line with this `seq`, whose `prev` is taken on trust.
  case sequence(Int)
  /// At the line after a known position: its `prev` must be the position's hash. What a
  /// standby that restarts, or a reader that resumes, wants.
  case after(JournalPosition)
}
