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
}

/// The one writer of a log file in this process, shared by every sink that writes it.
///
/// Its state (descriptor, size, the chain's last sequence number and hash) lives behind one
/// mutex; an entry's JSON line is built, written and hashed under it, so the chain's order is
/// the file's order. No user code runs under the lock.
final class FileWriter: Sendable {
  let path: String
  let chained: Bool
  let identity: FileIdentity

  private struct State {
    var descriptor: Int32
    /// The file's size after the last complete entry.
    var size: Int64
    var lastSequence: Int
    var lastHash: String
    var damaged = false
  }

  private let state: Locked<State>

  private init(
    path: String, chained: Bool, identity: FileIdentity, descriptor: Int32, size: Int64,
    lastSequence: Int, lastHash: String
  ) {
    self.path = path
    self.chained = chained
    self.identity = identity
    self.state = Locked(
      State(descriptor: descriptor, size: size, lastSequence: lastSequence, lastHash: lastHash))
  }

  // MARK: Sharing between sinks

  private struct Registration {
    let writer: FileWriter
    var users: Int
  }

  private static let registry = Locked<[FileIdentity: Registration]>([:])

  /// Opens a file for a sink, or shares the writer already open for it.
  static func acquire(path: String, chained: Bool) throws(LogSinkError) -> FileWriter {
    let descriptor = POSIX.openForAppending(path)
    guard descriptor >= 0 else { throw .openFailed(path: path, reason: POSIX.errorText) }
    var info = stat()
    guard fstat(descriptor, &info) == 0 else {
      let reason = POSIX.errorText
      POSIX.closeDescriptor(descriptor)
      throw .openFailed(path: path, reason: reason)
    }
    let identity = FileIdentity(
      device: UInt64(truncatingIfNeeded: info.st_dev),
      inode: UInt64(truncatingIfNeeded: info.st_ino))
    return try registry.withLock { writers throws(LogSinkError) in
      if var registration = writers[identity] {
        POSIX.closeDescriptor(descriptor)
        guard registration.writer.chained == chained else { throw .conflictingOptions(path: path) }
        registration.users += 1
        writers[identity] = registration
        return registration.writer
      }
      do throws(LogSinkError) {
        let writer = try makeWriter(
          path: path, chained: chained, identity: identity, descriptor: descriptor,
          size: Int64(info.st_size))
        writers[identity] = Registration(writer: writer, users: 1)
        return writer
      } catch {
        POSIX.closeDescriptor(descriptor)
        throw error
      }
    }
  }

  /// Gives up one sink's use of a writer; the last one closes the file.
  static func release(_ writer: FileWriter) {
    let last = registry.withLock { writers -> Bool in
      guard var registration = writers[writer.identity], registration.writer === writer else {
        return false
      }
      registration.users -= 1
      if registration.users > 0 {
        writers[writer.identity] = registration
        return false
      }
      writers[writer.identity] = nil
      return true
    }
    if last { writer.close() }
  }

  private static func makeWriter(
    path: String, chained: Bool, identity: FileIdentity, descriptor: Int32, size: Int64
  ) throws(LogSinkError) -> FileWriter {
    var lastSequence = 0
    var lastHash = AuditLog.genesisHash
    if chained {
      guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
        if errno == EWOULDBLOCK { throw .lockedByAnotherProcess(path: path) }
        throw .openFailed(path: path, reason: POSIX.errorText)
      }
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
        lastHash = SHA256.hex(of: line)
      }
    }
    return FileWriter(
      path: path, chained: chained, identity: identity, descriptor: descriptor, size: size,
      lastSequence: lastSequence, lastHash: lastHash)
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

  // MARK: Writing

  /// Appends one entry; for a chained file, numbers and links it under the lock.
  func append(_ record: LogRecord, durability: FileLogSink.Durability) throws(LogSinkError) {
    let text = chained ? nil : record.text
    try state.withLock { state throws(LogSinkError) in
      guard !state.damaged else { throw .damaged(path: path) }
      let sequence = state.lastSequence + 1
      let line =
        text
        ?? EntryFormatter.jsonLine(record.entry, sequence: sequence, previous: state.lastHash)
      let lineBytes = Array(line.utf8)
      if let failure = POSIX.writeAll(state.descriptor, lineBytes + [UInt8(ascii: "\n")]) {
        if chained {
          // Remove the partial entry, so that the next one follows the last complete one.
          if ftruncate(state.descriptor, off_t(state.size)) != 0 { state.damaged = true }
        }
        throw .writeFailed(path: path, reason: failure)
      }
      state.size += Int64(lineBytes.count + 1)
      if chained {
        state.lastSequence = sequence
        state.lastHash = SHA256.hex(of: lineBytes)
      }
      if durability == .everyEntry, fsync(state.descriptor) != 0 {
        throw .syncFailed(path: path, reason: POSIX.errorText)
      }
    }
  }

  /// Flushes the file to disk.
  func sync() throws(LogSinkError) {
    try state.withLock { state throws(LogSinkError) in
      guard state.descriptor >= 0 else { return }
      if fsync(state.descriptor) != 0 { throw .syncFailed(path: path, reason: POSIX.errorText) }
    }
  }

  /// Flushes the file to disk where no one can be told of a failure (a detach); the next
  /// write or ``sync()`` reports a file that went bad.
  func syncQuietly() {
    state.withLock { state in
      guard state.descriptor >= 0 else { return }
      _ = fsync(state.descriptor)  // Best effort: nobody to report to during a detach.
    }
  }

  private func close() {
    state.withLock { state in
      guard state.descriptor >= 0 else { return }
      _ = fsync(state.descriptor)  // Best effort before closing; the file is already written.
      POSIX.closeDescriptor(state.descriptor)
      state.descriptor = -1
    }
  }
}
