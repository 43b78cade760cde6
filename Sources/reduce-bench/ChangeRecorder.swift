import Reduce

/// Records the last changes of one value of a store's state, with the action that made each.
///
/// The third-party recorder plugin of Guides/WritingMiddleware.md, built on the public API
/// alone. The `custom-recorder` workload measures it against the undo plugin.
final class ChangeRecorder<State: Sendable, Value: Equatable & Sendable>: Middleware {
  /// One recorded change.
  struct Entry: Sendable {
    let action: any Action
    let before: Value
    let after: Value
  }

  let name: String
  private let entries: Locked<[Entry]>
  /// Watches the value around each reduction; made once, in `init`, where the store's state
  /// type is known, so that it runs compiled for that type and costs no allocation per action.
  private let watcher: ReductionWatcher<State>

  init(
    name: String = "recorder", limit: Int = 100,
    watching value: @escaping @Sendable (State) -> Value
  ) {
    let entries = Locked<[Entry]>([])
    self.name = name
    self.entries = entries
    self.watcher = ReductionWatcher(watching: value) { reduction in
      guard reduction.before != reduction.after else { return }
      let entry = Entry(action: reduction.action, before: reduction.before, after: reduction.after)
      entries.withLock { list in
        if list.count == limit { list.removeFirst() }
        list.append(entry)
      }
    }
  }

  /// The changes recorded so far, oldest first.
  var recorded: [Entry] { entries.withLock { $0 } }

  func handle(_ action: any Action, context: MiddlewareContext<State>, next: Next<State>) throws {
    // A batch is one change: its own actions pass on unwatched.
    guard context.batch == nil else { return try next(action) }
    try next(action, watcher: watcher)
  }
}
