import Reduce

/// The caller's side of one `perform`: where the thunk's outcome is delivered, exactly once.
///
/// The outcome is the body's value or error, `CancellationError` (the thunk was cancelled, or the
/// caller was), or a ``ThunkError`` when no middleware ran the thunk. Whichever comes first wins.
final class ThunkCall<Value: Sendable>: Sendable {
  private struct Storage {
    /// Whether the outcome was delivered.
    var isFinished = false
    /// The outcome, until the caller takes it, and no longer: a failure may hold the thunk (a
    /// `DispatchError` holds its action), whose ticket holds this call.
    var result: Result<Value, any Error>?
    var continuation: CheckedContinuation<Value, any Error>?
    var isStarted = false
    var run: ThunkRun?
  }

  private let storage = Locked(Storage())

  /// Whether a middleware started the thunk.
  var isStarted: Bool { storage.withLock { $0.isStarted } }

  /// Marks the thunk started by a middleware.
  ///
  /// - Parameter run: The run of an async thunk, cancelled when the caller is.
  /// - Returns: False when the call already has an outcome (the caller was cancelled): the
  ///   middleware then does not run the body.
  func start(_ run: ThunkRun?) -> Bool {
    storage.withLock { storage in
      guard !storage.isFinished, !storage.isStarted else { return false }
      storage.isStarted = true
      storage.run = run
      return true
    }
  }

  /// Delivers the outcome, unless one was delivered before.
  func finish(_ result: Result<Value, any Error>) {
    let continuation = storage.withLock { storage in
      guard !storage.isFinished else { return CheckedContinuation<Value, any Error>?.none }
      storage.isFinished = true
      storage.run = nil
      defer { storage.continuation = nil }
      if storage.continuation == nil { storage.result = result }
      return storage.continuation
    }
    continuation?.resume(with: result)
  }

  /// Delivers an error unless a middleware started the thunk.
  func finishUnlessStarted(_ error: any Error) {
    let continuation = storage.withLock { storage in
      guard !storage.isFinished, !storage.isStarted else {
        return CheckedContinuation<Value, any Error>?.none
      }
      storage.isFinished = true
      defer { storage.continuation = nil }
      if storage.continuation == nil { storage.result = .failure(error) }
      return storage.continuation
    }
    continuation?.resume(throwing: error)
  }

  /// The caller was cancelled: delivers `CancellationError` and cancels the running thunk.
  func cancel() {
    let run = storage.withLock { $0.run }
    finish(.failure(CancellationError()))
    run?.cancel()
  }

  /// Waits for the outcome, once; the caller's cancellation ends the wait at once.
  func value() async throws -> Value {
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let result = storage.withLock { storage in
          guard storage.isFinished else {
            storage.continuation = continuation
            return Result<Value, any Error>?.none
          }
          defer { storage.result = nil }
          return storage.result
        }
        if let result { continuation.resume(with: result) }
      }
    } onCancel: {
      cancel()
    }
  }
}

/// Travels with a performed thunk; when every copy of the thunk is gone and no middleware started
/// it (a middleware before ``ThunkMiddleware`` dropped it), the waiting `perform` fails instead
/// of waiting forever.
final class PerformTicket<Value: Sendable>: Sendable {
  let call: ThunkCall<Value>

  init(_ call: ThunkCall<Value>) {
    self.call = call
  }

  deinit {
    call.finishUnlessStarted(ThunkError.dropped)
  }
}
