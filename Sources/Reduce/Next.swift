/// Passes an action on to the rest of a store's chain and then the reducers.
///
/// Call it during `handle`, or keep it and call it later (from a task or a timer): the rest of
/// the chain and the reducers then run as a dispatch of their own, serialized with every other
/// dispatch, with the chain the original dispatch started with. A `next` kept after its store
/// is deinitialised delivers nothing. It does not keep its store alive.
public struct Next<State: Sendable>: Sendable {
  /// The store's engine, which lets go of the chain, the mutators and the observers when the
  /// store is deinitialised: a kept `next` keeps only the state the store ended with.
  let core: StoreCore<State>
  /// The middleware that handles what this `next` passes on; nil: the reducers.
  let node: ChainNode<State>?
  /// The dispatch this `next` was given in.
  let dispatch: UInt64

  @usableFromInline
  init(core: StoreCore<State>, node: ChainNode<State>?, dispatch: UInt64) {
    self.core = core
    self.node = node
    self.dispatch = dispatch
  }

  /// Passes an action on.
  ///
  /// - Parameter action: The action for the rest of the chain: the one handled, or another.
  /// - Throws: The ``DispatchError`` of the rest of the chain or of the reducers. A call made
  ///   after its dispatch ended runs as a dispatch of its own: its failure is also published on
  ///   ``Store/errors`` and given to the fallback.
  public func callAsFunction(_ action: some Action) throws(DispatchError) {
    try callAsFunction(action as any Action)
  }

  /// Passes on an action known as `any Action`, such as the one `handle` was given.
  ///
  /// - Parameter action: The action for the rest of the chain: the one handled, or another.
  /// - Throws: The ``DispatchError`` of the rest of the chain or of the reducers.
  public func callAsFunction(_ action: any Action) throws(DispatchError) {
    try core.specialized.pass(core, action, node, dispatch)
  }
}

/// What a middleware can do with its store besides passing the action on.
///
/// A context may be kept (by a task the middleware starts, say). It does not keep its store
/// alive: once the store is deinitialised, a kept context reads the state the store ended with,
/// and its dispatches and reports do nothing.
public struct MiddlewareContext<State: Sendable>: Sendable {
  /// The store's engine: see ``Next``.
  let core: StoreCore<State>
  /// The action being handled.
  public let action: any Action
  /// The name of the middleware this context was given to.
  public let middlewareName: String

  @usableFromInline
  init(core: StoreCore<State>, action: any Action, middlewareName: String) {
    self.core = core
    self.action = action
    self.middlewareName = middlewareName
  }

  /// The identity of the store this context belongs to, as given to
  /// ``Middleware/willAttach(to:)`` and ``Middleware/didDetach(from:)``.
  public var storeID: ObjectIdentifier { core.storeID }

  /// The store's current state.
  ///
  /// During `handle` it is the state before the action, or after it once `next` returned. For
  /// an action of a ``Batch``, it includes the changes of the batch's actions before it, which
  /// are not committed yet. Once the store is gone, it is the state the store ended with.
  public var state: State {
    core.readState()
  }

  /// Dispatches an action from the top of the chain.
  ///
  /// From inside a dispatch (during `handle`, or an observer) the action is queued and runs
  /// right after the current one; the result is then the state at the time it was queued, and
  /// its own failure goes to ``Store/errors`` and the fallback. Once the store is gone, nothing
  /// is dispatched and the result is the state the store ended with.
  ///
  /// - Parameter action: The action to dispatch.
  /// - Returns: The state after the action, or why it failed.
  @discardableResult
  public func dispatch(_ action: some Action) -> Result<State, DispatchError> {
    core.specialized.dispatch(core, .action(action, isFallback: false))
  }

  /// Dispatches actions one after another from the top of the chain.
  ///
  /// - Parameter actions: The actions, in order.
  /// - Returns: The state after the last action, or the first failure.
  @discardableResult
  public func dispatch(_ actions: [any Action]) -> Result<State, DispatchError> {
    core.specialized.dispatch(core, .sequence(actions))
  }

  /// Dispatches actions one after another from the top of the chain, unless `refusal` gives a
  /// reason not to once this dispatch's turn has come: then none of them runs, and that error
  /// is returned without being published.
  ///
  /// The thunk plugin uses it to drop the dispatches of a thunk cancelled while they waited.
  ///
  /// - Parameters:
  ///   - actions: The actions, in order.
  ///   - refusal: Asked once, holding the turn; it must not dispatch.
  /// - Returns: The state after the last action, the first failure, or the refusal.
  @discardableResult
  public func dispatch(_ actions: [any Action], unless refusal: () -> DispatchError?)
    -> Result<State, DispatchError>
  {
    core.dispatch(actions, unless: refusal)
  }

  /// Publishes an error found after the action was handled (an async task failed).
  ///
  /// The error reaches ``Store/errors`` as
  /// ``DispatchError/middlewareFailed(name:action:underlying:)`` for this context's action, and
  /// the store's fallback.
  ///
  /// - Parameter error: What went wrong.
  public func report(_ error: any Error) {
    report(error, for: action)
  }

  /// Publishes an error found while working on another action than this context's.
  ///
  /// - Parameters:
  ///   - error: What went wrong.
  ///   - action: The action the error belongs to.
  public func report(_ error: any Error, for action: any Action) {
    core.report(.middlewareFailed(name: middlewareName, action: action, underlying: error))
  }
}
