import Reduce

/// A sink that writes each entry, followed by a newline, to a file descriptor: standard output,
/// standard error, a pipe or a socket.
///
/// Writes go straight to the descriptor, unbuffered, one entry at a time (entries from
/// several threads never interleave). If the descriptor does not accept the entry within
/// ``writeTimeout`` (a pipe nobody reads), the rest of the entry is dropped and
/// ``LogSinkError/writeTimedOut(fileDescriptor:)`` is thrown, so that logging never blocks a
/// dispatch forever.
public struct StreamLogSink: LogSink {
  /// The descriptor written to.
  public let fileDescriptor: Int32
  /// How long one entry may wait for the descriptor to accept it.
  public let writeTimeout: Duration
  private let lock: SinkLock

  static let sharedStandardOutput = StreamLogSink(fileDescriptor: 1)
  static let sharedStandardError = StreamLogSink(fileDescriptor: 2)

  /// Creates a sink that writes to a file descriptor it does not own (it never closes it).
  ///
  /// - Parameters:
  ///   - fileDescriptor: An open descriptor, such as 1 for standard output.
  ///   - writeTimeout: How long one entry may wait for the descriptor to accept it.
  public init(fileDescriptor: Int32, writeTimeout: Duration = .seconds(2)) {
    self.fileDescriptor = fileDescriptor
    self.writeTimeout = writeTimeout
    self.lock = SinkLock()
  }

  /// Writes the record's text and a newline.
  ///
  /// - Parameter record: The entry.
  /// - Throws: ``LogSinkError/writeTimedOut(fileDescriptor:)`` or
  ///   ``LogSinkError/streamWriteFailed(fileDescriptor:reason:)``.
  public func write(_ record: LogRecord) throws {
    let bytes = Array((record.text + "\n").utf8)
    let descriptor = fileDescriptor
    let deadline = ContinuousClock.now + writeTimeout
    try lock.mutex.withLock { _ throws(LogSinkError) in
      var offset = 0
      while offset < bytes.count {
        let remaining = ContinuousClock.now.duration(to: deadline)
        let milliseconds = Int32(
          clamping: max(
            0,
            remaining.components.seconds * 1000
              + remaining.components.attoseconds / 1_000_000_000_000_000))
        switch POSIX.waitWritable(descriptor, milliseconds: milliseconds) {
        case .failure(let error):
          throw .streamWriteFailed(fileDescriptor: descriptor, reason: error.reason)
        case .success(false):
          throw .writeTimedOut(fileDescriptor: descriptor)
        case .success(true):
          let end = min(bytes.count, offset + POSIX.atomicPipeWrite)
          if let failure = POSIX.writeAll(descriptor, Array(bytes[offset..<end])) {
            throw .streamWriteFailed(fileDescriptor: descriptor, reason: failure)
          }
          offset = end
        }
      }
    }
  }
}

extension LogSink where Self == StreamLogSink {
  /// The process's standard output (file descriptor 1).
  public static var standardOutput: StreamLogSink { .sharedStandardOutput }

  /// The process's standard error (file descriptor 2).
  public static var standardError: StreamLogSink { .sharedStandardError }
}

/// A lock shared by the copies of a sink.
final class SinkLock: Sendable {
  let mutex = Locked(())
}
