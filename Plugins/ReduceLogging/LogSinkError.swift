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
  /// The entry was written, but flushing it to disk failed.
  case syncFailed(path: String, reason: String)
  /// An earlier failed write left bytes that could not be removed; no more entries are written
  /// to this file, so that its chain stays verifiable up to the damage.
  case damaged(path: String)
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
      "Cannot flush the log file \(path) to disk: \(reason)."
    case .damaged(let path):
      "The log file \(path) was left with a partial entry that could not be removed; no more entries are written to it."
    case .writeTimedOut(let descriptor):
      "File descriptor \(descriptor) did not accept a log entry in time; the entry was dropped."
    case .streamWriteFailed(let descriptor, let reason):
      "Cannot write a log entry to file descriptor \(descriptor): \(reason)."
    }
  }
}
