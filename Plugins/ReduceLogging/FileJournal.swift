import Foundation
import Reduce

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A journal kept in a chained log file and its archives: the source a ``JournalReader``,
/// ``JournalFollower``, replay or ``StandbyStore`` reads a file log through.
///
/// The journal is the file at ``path`` and the files beside it whose names begin with its
/// name and a dot: the archives of ``RotateAuditLog`` (`audit.log.000000001824`) and the copies
/// of a copy-and-truncate rotation (logrotate's `audit.log.1`). Names ending in `.torn`,
/// `.torn-N`, `.rotating` or `.gz`, and files whose first line does not begin with a `seq`,
/// are not pieces of the log and are skipped. A line is found by its `seq` in whichever file
/// holds it, so a reader goes on across rotations:
///
/// - **rotation** (the file is renamed and a new one made at the path): the reader finishes the
///   renamed file through the descriptor it has open, then goes on in the new file;
/// - **copy-and-truncate** (the file is copied and cut to nothing in place): the reader goes on
///   at the start of the file, and reads the lines it had not read yet from the copy.
///
/// Only complete lines are read: a line the writer is writing (or a crash tore) is left until
/// its newline is there. ``waitForLines(after:timeout:)`` looks at the file every
/// `pollInterval`.
///
/// - Complexity: A read that goes on from the last one costs the lines it returns. Finding a
///   `seq` elsewhere reads the file that holds it from its start, once; the newest snapshot is
///   found by reading the current file backwards from its end, so a replay from it costs the
///   entries after it.
public final class FileJournal: JournalSource {
  /// The log file's path.
  public let path: String
  private let pollInterval: Duration
  private let sleep: @Sendable (Duration) async throws -> Void
  private let cursor = Locked(Cursor())

  /// Where the last read stopped: an open file, a byte offset in it, and the `seq` of the line
  /// that starts there.
  struct Cursor {
    var file: OpenLog?
    var offset: Int64 = 0
    /// The `seq` of the line at `offset`; nil when not known.
    var nextSequence: Int?
    /// The last line read, with its newline, just before `offset`: still there unless the
    /// file was cut (and perhaps written again) since.
    var lastLine: [UInt8] = []
    /// A snapshot found by ``FileJournal/newestSnapshot(through:)``: where it is.
    var snapshot: (sequence: Int, path: String, offset: Int64)?
  }

  /// A log file open for reading.
  final class OpenLog: Sendable {
    let path: String
    let descriptor: Int32
    let identity: FileIdentity

    init?(path: String) {
      let descriptor = open(path, O_RDONLY | O_CLOEXEC)
      guard descriptor >= 0 else { return nil }
      var info = stat()
      guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
        POSIX.closeDescriptor(descriptor)
        return nil
      }
      self.path = path
      self.descriptor = descriptor
      self.identity = FileIdentity(info)
    }

    deinit { POSIX.closeDescriptor(descriptor) }

    var size: Int64 {
      var info = stat()
      return fstat(descriptor, &info) == 0 ? Int64(info.st_size) : 0
    }

    /// Bytes from `offset`, at most `count`.
    func read(at offset: Int64, count: Int) throws(JournalError) -> [UInt8] {
      var buffer = [UInt8](repeating: 0, count: count)
      while true {
        let read = buffer.withUnsafeMutableBytes {
          pread(descriptor, $0.baseAddress, count, off_t(offset))
        }
        if read < 0, errno == EINTR { continue }
        guard read >= 0 else {
          throw .sourceFailed(reason: "cannot read \(path): \(POSIX.errorText)")
        }
        buffer.removeLast(count - read)
        return buffer
      }
    }

    /// The complete lines from `offset`, at most `limit`, and the offset after the last.
    func lines(from offset: Int64, limit: Int, firstSequence: Int?) throws(JournalError) -> (
      lines: [JournalLine], end: Int64
    ) {
      var lines: [JournalLine] = []
      var position = offset
      var chunk = 1 << 16
      var predicted = firstSequence
      while lines.count < limit {
        let bytes = try read(at: position, count: chunk)
        guard !bytes.isEmpty else { break }
        var start = 0
        var found = false
        bytes.withUnsafeBufferPointer { buffer in
          while lines.count < limit,
            let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n"))
          {
            let sequence = LineKind.sequence(of: buffer[start..<newline]) ?? predicted ?? 0
            lines.append(JournalLine(sequence: sequence, bytes: Array(buffer[start..<newline])))
            predicted = sequence + 1
            start = newline + 1
            found = true
          }
        }
        position += Int64(start)
        if !found {
          // A line longer than the chunk, or an incomplete last line.
          guard bytes.count == chunk else { break }
          chunk *= 4
        }
      }
      return (lines, position)
    }

    /// The offset of the first line whose `seq` is `sequence` or more, and that line's `seq`;
    /// nil when every line is before it.
    func find(_ sequence: Int) throws(JournalError) -> (offset: Int64, sequence: Int)? {
      var offset: Int64 = 0
      while true {
        let (lines, end) = try self.lines(from: offset, limit: 4096, firstSequence: nil)
        guard !lines.isEmpty else { return nil }
        var position = offset
        for line in lines {
          if line.sequence >= sequence { return (position, line.sequence) }
          position += Int64(line.bytes.count + 1)
        }
        offset = end
      }
    }

    /// The `seq` of the first complete line; nil when there is none, or when it does not
    /// begin with one (the file is not a log: a key file beside it, say).
    func firstSequence() throws(JournalError) -> Int? {
      try lines(from: 0, limit: 1, firstSequence: nil).lines.first.flatMap {
        LineKind.sequence(of: $0.bytes)
      }
    }

    /// The complete lines before `end`, read backwards, newest first, until `stop` says so.
    func scanBackwards(
      from end: Int64, _ stop: (JournalLine, Int64) -> Bool
    ) throws(JournalError) {
      var tail: [UInt8] = []
      var start = end
      var skippedPartial = false
      // Small reads first: most calls want the last line or two.
      var chunk = Int64(1 << 12)
      while start > 0 {
        let length = min(chunk, start)
        chunk = min(chunk * 4, 1 << 20)
        start -= length
        tail = try read(at: start, count: Int(length)) + tail
        if !skippedPartial {
          // A last line without its newline is not complete: leave it out.
          guard let newline = tail.lastIndex(of: UInt8(ascii: "\n")) else { continue }
          tail.removeSubrange((newline + 1)...)
          skippedPartial = true
        }
        // Every line that begins after a newline in `tail` is whole.
        while let newline = tail.dropLast().lastIndex(of: UInt8(ascii: "\n")) {
          let bytes = Array(tail[(newline + 1)..<(tail.count - 1)])
          let offset = start + Int64(newline + 1)
          tail.removeSubrange((newline + 1)...)
          if stop(JournalLine(sequence: LineKind.sequence(of: bytes) ?? 0, bytes: bytes), offset) {
            return
          }
        }
      }
      if skippedPartial, tail.count > 1 {
        let bytes = Array(tail.dropLast())
        _ = stop(JournalLine(sequence: LineKind.sequence(of: bytes) ?? 0, bytes: bytes), 0)
      }
    }
  }

  /// Creates the journal of a log file.
  ///
  /// - Parameters:
  ///   - path: The log file's path.
  ///   - pollInterval: How often ``waitForLines(after:timeout:)`` looks at the file.
  ///   - clock: The clock that times the waits.
  public init(
    path: String, pollInterval: Duration = .milliseconds(2),
    clock: some Clock<Duration> = ContinuousClock()
  ) {
    self.path = path
    self.pollInterval = pollInterval
    self.sleep = { duration in try await clock.sleep(for: duration) }
  }

  /// The complete lines from `sequence` on, at most `limit`, across the log's files.
  ///
  /// - Parameters:
  ///   - sequence: The first `seq` wanted.
  ///   - limit: The most lines to return.
  /// - Returns: The lines, in order.
  /// - Throws: ``JournalError/sourceFailed(reason:)`` when a file cannot be read.
  public func lines(from sequence: Int, limit: Int) throws(JournalError) -> [JournalLine] {
    try cursor.withLock { cursor throws(JournalError) in
      let limit = max(1, limit)
      if cursor.nextSequence != sequence || cursor.file == nil {
        try locate(sequence, &cursor)
      } else if let file = cursor.file, try !isIntact(file, cursor) {
        // Cut in place: a copy-and-truncate rotation. The lines not yet read are in the copy.
        try locate(sequence, &cursor, excluding: nil, skippingSnapshot: true)
      }
      var (lines, end) = try read(&cursor, limit: limit)
      if let first = lines.first, LineKind.sequence(of: first.bytes) != cursor.nextSequence {
        // Not the line the cursor expected: the file was cut and written again meanwhile.
        try locate(sequence, &cursor, excluding: nil, skippingSnapshot: true)
        (lines, end) = try read(&cursor, limit: limit)
      }
      if lines.isEmpty, let file = cursor.file, file.identity != look()?.identity {
        // Finished a file that is no longer the log's current one (rotated, or an archive):
        // go on in the file that holds the next line.
        try locate(sequence, &cursor, excluding: file.identity)
        (lines, end) = try read(&cursor, limit: limit)
      }
      if let last = lines.last {
        cursor.offset = end
        cursor.nextSequence = last.sequence + 1
        cursor.lastLine = last.bytes + [UInt8(ascii: "\n")]
      }
      return lines
    }
  }

  /// Whether the file still holds, just before the cursor, the last line the cursor read.
  private func isIntact(_ file: OpenLog, _ cursor: Cursor) throws(JournalError) -> Bool {
    let length = Int64(cursor.lastLine.count)
    guard length > 0 else { return file.size >= cursor.offset }
    guard file.size >= cursor.offset, cursor.offset >= length else { return false }
    return try file.read(at: cursor.offset - length, count: Int(length)) == cursor.lastLine
  }

  private func read(_ cursor: inout Cursor, limit: Int) throws(JournalError) -> (
    lines: [JournalLine], end: Int64
  ) {
    guard let file = cursor.file else { return ([], 0) }
    return try file.lines(from: cursor.offset, limit: limit, firstSequence: cursor.nextSequence)
  }

  /// The newest snapshot at or before `sequence`, looked for from the end of the newest file.
  ///
  /// - Parameter sequence: The latest `seq` that will do; nil for any.
  /// - Returns: Its `seq`, or nil when no file holds one.
  /// - Throws: ``JournalError/sourceFailed(reason:)`` when a file cannot be read.
  public func newestSnapshot(through sequence: Int?) throws(JournalError) -> Int? {
    for file in try files().reversed() {
      var found: (Int, Int64)?
      try file.log.scanBackwards(from: file.log.size) { line, offset in
        guard line.sequence <= sequence ?? Int.max, line.kind == .snapshot else { return false }
        found = (line.sequence, offset)
        return true
      }
      if let (snapshot, offset) = found {
        cursor.withLock { $0.snapshot = (snapshot, file.log.path, offset) }
        return snapshot
      }
    }
    return nil
  }

  /// The `seq` of the log's last complete line; 0 when it has none.
  ///
  /// - Returns: The `seq`.
  /// - Throws: ``JournalError/sourceFailed(reason:)`` when a file cannot be read.
  public func lastSequence() throws(JournalError) -> Int {
    var last = 0
    if let current = OpenLog(path: path) {
      try current.scanBackwards(from: current.size) { line, _ in
        last = line.sequence
        return true
      }
      if last > 0 { return last }
    }
    for file in try files().reversed() {
      try file.log.scanBackwards(from: file.log.size) { line, _ in
        last = max(last, line.sequence)
        return true
      }
      if last > 0 { return last }
    }
    return last
  }

  /// Waits until the log file changes (grows, is cut, or is replaced), `timeout` passes, or
  /// the task is cancelled, looking every `pollInterval`.
  ///
  /// - Parameters:
  ///   - sequence: The last `seq` the reader has.
  ///   - timeout: The longest to wait.
  /// - Throws: `CancellationError` when the task is cancelled.
  public func waitForLines(after sequence: Int, timeout: Duration) async throws {
    let first = look()
    if try lastSequence() > sequence { return }
    var waited = Duration.zero
    while waited < timeout {
      try await sleep(min(pollInterval, timeout - waited))
      waited += pollInterval
      if look() != first { return }
    }
  }

  /// The current file's identity and size.
  private struct Look: Equatable {
    let identity: FileIdentity
    let size: Int64
  }

  /// The current file's identity and size, or nil when the path names none.
  private func look() -> Look? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return Look(identity: FileIdentity(info), size: Int64(info.st_size))
  }

  /// The log's files that can be read, oldest first (by their first `seq`), the current file
  /// last among equals.
  func files() throws(JournalError) -> [(log: OpenLog, first: Int)] {
    let url = URL(fileURLWithPath: path)
    let directory = url.deletingLastPathComponent().path
    let prefix = url.lastPathComponent + "."
    var names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    names = names.filter { name in
      name.hasPrefix(prefix) && !name.hasSuffix(".rotating") && !name.hasSuffix(".gz")
        && !name.dropFirst(prefix.count).hasPrefix("torn")
    }
    var result: [(log: OpenLog, first: Int, current: Bool)] = []
    var seen: Set<FileIdentity> = []
    for (name, current) in names.map({ (directory + "/" + $0, false) }) + [(path, true)] {
      guard let log = OpenLog(path: name), seen.insert(log.identity).inserted,
        let first = try log.firstSequence()
      else { continue }
      result.append((log, first, current))
    }
    result.sort { ($0.first, $0.current ? 1 : 0) < ($1.first, $1.current ? 1 : 0) }
    return result.map { ($0.log, $0.first) }
  }

  /// Points the cursor at the first line whose `seq` is `sequence` or more, in the file that
  /// holds it; leaves it without a file when no file holds a line from there on.
  private func locate(
    _ sequence: Int, _ cursor: inout Cursor, excluding: FileIdentity? = nil,
    skippingSnapshot: Bool = false
  ) throws(JournalError) {
    if !skippingSnapshot, excluding == nil, let snapshot = cursor.snapshot,
      snapshot.sequence == sequence, let log = OpenLog(path: snapshot.path),
      let found = try? log.lines(from: snapshot.offset, limit: 1, firstSequence: nil).lines.first,
      found.sequence == sequence
    {
      cursor.file = log
      cursor.offset = snapshot.offset
      cursor.nextSequence = sequence
      cursor.lastLine = []
      return
    }
    let files = try files()
    // The newest file that starts at or before `sequence`; then the ones after it.
    let start = files.lastIndex { $0.first <= sequence } ?? 0
    for file in files[start...] where file.log.identity != excluding {
      if let (offset, found) = try file.log.find(sequence) {
        cursor.file = file.log
        cursor.offset = offset
        cursor.nextSequence = found
        cursor.lastLine = []
        return
      }
    }
    cursor.file = files.last?.log
    cursor.offset = files.last?.log.size ?? 0
    cursor.nextSequence = nil
    cursor.lastLine = []
  }
}
