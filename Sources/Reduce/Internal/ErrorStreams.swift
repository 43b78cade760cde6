/// The store's error sequences: each failure is published to every open one.
///
/// Not generic, and it knows nothing of the turn: a failure is published from the thread that
/// found it, holding the turn or not. Its own lock guards the continuations; they are yielded to
/// and finished after it is released.
final class ErrorStreams: Sendable {
  private struct Sinks {
    var continuations: [UInt64: AsyncStream<DispatchError>.Continuation] = [:]
    var lastID: UInt64 = 0
    var closed = false
  }

  private let sinks = Locked(Sinks())

  /// Gives a failure to every open sequence.
  func publish(_ failure: DispatchError) {
    for sink in sinks.withLock({ Array($0.continuations.values) }) { sink.yield(failure) }
  }

  /// A new sequence of the failures published from now on; after ``close()``, one that has
  /// already finished.
  func makeStream() -> AsyncStream<DispatchError> {
    let (stream, continuation) = AsyncStream.makeStream(
      of: DispatchError.self, bufferingPolicy: .bufferingNewest(ErrorSequence.bufferLimit))
    let id: UInt64? = sinks.withLock { sinks in
      guard !sinks.closed else { return nil }
      sinks.lastID += 1
      sinks.continuations[sinks.lastID] = continuation
      return sinks.lastID
    }
    guard let id else {
      continuation.finish()
      return stream
    }
    continuation.onTermination = { [weak self] _ in
      _ = self?.sinks.withLock { $0.continuations.removeValue(forKey: id) }
    }
    return stream
  }

  /// Finishes every open sequence; a sequence made later finishes at once.
  func close() {
    let open = sinks.withLock { sinks in
      sinks.closed = true
      defer { sinks.continuations = [:] }
      return Array(sinks.continuations.values)
    }
    for sink in open { sink.finish() }
  }
}
