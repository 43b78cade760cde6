import Reduce
import Synchronization

/// Records the last changes of one value of a store's state, with the action that made each.
///
/// The third-party recorder plugin of Guides/WritingMiddleware.md, built on the public API
/// alone: a middleware whose commit observer watches one value. The `custom-recorder` workload
/// measures it against the undo plugin.
final class ChangeRecorder<State: Sendable, Value: Equatable & Sendable>: Middleware {
  /// One recorded change.
  struct Entry: Sendable {
    let action: any Action
    let before: Value
    let after: Value
  }

  let name: String
  private let entries = Mutex<[Entry]>([])
  private let limit: Int
  private let value: @Sendable (State) -> Value

  init(
    name: String = "recorder", limit: Int = 100,
    watching value: @escaping @Sendable (State) -> Value
  ) {
    self.name = name
    self.limit = limit
    self.value = value
  }

  /// The last `limit` changes recorded, oldest first.
  var recorded: [Entry] { entries.withLock { Array($0.suffix(limit)) } }

  var commitObserver: CommitObserver<State>? {
    CommitObserver(watching: value) { [self] commit in
      guard commit.before != commit.after else { return }
      let entry = Entry(action: commit.action, before: commit.before, after: commit.after)
      entries.withLock { list in
        // At twice the limit, the oldest half goes at once: a commit costs the same
        // whatever the limit (dropping one entry a commit moves all the others).
        if list.count == 2 * limit { list.removeFirst(limit) }
        list.append(entry)
      }
    }
  }
}
