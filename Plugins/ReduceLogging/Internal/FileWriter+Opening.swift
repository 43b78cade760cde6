import Foundation
import Reduce

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

// Opening a file, sharing its writer between sinks, and continuing a chain.

extension FileWriter {
  private struct Registration {
    let writer: FileWriter
    var users: Int
  }

  private static let registry = Locked<[FileIdentity: Registration]>([:])

  /// Opens a file for a sink, or shares the writer already open for it.
  ///
  /// A sink that shares a chained file's writer is another sink value than the one that
  /// opened it (copies of one value share their writer without coming here). It gets the
  /// writer only if the file is as the writer left it: same size, and a last line that is the
  /// entry written last (``checkShared()``), so that it never appends after bytes that someone
  /// else wrote.
  static func acquire(
    path: String, chained: Bool, checkpoints: AuditCheckpoints? = nil,
    synchronize: @escaping @Sendable (Int32) -> Int32
  ) throws(LogSinkError) -> FileWriter {
    if chained { finishInterruptedRotation(of: path) }
    let descriptor = POSIX.openForAppending(path)
    guard descriptor >= 0 else { throw .openFailed(path: path, reason: POSIX.errorText) }
    var info = stat()
    guard fstat(descriptor, &info) == 0 else {
      let reason = POSIX.errorText
      POSIX.closeDescriptor(descriptor)
      throw .openFailed(path: path, reason: reason)
    }
    let identity = FileIdentity(info)
    return try registry.withLock { writers throws(LogSinkError) in
      if var registration = writers[identity] {
        POSIX.closeDescriptor(descriptor)
        guard registration.writer.chained == chained,
          registration.writer.checkpoints?.every == checkpoints?.every,
          registration.writer.checkpoints?.key == checkpoints?.key
        else { throw .conflictingOptions(path: path) }
        try registration.writer.checkShared()
        registration.users += 1
        writers[identity] = registration
        return registration.writer
      }
      do throws(LogSinkError) {
        let writer = try makeWriter(
          path: path, chained: chained, checkpoints: checkpoints, identity: identity,
          descriptor: descriptor, size: Int64(info.st_size), synchronize: synchronize)
        writers[identity] = Registration(writer: writer, users: 1)
        return writer
      } catch {
        POSIX.closeDescriptor(descriptor)
        throw error
      }
    }
  }

  /// Whether one sink value alone uses the writer.
  static func isOnlyUser(of writer: FileWriter) -> Bool {
    registry.withLock { $0[writer.identity]?.users == 1 }
  }

  /// Gives up one sink's use of a writer; the last one closes the file.
  ///
  /// The file is closed inside the registry's lock: a sink that opens the same path meanwhile
  /// then finds either the open writer or a closed file, never a file still locked (`flock`)
  /// by a writer on its way out, which it would take for another process's.
  static func release(_ writer: FileWriter) {
    registry.withLock { writers in
      guard var registration = writers[writer.identity], registration.writer === writer else {
        return
      }
      registration.users -= 1
      if registration.users > 0 {
        writers[writer.identity] = registration
        return
      }
      writers[writer.identity] = nil
      writer.close()
    }
  }

  /// How long a chained file's lock held by someone else may take to come free before the
  /// file counts as another process's.
  static let lockGracePeriod: Duration = .milliseconds(250)

  /// Locks a chained file for this process (`flock`), waiting up to ``lockGracePeriod`` for a
  /// lock that is held.
  ///
  /// A lock can be held for a moment by no writer at all: a child process being started by any
  /// thread of this process holds a copy of every descriptor until it runs its program (which
  /// closes them: they are opened close-on-exec), and the lock belongs to the file's open
  /// description, which that copy shares. Seen in the tests, where the crash tests start child
  /// processes while other tests reopen their logs. A writer of another process holds the lock
  /// for as long as it writes, past the grace period.
  ///
  /// - Throws: ``LogSinkError/lockedByAnotherProcess(path:)`` when the lock is still held after
  ///   the grace period; ``LogSinkError/openFailed(path:reason:)`` when `flock` fails otherwise.
  static func lockExclusively(_ descriptor: Int32, path: String) throws(LogSinkError) {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: lockGracePeriod)
    while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
      guard errno == EWOULDBLOCK || errno == EINTR else {
        throw .openFailed(path: path, reason: POSIX.errorText)
      }
      guard clock.now < deadline else { throw .lockedByAnotherProcess(path: path) }
      usleep(5_000)
    }
  }

  private static func makeWriter(
    path: String, chained: Bool, checkpoints: AuditCheckpoints?, identity: FileIdentity,
    descriptor: Int32, size: Int64, synchronize: @escaping @Sendable (Int32) -> Int32
  ) throws(LogSinkError) -> FileWriter {
    var lastSequence = 0
    var lastHash = SHA256.Digest.zero
    var endsWithCheckpoint = false
    if chained {
      try lockExclusively(descriptor, path: path)
      let size = try cutTornTail(of: descriptor, size: size, path: path)
      if size > 0 {
        let line = try lastLine(of: descriptor, size: size, path: path)
        let entry: JSONValue
        do {
          entry = try JSONParser.parse(line)
        } catch {
          throw .cannotContinueChain(
            path: path, reason: "its last line is not valid JSON (\(error.message))")
        }
        guard let sequence = entry["seq"]?.intValue, sequence >= 1,
          let previous = entry["prev"]?.stringValue, AuditLog.isHash(previous)
        else {
          throw .cannotContinueChain(
            path: path, reason: "its last line is not a chained entry (no seq or prev)")
        }
        lastSequence = sequence
        lastHash = SHA256.digest(of: line)
        endsWithCheckpoint = entry["checkpoint"] != nil
      }
    }
    let size = Int64(lseek(descriptor, 0, SEEK_END))
    return FileWriter(
      path: path, chained: chained, checkpoints: checkpoints, identity: identity,
      descriptor: descriptor, size: size, lastSequence: lastSequence, lastHash: lastHash,
      sinceCheckpoint: endsWithCheckpoint ? 0 : nil, synchronize: synchronize)
  }

  /// Cuts off a torn last line, the mark of a crash during a write, and keeps its bytes aside
  /// in `PATH.torn` (or `PATH.torn-2`, and so on), so that the chain continues after the last
  /// complete entry; returns the file's size after.
  ///
  /// Only a torn line is cut: an unterminated last line that is not the beginning of the entry
  /// that was due (``AuditLog/verify(contentsOf:)-(URL)`` tells them apart) was not left by a
  /// crash, and the file is refused. The whole file is verified then, which takes as long as
  /// the file is big: it happens only after a crash. The torn entry was never acknowledged:
  /// with a durable log, its dispatch had not returned.
  private static func cutTornTail(of descriptor: Int32, size: Int64, path: String)
    throws(LogSinkError) -> Int64
  {
    guard size > 0 else { return size }
    var last: UInt8 = 0
    guard pread(descriptor, &last, 1, off_t(size - 1)) == 1 else {
      throw .openFailed(path: path, reason: POSIX.errorText)
    }
    guard last != UInt8(ascii: "\n") else { return size }
    do throws(AuditLogError) {
      _ = try AuditLog.verify(contentsOf: URL(fileURLWithPath: path))
    } catch  where error.isTornLastLine {
      // Below.
    } catch {
      throw .cannotContinueChain(
        path: path, reason: "it does not verify (\(error)); run `reduce-audit verify \(path)`")
    }
    var tail: [UInt8] = []
    var start = size
    while start > 0 {
      let length = min(65536, start)
      start -= length
      var buffer = [UInt8](repeating: 0, count: Int(length))
      guard
        buffer.withUnsafeMutableBytes({
          pread(descriptor, $0.baseAddress, Int(length), off_t(start))
        })
          == Int(length)
      else { throw .openFailed(path: path, reason: POSIX.errorText) }
      tail = buffer + tail
      if let newline = tail.lastIndex(of: UInt8(ascii: "\n")) {
        start += Int64(newline + 1)
        tail = Array(tail[(newline + 1)...])
        break
      }
    }
    try keepTornBytes(tail, of: path)
    guard ftruncate(descriptor, off_t(start)) == 0, fsync(descriptor) == 0 else {
      throw .openFailed(path: path, reason: "cannot cut its torn last line: \(POSIX.errorText)")
    }
    return start
  }

  /// Writes the bytes of a torn line to the first free name of `PATH.torn`, `PATH.torn-2`, ….
  private static func keepTornBytes(_ bytes: [UInt8], of path: String) throws(LogSinkError) {
    var number = 1
    while true {
      let name = number == 1 ? path + ".torn" : path + ".torn-\(number)"
      let descriptor = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
      if descriptor < 0, errno == EEXIST, number < 1000 {
        number += 1
        continue
      }
      guard descriptor >= 0 else {
        throw .openFailed(path: path, reason: "cannot keep its torn last line: \(POSIX.errorText)")
      }
      defer { POSIX.closeDescriptor(descriptor) }
      if let failure = POSIX.writeAll(descriptor, bytes) {
        throw .openFailed(path: path, reason: "cannot keep its torn last line: \(failure)")
      }
      guard fsync(descriptor) == 0 else {
        throw .openFailed(path: path, reason: "cannot keep its torn last line: \(POSIX.errorText)")
      }
      return
    }
  }

  /// For a sink that opens a file this process already writes: throws the writer's failure,
  /// and for a chained file, refuses a file that is not as the writer left it.
  private func checkShared() throws(LogSinkError) {
    try state.withLock { state throws(LogSinkError) in
      if let failure = state.failure { throw failure }
      guard chained else { return }
      try checkFile(&state)
      guard state.fileSize > 0, state.lastSequence > 0 else { return }
      let line = try Self.lastLine(of: state.descriptor, size: state.fileSize, path: path)
      guard SHA256.digest(of: line) == state.lastHash else {
        throw .cannotContinueChain(
          path: path,
          reason: "its last line is not the entry this process wrote last; the file was changed")
      }
    }
  }

  /// The bytes of the file's last line, without its newline; refuses a torn last line.
  private static func lastLine(of descriptor: Int32, size: Int64, path: String)
    throws(LogSinkError) -> [UInt8]
  {
    var tail: [UInt8] = []
    var start = size
    let chunk: Int64 = 65536
    while start > 0 {
      let length = min(chunk, start)
      start -= length
      var buffer = [UInt8](repeating: 0, count: Int(length))
      let read = buffer.withUnsafeMutableBytes {
        pread(descriptor, $0.baseAddress, Int(length), off_t(start))
      }
      guard read == Int(length) else {
        throw .openFailed(path: path, reason: read < 0 ? POSIX.errorText : "a short read")
      }
      tail = buffer + tail
      if tail.last != UInt8(ascii: "\n") {
        throw .cannotContinueChain(
          path: path, reason: "its last line is incomplete (a crash during a write?)")
      }
      if let newline = tail.dropLast().lastIndex(of: UInt8(ascii: "\n")) {
        return Array(tail[(newline + 1)..<(tail.count - 1)])
      }
    }
    return Array(tail.dropLast())
  }
}
