import Reduce

/// An action that reached the reducers of a test store, with the state before and after it.
struct ReducedAction<State: Sendable>: Sendable {
  let action: any Action
  let before: State
  let after: State
}

/// The envelope a test store dispatches, so that its outermost middleware can tell the sent
/// action from actions dispatched by other code.
struct SentAction: Action {
  let action: any Action
}

/// What a test store has seen, shared by its two middleware and the store itself.
final class TestStoreLog<State: Sendable>: Sendable {
  private struct Contents: Sendable {
    /// Whether the action sent by `send` is on its way through the chain.
    var isSending = false
    /// The state when the sent action entered the chain.
    var sentBefore: State?
    /// What the sent action did, in order (more than one if a middleware passed on several).
    var sent: [ReducedAction<State>] = []
    /// Actions that reached the reducers without being sent, not yet asserted, oldest first.
    var received: [ReducedAction<State>] = []
    var waiter: (id: UInt64, continuation: CheckedContinuation<Bool, Never>)?
    var lastWaiterID: UInt64 = 0
  }

  private let contents = Locked(Contents())

  // MARK: Recording

  func beginSend(before: State) {
    contents.withLock {
      $0.isSending = true
      $0.sentBefore = before
      $0.sent = []
    }
  }

  func endSend() {
    contents.withLock { $0.isSending = false }
  }

  /// Takes what the sent action did: the state before it, and its reductions.
  func takeSent() -> (before: State?, reduced: [ReducedAction<State>]) {
    contents.withLock { contents in
      defer {
        contents.sentBefore = nil
        contents.sent = []
      }
      return (contents.sentBefore, contents.sent)
    }
  }

  /// Records an action that reached the reducers; wakes a `receive` waiting for one.
  func record(_ reduced: ReducedAction<State>) {
    let waiter: CheckedContinuation<Bool, Never>? = contents.withLock { contents in
      if contents.isSending {
        contents.sent.append(reduced)
        return nil
      }
      contents.received.append(reduced)
      defer { contents.waiter = nil }
      return contents.waiter?.continuation
    }
    waiter?.resume(returning: true)
  }

  // MARK: Received actions

  var received: [ReducedAction<State>] {
    contents.withLock { $0.received }
  }

  func takeReceived() -> [ReducedAction<State>] {
    contents.withLock { contents in
      defer { contents.received = [] }
      return contents.received
    }
  }

  func takeFirstReceived() -> ReducedAction<State>? {
    contents.withLock { $0.received.isEmpty ? nil : $0.received.removeFirst() }
  }

  /// Waits until an action is received, or the timeout passes.
  ///
  /// - Returns: Whether an action is there to take.
  func waitForReceived(timeout: Duration) async -> Bool {
    let id = contents.withLock {
      $0.lastWaiterID &+= 1
      return $0.lastWaiterID
    }
    let timer = Task {
      do {
        try await ContinuousClock().sleep(for: timeout)
      } catch {
        return  // Cancelled: an action arrived first.
      }
      self.expireWaiter(id)
    }
    defer { timer.cancel() }
    return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
      let hasReceived = contents.withLock {
        if !$0.received.isEmpty { return true }
        $0.waiter = (id, continuation)
        return false
      }
      if hasReceived { continuation.resume(returning: true) }
    }
  }

  private func expireWaiter(_ id: UInt64) {
    let waiter: CheckedContinuation<Bool, Never>? = contents.withLock {
      guard let waiter = $0.waiter, waiter.id == id else { return nil }
      $0.waiter = nil
      return waiter.continuation
    }
    waiter?.resume(returning: false)
  }
}

/// The outermost middleware of a test store: marks the sent action while it runs through the
/// chain.
struct SendMarker<State: Sendable>: Middleware {
  let name = "ReduceTesting.TestStore.send"
  let log: TestStoreLog<State>

  func handle(_ action: any Action, context: MiddlewareContext<State>, next: Next<State>) throws {
    guard let sent = action as? SentAction else {
      try next(action)
      return
    }
    log.beginSend(before: context.state)
    defer { log.endSend() }
    try next(sent.action)
  }
}

/// The innermost middleware of a test store: records every action that reaches the reducers,
/// with the state before and after it.
struct ReductionRecorder<State: Sendable>: Middleware {
  let name = "ReduceTesting.TestStore.record"
  let log: TestStoreLog<State>

  func handle(_ action: any Action, context: MiddlewareContext<State>, next: Next<State>) throws {
    let before = context.state
    defer { log.record(ReducedAction(action: action, before: before, after: context.state)) }
    try next(action)
  }
}
