/// What an ``UndoMiddleware`` refuses, or reports on the store's `errors`.
public enum UndoError: Error, Equatable, Sendable {
  /// The `limit` given to the initialiser is below 1; a history keeps at least one step.
  case invalidLimit(Int)
  /// The middleware named `name` already serves a store: one instance serves one store.
  ///
  /// Thrown from ``UndoMiddleware/willAttach(to:)``; the store reports it as
  /// `RegistrationError.middlewareRefused`.
  case alreadyAttached(name: String)
  /// An ``UndoAction/endGroup`` arrived with no group open. It was ignored; this is reported on
  /// the store's `errors` as `DispatchError.middlewareFailed`.
  case unmatchedEndGroup
  /// A `Batch` contains an ``UndoAction``. Commands do not compose with changes in one atomic
  /// step, so the whole batch is rejected and nothing changes; dispatch the command on its own.
  case commandInBatch
}

extension UndoError: CustomStringConvertible {
  /// A sentence that says what is wrong and how to fix it.
  public var description: String {
    switch self {
    case .invalidLimit(let limit):
      "An undo limit of \(limit) keeps no step; pass a limit of 1 or more."
    case .alreadyAttached(let name):
      "The undo middleware '\(name)' already serves a store; create one UndoMiddleware per store."
    case .unmatchedEndGroup:
      "UndoAction.endGroup arrived with no group open and was ignored; pair every endGroup with a beginGroup."
    case .commandInBatch:
      "A Batch contains an UndoAction, so the batch was rejected; dispatch undo commands on their own."
    }
  }
}
