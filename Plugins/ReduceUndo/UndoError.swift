/// What an ``UndoMiddleware`` refuses, or reports on the store's `errors`.
public enum UndoError: Error, Equatable, Sendable {
  /// The `limit` given to the initialiser is below 1; a history keeps at least one step.
  case invalidLimit(Int)
  /// The `groupWithin` window given to the initialiser is not positive.
  case invalidGroupingWindow(Duration)
  /// The middleware named `name` already serves a store: one instance serves one store.
  ///
  /// Thrown from ``UndoMiddleware/willAttach(to:)``; the store reports it as
  /// `RegistrationError.middlewareRefused`.
  case alreadyAttached(name: String)
  /// An ``UndoAction/endGroup`` arrived with no group open. It was ignored; this is reported on
  /// the store's `errors` as `DispatchError.middlewareFailed`.
  case unmatchedEndGroup
  /// A `Batch` contains an ``UndoAction``, at any depth. Commands do not compose with changes
  /// into one commit, so the whole batch is rejected when the middleware meets it, before any of
  /// its actions runs, and nothing changes; dispatch the command on its own. This holds for
  /// `beginGroup` and `endGroup` too: a batch is one step already; to group several dispatches,
  /// dispatch `beginGroup` before them and `endGroup` after them.
  case commandInBatch
}

extension UndoError: CustomStringConvertible {
  /// A sentence that says what is wrong and how to fix it.
  public var description: String {
    switch self {
    case .invalidLimit(let limit):
      "An undo limit of \(limit) keeps no step; pass a limit of 1 or more."
    case .invalidGroupingWindow(let window):
      "An undo groupWithin window of \(window) groups nothing; pass a positive duration."
    case .alreadyAttached(let name):
      "The undo middleware '\(name)' already serves a store; create one UndoMiddleware per store."
    case .unmatchedEndGroup:
      "UndoAction.endGroup arrived with no group open and was ignored; pair every endGroup with a beginGroup."
    case .commandInBatch:
      "A Batch contains an UndoAction, so the batch was rejected; dispatch undo commands on their own."
    }
  }
}
