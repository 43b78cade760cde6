public import Reduce

/// An action that cancels the async thunks in flight with a cancellation id, or all of them.
///
/// ``ThunkMiddleware`` handles it and passes it no further. Each cancelled thunk's task is
/// cancelled, every `perform` awaiting one of them throws `CancellationError` at once, and the
/// thunk's later dispatches are dropped.
///
/// ```swift
/// store.dispatch(CancelThunks(id: LoadID.todos))
/// ```
public struct CancelThunks: Action, CustomStringConvertible {
  /// The id of the thunks to cancel; nil cancels every async thunk in flight.
  let id: CancellationID?

  /// Creates an action that cancels the async thunks in flight with an id.
  ///
  /// - Parameter id: The id the thunks were built with (`Thunk(id:)`), compared with `==`.
  public init(id: some Hashable & Sendable) {
    self.id = CancellationID(id)
  }

  private init(all: Void) {
    id = nil
  }

  /// An action that cancels every async thunk in flight, whatever its id.
  public static var all: CancelThunks { CancelThunks(all: ()) }

  /// `CancelThunks(id: …)`, or `CancelThunks.all`.
  public var description: String {
    id.map { "CancelThunks(id: \($0))" } ?? "CancelThunks.all"
  }
}

extension CancelThunks: ThunkPluginAction {
  func handler<StoreState: Sendable>(in store: StoreState.Type) -> ThunkHandler<StoreState> {
    ThunkHandler { action, context, environment in
      // Handlers are kept by type: the action is always a `CancelThunks`.
      guard let cancel = action as? CancelThunks else { return }
      for run in environment.runtime.take(id: cancel.id, in: context.storeID) {
        run.cancel()
      }
    }
  }
}
