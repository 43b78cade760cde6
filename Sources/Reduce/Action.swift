/// A value that describes something that happened, dispatched to a ``Store`` to change its state.
///
/// Any `Sendable` type can be an action: an enum per feature is the usual shape. Plugins bring
/// their own action types, and mutators are typed on the action type they handle, so nothing
/// ever casts.
///
/// ```swift
/// enum CounterAction: Action {
///   case incremented(by: Int)
///   case reset
/// }
/// ```
public protocol Action: Sendable {}

extension Action {
  /// The type this action was dispatched (or passed on) as: the type a store plans the chain
  /// and routes the reducers by.
  ///
  /// For an action held as `any Action`, it is the type stored in the existential. That is the
  /// action's own type, except for an instance of a subclass dispatched as its superclass, where
  /// it is the superclass (`type(of:)` would give the subclass, and it asks the runtime). A
  /// middleware that matches actions by type, as the store does, compares this.
  ///
  /// ```swift
  /// if ObjectIdentifier(action.dispatchedType) == ObjectIdentifier(SearchAction.self) { ... }
  /// ```
  public var dispatchedType: any Action.Type { Self.self }
}

/// An action that applies several actions as one step: all or nothing.
///
/// The store reduces the actions in order on one working copy of the state. If any reducer
/// throws, none of the changes is kept. Observers are notified once, middleware sees the
/// `Batch` itself (one log entry, one undo step). Batches may be nested.
///
/// ```swift
/// try store.dispatch(Batch([TodoAction.added("Milk"), TodoAction.added("Eggs")])).get()
/// ```
public struct Batch: Action {
  /// The actions to apply, in order.
  public var actions: [any Action]

  /// Creates a batch of actions applied as one step.
  ///
  /// - Parameter actions: The actions, reduced in this order.
  public init(_ actions: [any Action]) {
    self.actions = actions
  }
}

/// An action that replaces the whole state of a store.
///
/// Undo, time travel and restoring a saved state use it, so that every change of state still
/// flows through `dispatch` and is seen by the middleware after the one that sent it. The store
/// applies it itself: no mutator handles it.
public struct ReplaceState<State: Sendable>: Action {
  /// The state the store holds after this action.
  public var state: State

  /// Creates an action that replaces the store's state.
  ///
  /// - Parameter state: The new state.
  public init(_ state: State) {
    self.state = state
  }
}
