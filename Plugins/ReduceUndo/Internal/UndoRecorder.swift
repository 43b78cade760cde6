import Reduce

/// The part of an ``UndoMiddleware`` that knows the tracked value's type: the commands and the
/// commit observer.
protocol UndoEngine<State>: AnyObject, Sendable {
  associatedtype State: Sendable
  /// Carries out an ``UndoAction``, or passes any other action on.
  func handle(_ action: any Action, context: MiddlewareContext<State>, next: Next<State>) throws
  /// Records the store's commits.
  var commitObserver: CommitObserver<State> { get }
}

/// Records the changes of one tracked substate and restores them: the thin typed layer over an
/// ``UndoLedger``.
///
/// It reads the tracked value, compares it with its type's `==`, and boxes it for the ledger,
/// which keeps the history; a command takes the boxed value back out and restores it with
/// `next(ReplaceState(...))`. The restore is marked in the ledger around that call, so the
/// commit it makes (synchronously, inside `next`) is not recorded as a step.
final class UndoRecorder<State: Sendable, Substate: Equatable & Sendable>: UndoEngine {
  let ledger: UndoLedger
  /// Reads the tracked substate from a state.
  let read: @Sendable (State) -> Substate
  /// Builds the state to restore: a state with the tracked part replaced.
  let embed: @Sendable (State, Substate) -> State

  /// Creates a recorder.
  ///
  /// - Parameters:
  ///   - name: The middleware's name, for errors.
  ///   - options: The limit and the option closures.
  ///   - read: Reads the tracked substate from a state.
  ///   - embed: Builds the state to restore: a state with the tracked part replaced.
  /// - Throws: ``UndoError/invalidLimit(_:)`` when the limit is below 1, and
  ///   ``UndoError/invalidGroupingWindow(_:)`` when `groupWithin` is not positive.
  init(
    name: String,
    options: UndoOptions,
    read: @escaping @Sendable (State) -> Substate,
    embed: @escaping @Sendable (State, Substate) -> State
  ) throws(UndoError) {
    self.ledger = try UndoLedger(
      name: name, options: options,
      isEqual: { lhs, rhs in
        guard let lhs = lhs as? Substate, let rhs = rhs as? Substate else { return false }
        return lhs == rhs
      })
    self.read = read
    self.embed = embed
  }

  /// Carries out an ``UndoAction``, or passes any other action on.
  ///
  /// A `Batch` that holds an ``UndoAction``, at any depth, is refused when it arrives, before
  /// any of its actions runs: a command does not compose with changes into one commit.
  ///
  /// - Throws: ``UndoError/commandInBatch`` for such a batch; the `DispatchError` of the rest
  ///   of the chain.
  func handle(_ action: any Action, context: MiddlewareContext<State>, next: Next<State>) throws {
    let actionType = type(of: action)
    if actionType == UndoAction.self, let command = action as? UndoAction {
      try perform(command, context: context, next: next)
      return
    }
    if actionType == Batch.self, let batch = action as? Batch, holdsCommand(batch) {
      throw UndoError.commandInBatch
    }
    try next(action)
  }

  /// The observer of the store's commits: it watches the tracked value and records each
  /// commit (``record(_:)``).
  var commitObserver: CommitObserver<State> {
    CommitObserver(watching: read) { [self] commit in record(commit) }
  }

  /// Hands a commit to the ledger: whether the tracked value changed, and the values to box
  /// when the ledger keeps them.
  ///
  /// - Parameter commit: The action, the tracked value before and after it, and the store.
  func record(_ commit: Commit<Substate>) {
    // Read once: each read of a field of the generic `Commit` looks up its metadata.
    let before = commit.before
    let after = commit.after
    ledger.record(
      commit.action, of: commit.store, changed: before != after, before: { before },
      after: { after })
  }
}

/// Whether a batch holds an ``UndoAction``, at any depth.
func holdsCommand(_ batch: Batch) -> Bool {
  batch.actions.contains { action in
    if action is UndoAction { return true }
    if let inner = action as? Batch { return holdsCommand(inner) }
    return false
  }
}
