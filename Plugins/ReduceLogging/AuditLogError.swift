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

  /// The first bad line, counting from 1, in the file the error is about; nil when a file
  /// cannot be read.
  public var line: Int? {
    switch self {
    case .malformedEntry(let line, _), .sequenceGap(let line, _, _), .brokenLink(let line, _),
      .tornLastLine(let line):
      line
    case .unreadable: nil
    case .inFile(_, let error): error.line
    case .filesDoNotLink: 1
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
    }
  }
}
