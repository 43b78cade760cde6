/// Why an audit log failed verification, naming the first bad line.
///
/// Every entry before ``line`` is intact. A ``tornLastLine(line:)`` is what a crash in the middle
/// of a write leaves; ``unreadable(path:reason:)`` says nothing about the log's contents; every
/// other case means the file was changed after it was written (or is not an audit log).
public enum AuditLogError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The line is not a chained entry: not JSON, not an object, or without `seq` or `prev`; or
  /// it is an unterminated last line that is not the beginning of the entry that was due.
  case malformedEntry(line: Int, reason: String)
  /// The line's `seq` is not the one that follows the line before: entries were removed,
  /// inserted or reordered right before it.
  case sequenceGap(line: Int, expected: Int, found: Int)
  /// The line's bytes do not hash to the `prev` recorded by line `recordedBy` (the next line):
  /// one of the two was edited. For the first line, `recordedBy` is 1 and its `seq` is 1 but its
  /// own `prev` is not the genesis value.
  case brokenLink(line: Int, recordedBy: Int)
  /// The last line is the beginning of the entry that was due, unfinished and without its
  /// newline: a write was interrupted. Not tampering.
  case tornLastLine(line: Int)
  /// The file cannot be read: it does not exist, is a directory, or reading it failed.
  case unreadable(path: String, reason: String)
  /// Verifying several files as one log: `error` was found in the file at `path`.
  indirect case inFile(path: String, error: AuditLogError)
  /// Verifying several files as one log: the first entry of the file at `path` does not
  /// continue the last entry of `previousFile`, for `reason`.
  case filesDoNotLink(path: String, previousFile: String, reason: String)
  /// The log starts at entry `firstSequence`, not 1: the entries before it are missing. Their
  /// file was rotated away, or someone cut them; verify with the earlier files, or name where
  /// the log must start (``AuditLog/ChainStart``). Not known to be tampering, not intact.
  case startsMidChain(path: String, firstSequence: Int)
  /// The log does not start where the caller said it must, for `reason`.
  case unexpectedStart(path: String, reason: String)
  /// The keyed checkpoint on the line does not verify with the key, for `reason`: the chain
  /// before it was rewritten, or the key is not the writer's.
  case badCheckpoint(line: Int, reason: String)
  /// More than `every` entries (the interval the last checkpoint records) come before the
  /// line without a checkpoint: checkpoints were removed, and the chain rewritten from there.
  case missingCheckpoint(line: Int, every: Int)
  /// A key was given but the log of `entries` entries holds no checkpoint: it was not written
  /// with the key, or it was rewritten whole.
  case noCheckpoint(entries: Int)

  /// The first bad line, counting from 1, in the file the error is about; nil when a file
  /// cannot be read.
  public var line: Int? {
    switch self {
    case .malformedEntry(let line, _), .sequenceGap(let line, _, _), .brokenLink(let line, _),
      .tornLastLine(let line):
      line
    case .unreadable, .noCheckpoint: nil
    case .inFile(_, let error): error.line
    case .filesDoNotLink, .startsMidChain, .unexpectedStart: 1
    case .badCheckpoint(let line, _), .missingCheckpoint(let line, _): line
    }
  }

  /// Whether the only problem is that the log starts after entry 1 with nothing that says it
  /// may (``startsMidChain(path:firstSequence:)``): entries are missing before it.
  public var startsMidChain: Bool {
    switch self {
    case .startsMidChain: true
    case .inFile(_, let error): error.startsMidChain
    default: false
    }
  }

  /// How many entries before the first bad line, in the file the error is about, are intact.
  public var intactEntries: Int {
    (line ?? 1) - 1
  }

  /// Whether the only problem is a torn last line (a crash during a write).
  public var isTornLastLine: Bool {
    switch self {
    case .tornLastLine: true
    case .inFile(_, let error): error.isTornLastLine
    default: false
    }
  }

  /// Whether a file could not be read, so that nothing is known about its contents.
  public var isUnreadable: Bool {
    switch self {
    case .unreadable: true
    case .inFile(_, let error): error.isUnreadable
    default: false
    }
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
    case .inFile(let path, .unreadable(_, let reason)):
      "\(path): cannot read it: \(reason)"
    case .inFile(let path, let error):
      "\(path): \(error)"
    case .filesDoNotLink(let path, let previousFile, let reason):
      "\(path): line 1: does not continue \(previousFile): \(reason)"
    case .startsMidChain(let path, let sequence):
      "\(path): line 1: the log starts at entry \(sequence): the \(sequence - 1) \(sequence == 2 ? "entry" : "entries") before it \(sequence == 2 ? "is" : "are") missing; verify it with the earlier files, oldest first, or name where it must start (--from-seq \(sequence), or --continues HASH with the hash of the earlier file's last line)"
    case .unexpectedStart(let path, let reason):
      "\(path): line 1: \(reason)"
    case .badCheckpoint(let line, let reason):
      "line \(line): the keyed checkpoint does not verify: \(reason)"
    case .missingCheckpoint(let line, let every):
      "line \(line): more than \(every) entries since the last keyed checkpoint: checkpoints were removed, and the chain rewritten from there"
    case .noCheckpoint(let entries):
      "no keyed checkpoint in \(entries) entries: the log was not written with this key, or it was rewritten whole"
    }
  }
}
