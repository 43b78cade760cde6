import Reduce

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A file's identity, the same for every path that reaches it.
struct FileIdentity: Hashable, Sendable {
  let device: UInt64
  let inode: UInt64

  init(_ info: stat) {
    device = UInt64(truncatingIfNeeded: info.st_dev)
    inode = UInt64(truncatingIfNeeded: info.st_ino)
  }
}

/// The one writer of a log file in this process, shared by every sink that writes it.
///
/// Its state (descriptor, sizes, the chain's last sequence number and hash) lives behind one
/// lock; an entry's JSON line is built, written and hashed under it, so the chain's order is
/// the file's order. No user code runs under the lock, and neither does `fsync`: writes go on
/// while a flush runs, and one flush covers every entry written before it started
/// (`FileWriter+Durability.swift`).
final class FileWriter: Sendable {
  let path: String
  /// The path made absolute when the file was opened, so that a change of the working
  /// directory does not change the file it names.
  let checkedPath: String
  let chained: Bool
  /// The keyed checkpoints the file gets, if any.
  let checkpoints: AuditCheckpoints?
  let identity: FileIdentity
  /// Flushes a descriptor to disk (`fsync`, except in tests).
  ///
  /// Returns 0, or the `errno` of the failure.
  let synchronize: @Sendable (Int32) -> Int32

  struct State {
    var descriptor: Int32
    /// The file's size after the last complete entry, as far as this writer knows.
    var fileSize: Int64
    /// How many bytes this writer has written since it opened: the end of its stream of entries,
    /// which only grows (a copy-and-truncate rotation resets ``fileSize``, not this).
    var written: Int64 = 0
    /// How much of that stream is known to be on disk.
    var durable: Int64 = 0
    /// Whether a caller is flushing (the leader of a group commit); others wait for it.
    var flushing = false
    /// Who waits for a flush, and how many the next one waits for (`FileWriter+Durability.swift`).
    var group = GroupCommit()
    /// Why the writer stopped: every later write and flush throws it.
    var failure: LogSinkError?
    /// How many flushes (`fsync` calls) the writer has made.
    var syncs = 0
    var lastSequence: Int
    /// The digest of the last line, the next entry's `prev`.
    var lastHash: SHA256.Digest
    /// Entries since the last checkpoint; nil when one is due before the next entry (a keyed
    /// writer's first).
    var sinceCheckpoint: Int?
    /// When a write last looked up the path (``checkFile(_:lookingUpPath:askingLinks:)``).
    var lastPathCheck = ContinuousClock.now
    /// Where a chained line is built, kept from one entry to the next.
    let line = LineBuffer()

    /// Whether a write should look the path up: the last look is
    /// ``FileWriter/pathCheckInterval`` old.
    var pathCheckIsDue: Bool {
      lastPathCheck.duration(to: .now) >= FileWriter.pathCheckInterval
    }
  }

  let state: Locked<State>

  init(
    path: String, chained: Bool, checkpoints: AuditCheckpoints? = nil, identity: FileIdentity,
    descriptor: Int32, size: Int64, lastSequence: Int, lastHash: SHA256.Digest,
    sinceCheckpoint: Int? = nil, synchronize: @escaping @Sendable (Int32) -> Int32
  ) {
    self.path = path
    self.checkedPath = POSIX.absolutePath(path)
    self.chained = chained
    self.checkpoints = checkpoints
    self.identity = identity
    self.synchronize = synchronize
    self.state = Locked(
      State(
        descriptor: descriptor, fileSize: size, lastSequence: lastSequence, lastHash: lastHash,
        sinceCheckpoint: sinceCheckpoint))
  }

  /// `fsync`, returning 0 or its `errno`.
  static let systemSynchronize: @Sendable (Int32) -> Int32 = { descriptor in
    fsync(descriptor) == 0 ? 0 : errno
  }

  // MARK: Writing

  /// Appends one entry, for a chained file numbered and linked under the lock, and returns the
  /// end of the entry in the writer's stream (compare ``State/durable``).
  ///
  /// A chained file is checked first (``checkFile(_:lookingUpPath:askingLinks:)``): an entry is
  /// never written into a file that someone else wrote to or cut, nor, as far as the checks
  /// tell, into one that is no longer at `path`.
  ///
  /// - Parameters:
  ///   - record: The entry.
  ///   - askingLinks: Whether the check asks the file whether it still has a name (an
  ///     `.everyEntry` sink, whose flush costs far more); otherwise a write notices a deleted
  ///     file only when it looks the path up.
  /// - Returns: The end of the entry in the writer's stream.
  /// - Throws: The writer's failure, or a ``LogSinkError`` from the check or the write.
  @discardableResult
  func append(_ record: LogRecord, askingLinks: Bool = true) throws(LogSinkError) -> Int64 {
    let text = chained ? nil : record.text
    return try state.withLock { state throws(LogSinkError) in
      if let failure = state.failure { throw failure }
      if chained {
        try checkFile(&state, lookingUpPath: state.pathCheckIsDue, askingLinks: askingLinks)
      }
      if let checkpoints {
        return try appendKeyed(record, checkpoints: checkpoints, &state)
      }
      let sequence = state.lastSequence + 1
      var line = state.line
      line.removeAll()
      if let text {
        line.append(text: text)
      } else {
        EntryFormatter.writeJSONLine(
          record.entry, sequence: sequence, previous: state.lastHash, to: &line)
      }
      // The hash covers the line without its newline.
      let hash = chained ? SHA256.digest(of: line.bytes) : nil
      line.append(UInt8(ascii: "\n"))
      if let failure = POSIX.writeAll(state.descriptor, line.bytes) {
        // Remove the partial entry, so that the next one follows the last complete one.
        if chained, ftruncate(state.descriptor, off_t(state.fileSize)) != 0 {
          state.failure = .damaged(path: path)
        }
        throw .writeFailed(path: path, reason: failure)
      }
      let length = Int64(line.count)
      state.fileSize += length
      state.written += length
      if let hash {
        state.lastSequence = sequence
        state.lastHash = hash
      }
      return state.written
    }
  }

  /// Appends an entry of a keyed file with the checkpoints due around it, in one write.
  private func appendKeyed(
    _ record: LogRecord, checkpoints: AuditCheckpoints, _ state: inout State
  ) throws(LogSinkError) -> Int64 {
    var bytes: [UInt8] = []
    var sequence = state.lastSequence
    var hash = state.lastHash
    var since = state.sinceCheckpoint
    func add(_ write: (inout [UInt8]) -> Void) {
      let start = bytes.count
      sequence += 1
      write(&bytes)
      hash = SHA256.digest(of: bytes[start...])
      bytes.append(UInt8(ascii: "\n"))
    }
    func checkpoint() {
      add {
        CheckpointLine.write(
          sequence: sequence, previous: hash, timestamp: record.entry.timestamp,
          checkpoints: checkpoints, to: &$0)
      }
      since = 0
    }
    if since == nil { checkpoint() }
    add { EntryFormatter.writeJSONLine(record.entry, sequence: sequence, previous: hash, to: &$0) }
    since = (since ?? 0) + 1
    if let count = since, count >= checkpoints.every { checkpoint() }
    if let failure = POSIX.writeAll(state.descriptor, bytes) {
      if ftruncate(state.descriptor, off_t(state.fileSize)) != 0 {
        state.failure = .damaged(path: path)
      }
      throw .writeFailed(path: path, reason: failure)
    }
    let length = Int64(bytes.count)
    state.fileSize += length
    state.written += length
    state.lastSequence = sequence
    state.lastHash = hash
    state.sinceCheckpoint = since
    return state.written
  }

  /// Checks that `path` still names the file this writer writes, as the writer left it; on a
  /// problem, stops the writer (``State/failure``) and throws.
  ///
  /// - `path` names no file: the file was deleted or moved away. `path` names another file:
  ///   it was replaced (moved aside and recreated).
  /// - The file is empty though the writer wrote to it: truncated in place, the way a
  ///   copy-and-truncate rotation (logrotate's `copytruncate`) leaves it. Not a problem: the
  ///   writer goes on at the start of the file, and a chain goes on where it was, so that the
  ///   copy and the new file verify as one sequence.
  /// - A chained file of another size than the writer left it: someone else wrote to it or cut
  ///   it. A plain file just goes on at its new end.
  ///
  /// One `stat` of the path tells all of that when it names the writer's file; without
  /// `lookingUpPath`, or when the path cannot be looked up for another reason (permissions), an
  /// `fstat` of the descriptor tells whether the file still has a name (`st_nlink`) and its
  /// size, but not whether it was moved or replaced; without `askingLinks` either, an `lseek` to
  /// the end tells only its size. Measured in release on an audited ledger (a chained
  /// `.buffered` write per dispatch): 7.0 µs a dispatch with no check, 8.7 µs with an `fstat`
  /// per write (the call, and the caches it leaves cold), 7.2 µs with an `lseek`; a `stat` of
  /// the path costs more than an `fstat`. So a write looks the path up at most every
  /// ``pathCheckInterval``, and every flush does: a file moved or replaced is noticed within
  /// that time (the entries written meanwhile are in the moved file, not lost), a file cut or
  /// written to by someone else at the next write, and a file deleted at the next write that
  /// asks for links (`.everyEntry`), or else within that time too (the entries written
  /// meanwhile went into the deleted file, with everything before them).
  func checkFile(_ state: inout State, lookingUpPath: Bool = true, askingLinks: Bool = true)
    throws(LogSinkError)
  {
    var info = stat()
    let problem: LogSinkError?
    if lookingUpPath { state.lastPathCheck = .now }
    if lookingUpPath, stat(checkedPath, &info) == 0 {
      problem =
        FileIdentity(info) == identity
        ? sizeProblem(&state, found: Int64(info.st_size)) : .fileReplaced(path: path)
    } else if lookingUpPath, errno == ENOENT || errno == ENOTDIR {
      problem = .fileRemoved(path: path)
    } else if !lookingUpPath, !askingLinks, case let size = lseek(state.descriptor, 0, SEEK_END),
      size >= 0
    {
      problem = sizeProblem(&state, found: Int64(size))
    } else if fstat(state.descriptor, &info) == 0 {
      problem =
        info.st_nlink == 0
        ? .fileRemoved(path: path) : sizeProblem(&state, found: Int64(info.st_size))
    } else {
      throw .writeFailed(path: path, reason: POSIX.errorText)
    }
    if let problem {
      state.failure = problem
      throw problem
    }
  }

  /// How often, at most, a write looks the path up (``checkFile(_:lookingUpPath:askingLinks:)``).
  static let pathCheckInterval = Duration.milliseconds(100)

  private func sizeProblem(_ state: inout State, found: Int64) -> LogSinkError? {
    guard found != state.fileSize else { return nil }
    if found == 0 || !chained {
      state.fileSize = found
      return nil
    }
    return .fileChanged(path: path, expectedSize: state.fileSize, foundSize: found)
  }

  /// Closes the file once no flush is running.
  func close() {
    let isIdle = { (state: State) in !state.flushing }
    state.withLock(when: isIdle) { state in
      guard state.descriptor >= 0 else { return }
      _ = fsync(state.descriptor)  // Best effort before closing; the file is already written.
      POSIX.closeDescriptor(state.descriptor)
      state.descriptor = -1
    }
  }
}
