/// One committed change of a store's state, with the action that made it.
///
/// Delivered by ``Store/subscribeToChanges(_:)``: the store-level commit feed (RxState's state
/// with its last action, RxDataFlow's `setBy`).
public struct StateChange<State: Sendable>: Sendable {
  /// The action that made the change: the action as it reached the reducers (a `Batch` for a
  /// batch, a `ReplaceState` for a replacement).
  public let action: any Action
  /// The state before the action.
  public let oldState: State
  /// The state after the action.
  public let newState: State

  /// Creates a change record.
  ///
  /// - Parameters:
  ///   - action: The action that made the change.
  ///   - oldState: The state before the action.
  ///   - newState: The state after the action.
  public init(action: any Action, oldState: State, newState: State) {
    self.action = action
    self.oldState = oldState
    self.newState = newState
  }
}
