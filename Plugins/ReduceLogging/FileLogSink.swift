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
/// (``LogSinkError/cannotContinueChain(path:reason:)``). A second sink value for a chained file
/// this process already writes is checked the same way: it shares the writer only if the file
/// is as the writer left it. The file is locked against other processes while open (`flock`).
/// A write that fails is removed again, so the file never holds a partial entry in the middle;
/// ``AuditLog/verify(contentsOf:)-(URL)`` checks a file.
///
/// A file that is deleted, moved away or replaced while open stops the sink
/// (``LogSinkError/fileRemoved(path:)``, ``LogSinkError/fileReplaced(path:)``), and so does a
/// chained file that someone else wrote to or cut (``LogSinkError/fileChanged(path:expectedSize:foundSize:)``):
/// every later write throws. A chained file's size is checked before every write, and with
/// ``Durability/everyEntry`` whether it still has a name; a file is looked up by its path at
/// every flush of a ``Durability/everyEntry`` file and at most every 100 ms of writes to a
/// chained file, which is when a ``Durability/buffered`` chained file that was deleted is
/// noticed (the entries written in between went into the deleted file). A file truncated to
/// nothing in place (a copy-and-truncate rotation) is written on from its start, a chain
/// continuing where it was.
public struct FileLogSink: LogSink {
  /// When an entry reaches the disk.
  public enum Durability: Sendable, Hashable {
    /// Each entry is on disk before the action's dispatch returns: it survives a power loss.
    ///
    /// ``write(_:)`` only hands the entry to the operating system; the middleware then calls
    /// ``waitUntilDurable()``, after the store has released its turn, and concurrent
    /// dispatchers share one disk flush (`fsync`): a group commit.
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
  /// The keyed checkpoints a chained file gets, if any.
  public let checkpoints: AuditCheckpoints?
  private let handle: FileHandleBox

  /// Creates a file sink; the file is opened later, when first needed.
  ///
  /// - Parameters:
  ///   - path: The file's path, absolute or relative to the working directory.
  ///   - durability: When entries reach the disk.
  ///   - chained: Whether each entry carries the SHA-256 of the previous one.
  ///   - checkpoints: Keyed checkpoints for a chained file (``AuditCheckpoints``): one when
  ///     the sink first writes to the file (unless its last line is one), then one after every
  ///     ``AuditCheckpoints/every`` entries; ignored when `chained` is false.
  public init(
    path: String, durability: Durability = .buffered, chained: Bool = false,
    checkpoints: AuditCheckpoints? = nil
  ) {
    self.init(
      path: path, durability: durability, chained: chained, checkpoints: checkpoints,
      synchronize: FileWriter.systemSynchronize)
  }

  /// Creates a file sink that flushes with `synchronize` instead of `fsync`, for tests.
  init(
    path: String, durability: Durability, chained: Bool, checkpoints: AuditCheckpoints? = nil,
    synchronize: @escaping @Sendable (Int32) -> Int32
  ) {
    self.path = path
    self.durability = durability
    self.chained = chained
    self.checkpoints = chained ? checkpoints : nil
    self.handle = FileHandleBox(
      path: path, chained: chained, checkpoints: self.checkpoints, synchronize: synchronize)
  }

  /// Appends the record: its text, or for a chained file its JSON line with `seq` and `prev`.
  ///
  /// The entry is handed to the operating system (`write`), not flushed to disk:
  /// ``waitUntilDurable()`` does that for a ``Durability/everyEntry`` sink.
  ///
  /// - Parameter record: The entry.
  /// - Throws: A ``LogSinkError``: the file cannot be opened or written, was deleted, replaced
  ///   or changed, or the sink stopped after an earlier failure.
  public func write(_ record: LogRecord) throws {
    try append(record)
  }

  /// Appends the record and returns the end of its bytes in the writer's stream.
  @discardableResult
  func append(_ record: LogRecord) throws(LogSinkError) -> Int64 {
    if chained, record.format != .jsonLines {
      throw LogSinkError.chainRequiresJSONLines(path: path)
    }
    // The file's links are worth a system call per entry only where a flush follows it.
    return try handle.open().append(record, askingLinks: durability == .everyEntry)
  }

  /// Whether entries are on disk only once ``waitUntilDurable()`` returns: with
  /// ``Durability/everyEntry``.
  public var defersDurability: Bool { durability == .everyEntry }

  /// Waits until every entry this sink accepted before the call is on disk.
  ///
  /// With ``Durability/everyEntry``, a group commit: if a flush that started after the
  /// caller's entries were written has already finished, it returns at once; if a flush is
  /// running, it waits for it and decides again; otherwise it flushes (`fsync`) everything
  /// written so far, for itself and for every caller that waits meanwhile. Writes go on while
  /// a flush runs. A flush first waits for as many callers as waited when the last one ended
  /// (the writers in flight), for at most twice that flush's duration and never more than
  /// 1 ms; a caller that was alone does not wait. With ``Durability/buffered`` it does nothing.
  ///
  /// A failed flush stops the sink: nothing written since the last successful flush can be
  /// trusted to reach the disk, even if a later flush succeeds (the system may have dropped
  /// the pages that failed). Every caller whose entries it should have covered, and every
  /// later write, throws.
  ///
  /// - Throws: ``LogSinkError/syncFailed(path:reason:)`` when the flush failed, now or before;
  ///   ``LogSinkError/fileRemoved(path:)``, ``LogSinkError/fileReplaced(path:)`` or
  ///   ``LogSinkError/fileChanged(path:expectedSize:foundSize:)`` when the file is no longer
  ///   the one the sink opened.
  public func waitUntilDurable() throws {
    guard durability == .everyEntry, let writer = handle.openedWriter else { return }
    try writer.waitUntilDurable()
  }

  /// Flushes everything written so far to disk (`fsync`), whatever the durability.
  ///
  /// Shares a flush that is running or has run since the last entry was written, like
  /// ``waitUntilDurable()``.
  ///
  /// - Throws: A ``LogSinkError`` when the file cannot be opened or flushed, or is no longer
  ///   the one the sink opened.
  public func flush() throws {
    try handle.open().waitUntilDurable()
  }

  /// Rotates a chained file (see `FileWriter.rotate(archivingTo:firstLine:)`) and opens its
  /// new file; returns the archive's path.
  func rotate(archivingTo archive: String?, firstLine: (Int, String) -> String)
    throws(LogSinkError)
  {
    try handle.rotate(archivingTo: archive, firstLine: firstLine)
  }

  /// Opens the file now, checking a chained file's last entry.
  func open() throws(LogSinkError) {
    _ = try handle.open()
  }

  /// Opens the file now, and returns the position of a chained file's last line: where its
  /// next entry continues the chain.
  func openedPosition() throws(LogSinkError) -> JournalPosition {
    let writer = try handle.open()
    return writer.state.withLock { state in
      JournalPosition(sequence: state.lastSequence, hash: state.lastHash.hex)
    }
  }

  /// Flushes to disk if the file is open; failures surface on the next write or flush.
  func flushIfOpen() {
    handle.openedWriter?.flushQuietly()
  }

  /// How many flushes (`fsync` calls) the file's writer has made; 0 before it opens.
  ///
  /// Package access: `reduce-bench` divides a durable workload's entries by it.
  package var syncCount: Int { handle.openedWriter?.state.withLock { $0.syncs } ?? 0 }

  /// The end of the bytes the file's writer has written since it opened.
  var writtenSize: Int64 { handle.openedWriter?.state.withLock { $0.written } ?? 0 }

  /// How much of ``writtenSize`` is known to be on disk.
  var durableSize: Int64 { handle.openedWriter?.state.withLock { $0.durable } ?? 0 }

  /// How many callers are in ``waitUntilDurable()``.
  var waitingCallers: Int { handle.openedWriter?.state.withLock { $0.group.targets.count } ?? 0 }

  /// How many flushes waited for their group (`FileWriter+Durability.swift`).
  var gatheredFlushes: Int { handle.openedWriter?.state.withLock { $0.group.gatherings } ?? 0 }
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
  let checkpoints: AuditCheckpoints?
  let synchronize: @Sendable (Int32) -> Int32
  private let writer = Locked<FileWriter?>(nil)

  init(
    path: String, chained: Bool, checkpoints: AuditCheckpoints?,
    synchronize: @escaping @Sendable (Int32) -> Int32
  ) {
    self.path = path
    self.chained = chained
    self.checkpoints = checkpoints
    self.synchronize = synchronize
  }

  deinit {
    if let writer = writer.withLock({ $0 }) { FileWriter.release(writer) }
  }

  var openedWriter: FileWriter? { writer.withLock { $0 } }

  /// Rotates the file of this sink and its copies, and opens the new one.
  ///
  /// Refused while another sink value shares the writer (another store writes the file).
  func rotate(archivingTo archive: String?, firstLine: (Int, String) -> String)
    throws(LogSinkError)
  {
    try writer.withLock { slot throws(LogSinkError) in
      let current: FileWriter
      if let writer = slot {
        current = writer
      } else {
        current = try FileWriter.acquire(
          path: path, chained: chained, checkpoints: checkpoints, synchronize: synchronize)
      }
      guard FileWriter.isOnlyUser(of: current) else {
        if slot == nil { FileWriter.release(current) }
        throw .rotationFailed(path: path, reason: "another sink writes it too")
      }
      slot = nil
      do throws(LogSinkError) {
        try current.rotate(archivingTo: archive, firstLine: firstLine)
      } catch {
        FileWriter.release(current)
        throw error
      }
      FileWriter.release(current)
      slot = try FileWriter.acquire(
        path: path, chained: chained, checkpoints: checkpoints, synchronize: synchronize)
    }
  }

  func open() throws(LogSinkError) -> FileWriter {
    try writer.withLock { slot throws(LogSinkError) in
      if let writer = slot { return writer }
      let writer = try FileWriter.acquire(
        path: path, chained: chained, checkpoints: checkpoints, synchronize: synchronize)
      slot = writer
      return writer
    }
  }
}
