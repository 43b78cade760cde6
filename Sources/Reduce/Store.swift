public import Observation

/// A predictable state container: one value of `State`, changed only by dispatching actions.
///
/// Dispatch runs an action through the middleware chain (outermost first) and then through the
/// reducers of the registered mutators, which are routed by action type. Observers see every
/// change, in order. A store is safe to use from any thread or task: dispatches are serialized
/// (one action at a time; those of one thread or task in the order it dispatched them), each runs
/// on its caller's thread with its caller's task-local values, and each caller gets back the
/// state its own action produced.
///
/// ```swift
/// let store = try Store(initialState: AppState(), mutators: [counter])
/// let state = try store.dispatch(CounterAction.incremented(by: 2)).get()
/// ```
public final class Store<State: Sendable>: Sendable, Observable {
  @usableFromInline let core: StoreCore<State>

  /// Creates a store.
  ///
  /// - Parameters:
  ///   - initialState: The state before any action.
  ///   - mutators: The reducers of the substates, checked as ``register(_:)`` checks them.
  ///   - middleware: The chain, outermost first; names must be unique.
  ///   - fallback: Turns a failure into an action dispatched right after it (RxDataFlow's
  ///     fallback action). A failing fallback action is published but not fallen back from.
  /// - Throws: The first ``RegistrationError`` of the mutators or middleware.
  @inlinable
  public init(
    initialState: State,
    mutators: [Mutator<State>] = [],
    middleware: [any Middleware<State>] = [],
    fallback: (@Sendable (DispatchError) -> (any Action)?)? = nil
  ) throws(RegistrationError) {
    // `Specialized()` here, where `State` is known: its closures run compiled for it.
    core = StoreCore(
      initialState: initialState, fallback: fallback, specialized: Specialized())
    core.store = self
    for mutator in mutators { try core.register(mutator) }
    for plugin in middleware { try core.use(plugin) }
  }

  deinit {
    core.close()
  }

  /// The current state.
  ///
  /// Reading it inside `withObservationTracking` (or a SwiftUI view) tracks it. While an action
  /// is reduced in place on another thread, the read waits for it to commit.
  public var state: State {
    core.registrar.access(self, keyPath: \.state)
    return core.readState(tracked: true)
  }

  // MARK: Mutators

  /// Registers a mutator that reduces one substate.
  ///
  /// The key must be new to this store and the substate must not overlap another mutator's;
  /// the store is unchanged when either is not so. Concurrent dispatches see the mutators
  /// either before or after the registration, never half.
  ///
  /// - Parameter mutator: The mutator to add.
  /// - Throws: The mutator's own problem (``RegistrationError/duplicateHandler(key:action:)``,
  ///   ``RegistrationError/substateMismatch(key:expected:found:)``,
  ///   ``RegistrationError/builtInAction(key:action:)``,
  ///   ``RegistrationError/keyRequired(path:)``), then
  ///   ``RegistrationError/duplicateKey(_:)``, then
  ///   ``RegistrationError/overlappingSubstate(key:existing:)``.
  public func register(_ mutator: Mutator<State>) throws(RegistrationError) {
    try core.register(mutator)
  }

  /// Removes the mutator with a key.
  ///
  /// - Parameter key: The mutator's key.
  /// - Returns: Whether a mutator with that key was registered.
  @discardableResult
  public func unregister(_ key: MutatorKey) -> Bool {
    core.unregister(key)
  }

  /// The keys of the registered mutators, in registration order.
  ///
  /// Reading them never waits for a dispatch in progress on another thread.
  public var mutatorKeys: [MutatorKey] { core.names.withLock { $0.mutatorKeys } }

  /// Checks that every top-level stored property of the state has a key-path mutator.
  ///
  /// A property is covered when it is the first component of some key-path mutator's path
  /// (`\.doc.title` covers `doc`), or of a path a lens mutator declares
  /// (`Lens(covering:get:set:)`). Zero-sized properties hold no state and need none. A lens
  /// built from closures without `covering:` covers nothing.
  ///
  /// - Throws: ``RegistrationError/missingMutators(_:)`` naming every uncovered property.
  public func validateCoverage() throws(RegistrationError) {
    let missing = core.withTurn { core.registry.uncoveredProperties(of: core.reducer.state) }
    if !missing.isEmpty { throw .missingMutators(missing) }
  }

  // MARK: Dispatching

  /// Dispatches an action through the middleware chain and the reducers.
  ///
  /// The call is synchronous. Actions dispatched from middleware or observers during it are
  /// queued and run before it returns, so the result includes them, and no action of another
  /// thread that this one did not queue. Called from inside a dispatch on the same thread, the
  /// action is queued instead and the result is the state at the time it was queued.
  ///
  /// - Parameter action: The action.
  /// - Returns: The state after the action and its follow-ups, or why the action failed.
  @inlinable @discardableResult
  public func dispatch(_ action: some Action) -> Result<State, DispatchError> {
    core.dispatch(.action(action, isFallback: false), returning: { $0 })
  }

  /// Dispatches actions one after another, each reduced and observed on its own.
  ///
  /// No action of another thread runs in between. Use ``Batch`` for all-or-nothing.
  ///
  /// - Parameter actions: The actions, in order.
  /// - Returns: The state after the last action, or the first failure (the actions after it are
  ///   not dispatched).
  @discardableResult
  public func dispatch(_ actions: [any Action]) -> Result<State, DispatchError> {
    core.dispatch(.sequence(actions), returning: { $0 })
  }

  /// Dispatches an action from a task: as ``dispatch(_:)-(Action)``, but a task that finds the
  /// store busy suspends instead of blocking its thread.
  ///
  /// The semantics are those of `dispatch`: a result that includes this action and what it
  /// queued, and no action of another caller. While another thread or task holds the store's
  /// turn, this task suspends until the turn is free, so thousands of tasks sending at once hold
  /// no thread of the cooperative pool while they wait. The action then runs in this task, on
  /// its thread, with its task-local values, as `dispatch` does.
  ///
  /// Cancellation does not stop a `send`: once called, the action is dispatched, and the result
  /// is returned. Check `Task.isCancelled` before sending if a cancelled task should not send.
  ///
  /// - Parameter action: The action.
  /// - Returns: The state after the action and its follow-ups, or why the action failed.
  @inlinable @discardableResult
  public func send(_ action: some Action) async -> Result<State, DispatchError> {
    await core.send(.action(action, isFallback: false), returning: { $0 })
  }

  /// Dispatches actions one after another from a task, each reduced and observed on its own,
  /// as ``dispatch(_:)-([Action])`` does; a task that finds the store busy suspends.
  ///
  /// - Parameter actions: The actions, in order.
  /// - Returns: The state after the last action, or the first failure (the actions after it are
  ///   not dispatched).
  @discardableResult
  public func send(_ actions: [any Action]) async -> Result<State, DispatchError> {
    await core.send(.sequence(actions), returning: { $0 })
  }

  /// Dispatches an action, and returns a value read from the state it produced: what a request
  /// handler on a server needs, without keeping the state.
  ///
  /// Order, follow-ups and failures are those of ``dispatch(_:)-(Action)``; `read` sees exactly
  /// the state that `dispatch` would return. It runs in the store's turn, right after the action
  /// and its follow-ups and before any other action, on the dispatching thread: keep it short,
  /// and do not read the store from it.
  ///
  /// Prefer it to `dispatch` where many threads or tasks dispatch at once and the state holds
  /// large copy-on-write values (dictionaries, arrays). A state returned by `dispatch` is a
  /// snapshot that shares its storage with the store's: as long as the caller holds it, the
  /// next action that changes such a value copies it whole (Guides/Performance.md has the
  /// figures of 8 threads on a ledger of 100,000 accounts).
  ///
  /// ```swift
  /// let balance = try store.dispatch(Withdraw(account: id, amount: 60)) { $0.balances[id] }.get()
  /// ```
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - read: Reads the value to return from the state after the action and its follow-ups.
  /// - Returns: The value read, or why the action failed.
  @inlinable @discardableResult
  public func dispatch<Value: Sendable>(
    _ action: some Action, returning read: @escaping @Sendable (State) -> Value
  ) -> Result<Value, DispatchError> {
    core.dispatch(.action(action, isFallback: false), returning: read)
  }

  /// Dispatches an action from a task, and returns a value read from the state it produced: as
  /// ``dispatch(_:returning:)``, but a task that finds the store busy suspends, as
  /// ``send(_:)-(Action)`` does.
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - read: Reads the value to return from the state after the action and its follow-ups.
  /// - Returns: The value read, or why the action failed.
  @inlinable @discardableResult
  public func send<Value: Sendable>(
    _ action: some Action, returning read: @escaping @Sendable (State) -> Value
  ) async -> Result<Value, DispatchError> {
    await core.send(.action(action, isFallback: false), returning: read)
  }

  /// Dispatches every action of an async sequence as it arrives.
  ///
  /// A failing action is published on ``errors`` and the next one is still dispatched.
  /// Cancelling the task stops it; so does the store's deinitialisation.
  ///
  /// - Parameter actions: The actions.
  /// - Returns: The task that dispatches them; it ends with the sequence or its error.
  @discardableResult
  public func dispatch<S: AsyncSequence & Sendable>(contentsOf actions: S) -> Task<Void, any Error>
  where S.Element: Action {
    dispatchEach(of: actions) { store, action in store.dispatch(action) }
  }

  /// Dispatches every action of an async sequence of existential actions as it arrives.
  ///
  /// - Parameter actions: The actions.
  /// - Returns: The task that dispatches them; it ends with the sequence or its error.
  @discardableResult
  public func dispatch<S: AsyncSequence & Sendable>(contentsOf actions: S) -> Task<Void, any Error>
  where S.Element == any Action {
    dispatchEach(of: actions) { (store: Store, action: any Action) in store.dispatch(action) }
  }

  /// Dispatches each element of a sequence as it arrives, in a task that holds the store weakly
  /// and stops when cancelled or when the store is gone.
  private func dispatchEach<S: AsyncSequence & Sendable>(
    of actions: S, _ send: @escaping @Sendable (Store, S.Element) -> Void
  ) -> Task<Void, any Error> {
    Task { [weak self] in
      for try await action in actions {
        try Task.checkCancellation()
        guard let self else { return }
        send(self, action)
      }
    }
  }

  /// The failures of every dispatch from now on: see ``ErrorSequence``.
  public var errors: ErrorSequence {
    ErrorSequence { [weak core] in
      core?.errors.makeStream() ?? AsyncStream { $0.finish() }
    }
  }

  // MARK: Middleware

  /// Appends a middleware to the chain, innermost (right before the reducers).
  ///
  /// A dispatch in progress finishes with the chain it started with.
  ///
  /// - Parameter middleware: The middleware.
  /// - Throws: ``RegistrationError/duplicateMiddleware(_:)`` when the name is taken,
  ///   ``RegistrationError/middlewareRefused(name:reason:)`` when it refuses to join.
  public func use(_ middleware: any Middleware<State>) throws(RegistrationError) {
    try core.use(middleware)
  }

  /// Removes the middleware with a name from the chain.
  ///
  /// - Parameter name: The middleware's name.
  /// - Returns: Whether it was in the chain.
  @discardableResult
  public func removeMiddleware(named name: String) -> Bool {
    core.removeMiddleware(named: name)
  }

  /// The names of the middleware in the chain, outermost first.
  ///
  /// Reading them never waits for a dispatch in progress on another thread.
  public var middlewareNames: [String] { core.names.withLock { $0.middlewareNames } }
}
