import Reduce

/// A sink that appends entries to a file: a debug log, or with `chained: true`, an audit trail.
///
/// The file is created if needed and always appended to. Opening happens when the middleware
/// joins a store (so a file that cannot be opened makes the store refuse the middleware), or at
/// the first write. Every sink in the process that writes the same file shares one writer, so
/// entries from several stores never interleave within a line and a chain stays in file order.
///
/// With `chained: true` (and the ``LogFormat/jsonLines`` format) each entry carries the
/// SHA-256 of the previous entry's bytes in `prev`, and `seq` counts the file's entries.
/// Reopening an existing chained file checks its last entry and continues its sequence and
/// chain; a torn or foreign last line is refused
/// (``LogSinkError/cannotContinueChain(path:reason:)``). The file is locked against other
/// processes while open (`flock`). A write that fails is removed again, so the file never holds
/// a partial entry in the middle; ``AuditLog/verify(contentsOf:)`` checks a file.
public struct FileLogSink: LogSink {
  /// When an entry reaches the disk.
  public enum Durability: Sendable, Hashable {
    /// Each entry is written and flushed to disk (`fsync`) before the action's dispatch
    /// returns: it survives a power loss. Costs a disk flush per entry.
    case everyEntry
    /// Each entry is handed to the operating system before the dispatch returns (it survives
    /// the process crashing), and reaches the disk when the system writes it back, on
    /// ``FileLogSink/flush()``, or when the middleware is detached.
    case buffered
  }

  /// The file's path.
  public let path: String
  /// When entries reach the disk.
  public let durability: Durability
  /// Whether entries are hash-chained.
  public let chained: Bool
  private let handle: FileHandleBox

  /// Creates a file sink; the file is opened later, when first needed.
  ///
  /// - Parameters:
  ///   - path: The file's path, absolute or relative to the working directory.
  ///   - durability: When entries reach the disk.
  ///   - chained: Whether each entry carries the SHA-256 of the previous one.
  public init(path: String, durability: Durability = .buffered, chained: Bool = false) {
    self.path = path
    self.durability = durability
    self.chained = chained
    self.handle = FileHandleBox(path: path, chained: chained)
  }

  /// Appends the record: its text, or for a chained file its JSON line with `seq` and `prev`.
  ///
  /// - Parameter record: The entry.
  /// - Throws: A ``LogSinkError``: the file cannot be opened or written, or was damaged before.
  public func write(_ record: LogRecord) throws {
    if chained, record.format != .jsonLines {
      throw LogSinkError.chainRequiresJSONLines(path: path)
    }
    try handle.open().append(record, durability: durability)
  }

  /// Flushes everything written so far to disk (`fsync`).
  ///
  /// - Throws: A ``LogSinkError`` when the file cannot be opened or flushed.
  public func flush() throws {
    try handle.open().sync()
  }

  /// Opens the file now, checking a chained file's last entry.
  func open() throws(LogSinkError) {
    _ = try handle.open()
  }

  /// Flushes to disk if the file is open; failures surface on the next write or flush.
  func flushIfOpen() {
    handle.openedWriter?.syncQuietly()
  }
}

extension LogSink where Self == FileLogSink {
  /// A file, appended to.
  ///
  /// - Parameters:
  ///   - path: The file's path.
  ///   - durability: When entries reach the disk.
  ///   - chained: Whether each entry carries the SHA-256 of the previous one (needs
  ///     ``LogFormat/jsonLines``).
  /// - Returns: The sink.
  public static func file(
    path: String, durability: FileLogSink.Durability = .buffered, chained: Bool = false
  ) -> FileLogSink {
    FileLogSink(path: path, durability: durability, chained: chained)
  }
}

/// The writer of one sink and its copies: opened once, released when the last copy is gone.
final class FileHandleBox: Sendable {
  let path: String
  let chained: Bool
  private let writer = Locked<FileWriter?>(nil)

  init(path: String, chained: Bool) {
    self.path = path
    self.chained = chained
  }

  deinit {
    if let writer = writer.withLock({ $0 }) { FileWriter.release(writer) }
  }

  var openedWriter: FileWriter? { writer.withLock { $0 } }

  func open() throws(LogSinkError) -> FileWriter {
    try writer.withLock { slot throws(LogSinkError) in
      if let writer = slot { return writer }
      let writer = try FileWriter.acquire(path: path, chained: chained)
      slot = writer
      return writer
    }
  }
}
