import Reduce

/// Marks a dispatch made by an async thunk, so that ``ThunkMiddleware`` can drop it, while it holds
/// the store's dispatch turn, when the thunk was cancelled in the meantime.
///
/// The store runs a dispatch from a task on that task's thread, so the task-local value is seen
/// by the middleware during that dispatch. Only the first action to reach the middleware in the
/// probe's scope is checked: later ones are follow-ups queued by observers and middleware.
final class DispatchProbe: Sendable {
  @TaskLocal static var current: DispatchProbe?

  private let run: ThunkRun
  private let state = Locked((isClaimed: false, isDropped: false))

  init(run: ThunkRun) {
    self.run = run
  }

  /// Whether the middleware dropped the dispatched action.
  var isDropped: Bool { state.withLock { $0.isDropped } }

  /// Claims the probe for the action reaching the middleware; returns whether to drop it.
  func claim() -> Bool {
    let cancelled = run.isCancelled
    return state.withLock { state in
      guard !state.isClaimed else { return false }
      state.isClaimed = true
      state.isDropped = cancelled
      return cancelled
    }
  }
}
