/// Why a built-in sink could not write an entry, or could not start.
///
/// Write failures reach the store's `errors` as `DispatchError.middlewareFailed` with this as the
/// underlying error; failures to open a file make the store refuse the middleware
/// (`RegistrationError.middlewareRefused`).
public enum LogSinkError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The log file could not be opened or created.
  case openFailed(path: String, reason: String)
  /// Another process holds the chained log file open for writing.
  case lockedByAnotherProcess(path: String)
  /// An existing chained log cannot be continued: its last entry is torn or not a chained
  /// entry. Nothing was written.
  case cannotContinueChain(path: String, reason: String)
  /// The file is already open in this process with a different `chained` setting.
  case conflictingOptions(path: String)
  /// A chained log file was given a text format; chaining needs ``LogFormat/jsonLines``.
  case chainRequiresJSONLines(path: String)
  /// Writing an entry failed (disk full, I/O error); the entry is not in the file.
  case writeFailed(path: String, reason: String)
  /// Flushing the file to disk failed: the entries written since the last successful flush
  /// may not be on disk. The sink stops; every later write throws this error again, since after
  /// a failed flush nothing written since can be trusted to reach the disk.
  case syncFailed(path: String, reason: String)
  /// An earlier failed write left bytes that could not be removed; no more entries are written
  /// to this file, so that its chain stays verifiable up to the damage.
  case damaged(path: String)
  /// The log file was deleted or moved away while open: `path` names no file, or the open
  /// file has no name left. Entries would go nowhere anyone can read, so no more are written.
  case fileRemoved(path: String)
  /// `path` names another file than the one the sink opened (it was moved aside and another
  /// created in its place); no more entries are written to either.
  case fileReplaced(path: String)
  /// The chained log file was written to or cut by someone else: it holds `foundSize` bytes
  /// where the sink left `expectedSize`. No more entries are written, so that the chain does
  /// not go on after bytes the sink did not write. A file cut to nothing (a copy-and-truncate
  /// rotation) is not this error: the sink goes on writing at its start.
  case fileChanged(path: String, expectedSize: Int64, foundSize: Int64)
  /// A chained log could not be rotated (``AuditTrail``'s ``RotateAuditLog``); after a
  /// successful rotation, also what a sink still holding the old file throws.
  case rotationFailed(path: String, reason: String)
  /// A stream (standard output, a pipe) did not accept the entry in time; the rest of it was
  /// dropped.
  case writeTimedOut(fileDescriptor: Int32)
  /// Writing to a stream failed.
  case streamWriteFailed(fileDescriptor: Int32, reason: String)

  /// A sentence that says what failed and what to do.
  public var description: String {
    switch self {
    case .openFailed(let path, let reason):
      "Cannot open the log file \(path): \(reason)."
    case .lockedByAnotherProcess(let path):
      "Another process is writing the chained log \(path); give each process its own log file."
    case .cannotContinueChain(let path, let reason):
      "Cannot continue the chained log \(path): \(reason). Run `reduce-audit verify \(path)`, then repair the file or move it aside."
    case .conflictingOptions(let path):
      "The log file \(path) is already open in this process with a different `chained` setting."
    case .chainRequiresJSONLines(let path):
      "The chained log \(path) needs the .jsonLines format."
    case .writeFailed(let path, let reason):
      "Cannot write to the log file \(path): \(reason); the entry was not logged."
    case .syncFailed(let path, let reason):
      "Cannot flush the log file \(path) to disk: \(reason); entries since the last flush may be lost, and no more are written to it."
    case .damaged(let path):
      "The log file \(path) was left with a partial entry that could not be removed; no more entries are written to it."
    case .fileRemoved(let path):
      "The log file \(path) was deleted or moved away while it was open; no more entries are written to it. Restore the file and restart the logger."
    case .fileReplaced(let path):
      "The log file \(path) was replaced by another file while it was open; no more entries are written. Restart the logger to write the new file."
    case .fileChanged(let path, let expected, let found):
      "The chained log file \(path) was changed by someone else: it holds \(found) bytes where \(expected) were written; no more entries are written to it. Run `reduce-audit verify \(path)`."
    case .rotationFailed(let path, let reason):
      "Cannot rotate the log file \(path): \(reason)."
    case .writeTimedOut(let descriptor):
      "File descriptor \(descriptor) did not accept a log entry in time; the entry was dropped."
    case .streamWriteFailed(let descriptor, let reason):
      "Cannot write a log entry to file descriptor \(descriptor): \(reason)."
    }
  }
}
