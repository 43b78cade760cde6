public import Observation

/// A store-like view of one part of a store's state, for a child feature.
///
/// It reads and observes only its substate, and dispatches into the store it was scoped from.
/// A child feature's code and tests take a `ScopedStore<Child>` and never see the app's state:
///
/// ```swift
/// func showProfile(_ profile: ScopedStore<Profile>) -> Subscription {
///   profile.dispatch(ProfileAction.appeared)
///   return profile.subscribe(to: \.name) { name in print("name:", name) }
/// }
/// showProfile(store.scope(\.profile))
/// ```
///
/// Observers of a scope are called only when its substate changed: by `==` for an `Equatable`
/// substate. A scope made of stored-property key paths costs nothing for the actions whose
/// mutators do not touch its bytes, and every observer of one scoped path shares one
/// comparison. `ScopedStore` conforms to `Observable`: reading ``state`` inside
/// `withObservationTracking` (or a SwiftUI view) tracks the substate alone.
public final class ScopedStore<State: Sendable>: Sendable, Observable {
  let engine: any ScopeEngine<State>
  private let registrar = ObservationRegistrar()
  /// Tells Observation of the substate's changes, from the first read of ``state`` on.
  private let tracking = Locked<Subscription?>(nil)

  init(engine: any ScopeEngine<State>) {
    self.engine = engine
  }

  /// Scopes a whole store: for a child feature's tests, which build a store of the child's
  /// state and hand the feature its scope.
  ///
  /// - Parameter store: The store.
  public convenience init(_ store: Store<State>) {
    let isDuplicate = equality(of: State.self)
    self.init(
      engine: RootScope(
        store: store, path: \State.self, derive: { $0 }, isDuplicate: isDuplicate))
  }

  /// The substate now.
  ///
  /// Reading it inside `withObservationTracking` (or a SwiftUI view) tracks it: trackers are
  /// told when the substate changed (for a substate that is not `Equatable`, after every
  /// action that may have changed it).
  public var state: State {
    startTracking()
    registrar.access(self, keyPath: \.state)
    return engine.current
  }

  private func startTracking() {
    guard tracking.withLock({ $0 == nil }) else { return }
    let subscription = engine.subscribe(initial: false, finish: nil) { [weak self] _ in
      guard let self else { return }
      self.registrar.withMutation(of: self, keyPath: \.state) {}
    }
    let extra = tracking.withLock { current -> Subscription? in
      guard current == nil else { return subscription }
      current = subscription
      return nil
    }
    extra?.cancel()
  }

  // MARK: Dispatching

  /// Dispatches an action into the store this scope was made from.
  ///
  /// - Parameter action: The action.
  /// - Returns: The substate after the action and its follow-ups, or why the action failed.
  @discardableResult
  public func dispatch(_ action: some Action) -> Result<State, DispatchError> {
    engine.dispatch(action)
  }

  /// Dispatches actions one after another into the store this scope was made from.
  ///
  /// - Parameter actions: The actions, in order.
  /// - Returns: The substate after the last action, or the first failure.
  @discardableResult
  public func dispatch(_ actions: [any Action]) -> Result<State, DispatchError> {
    engine.dispatch(actions)
  }

  /// Dispatches an action from a task, suspending instead of blocking while the store is busy.
  ///
  /// - Parameter action: The action.
  /// - Returns: The substate after the action and its follow-ups, or why the action failed.
  @discardableResult
  public func send(_ action: some Action) async -> Result<State, DispatchError> {
    await engine.send(action)
  }

  // MARK: Observing

  /// Observes the substate.
  ///
  /// - Parameters:
  ///   - initial: Whether the observer is called at once with the current substate.
  ///   - observer: Called with the substate, then after every action that changed it.
  /// - Returns: The subscription; the observer stops when it is cancelled or deinitialised.
  public func subscribe(initial: Bool = true, _ observer: @escaping @Sendable (State) -> Void)
    -> Subscription
  {
    engine.subscribe(initial: initial, finish: nil, observer)
  }

  /// Observes one value of the substate.
  ///
  /// - Parameters:
  ///   - keyPath: The value's path in the substate.
  ///   - initial: Whether the observer is called at once with the current value.
  ///   - observer: Called with each new value.
  /// - Returns: The subscription; the observer stops when it is cancelled or deinitialised.
  public func subscribe<Value: Equatable & Sendable>(
    to keyPath: KeyPath<State, Value> & Sendable,
    initial: Bool = true,
    _ observer: @escaping @Sendable (Value) -> Void
  ) -> Subscription {
    engine.subscribe(to: keyPath, initial: initial, finish: nil, observer)
  }

  /// Observes a value derived from the substate, called when it changed by `==`.
  ///
  /// - Parameters:
  ///   - select: Derives the value from the substate.
  ///   - initial: Whether the observer is called at once with the current value.
  ///   - observer: Called with each new value.
  /// - Returns: The subscription; the observer stops when it is cancelled or deinitialised.
  public func subscribe<Value: Equatable & Sendable>(
    to select: @escaping @Sendable (State) -> Value,
    initial: Bool = true,
    _ observer: @escaping @Sendable (Value) -> Void
  ) -> Subscription {
    engine.subscribe(selecting: select, by: ==, initial: initial, observer)
  }

  /// Observes a value derived from the substate, called when it changed by your comparison.
  ///
  /// - Parameters:
  ///   - select: Derives the value from the substate.
  ///   - isDuplicate: Whether a new value is the same as the last one (no call).
  ///   - initial: Whether the observer is called at once with the current value.
  ///   - observer: Called with each new value.
  /// - Returns: The subscription; the observer stops when it is cancelled or deinitialised.
  public func subscribe<Value: Sendable>(
    to select: @escaping @Sendable (State) -> Value,
    by isDuplicate: @escaping @Sendable (Value, Value) -> Bool,
    initial: Bool = true,
    _ observer: @escaping @Sendable (Value) -> Void
  ) -> Subscription {
    engine.subscribe(selecting: select, by: isDuplicate, initial: initial, observer)
  }

  /// The substate as an async sequence: the current substate, then each new one.
  ///
  /// A slow consumer gets the newest value. The sequence ends when the root store is
  /// deinitialised, or when the iterating task is cancelled.
  public var states: StateSequence<State> {
    let engine = engine
    return StateSequence(isDuplicate: equality(of: State.self)) {
      let (stream, continuation) = AsyncStream.makeStream(
        of: State.self, bufferingPolicy: .bufferingNewest(1))
      let subscription = engine.subscribe(initial: true, finish: { continuation.finish() }) {
        continuation.yield($0)
      }
      continuation.onTermination = { _ in subscription.cancel() }
      return stream
    }
  }

  /// One value of the substate as an async sequence: the current value, then each new one.
  ///
  /// - Parameter keyPath: The value's path in the substate.
  /// - Returns: The sequence.
  public func states<Value: Equatable & Sendable>(
    of keyPath: KeyPath<State, Value> & Sendable
  ) -> StateSequence<Value> {
    let engine = engine
    let isDuplicate: @Sendable (Value, Value) -> Bool = { $0 == $1 }
    return StateSequence(isDuplicate: isDuplicate) {
      let (stream, continuation) = AsyncStream.makeStream(
        of: Value.self, bufferingPolicy: .bufferingNewest(1))
      let subscription = engine.subscribe(
        to: keyPath, initial: true, finish: { continuation.finish() },
        { continuation.yield($0) })
      continuation.onTermination = { _ in subscription.cancel() }
      return stream
    }
  }

  // MARK: Scoping further

  /// A scope of a part of this substate.
  ///
  /// - Parameter keyPath: The part's path in this substate.
  /// - Returns: The scoped store.
  public func scope<Child: Sendable>(_ keyPath: KeyPath<State, Child> & Sendable)
    -> ScopedStore<Child>
  {
    ScopedStore<Child>(
      engine: engine.scope(keyPath, isDuplicate: equality(of: Child.self)))
  }

  /// A read-only scope of a value derived from this substate.
  ///
  /// - Parameter derive: Derives the child's state from this substate; it runs after every
  ///   action that may have changed this substate, and must not read the store.
  /// - Returns: The scoped store.
  public func scope<Child: Sendable>(_ derive: @escaping @Sendable (State) -> Child)
    -> ScopedStore<Child>
  {
    ScopedStore<Child>(
      engine: engine.scope(deriving: derive, isDuplicate: equality(of: Child.self)))
  }
}

extension Store {
  /// A scope of one part of the state, for a child feature: it reads and observes only that
  /// part, and dispatches into this store.
  ///
  /// - Parameter keyPath: The part's path.
  /// - Returns: The scoped store.
  public func scope<Child: Sendable>(_ keyPath: KeyPath<State, Child> & Sendable)
    -> ScopedStore<Child>
  {
    ScopedStore(
      engine: RootScope(
        store: self, path: keyPath, derive: { $0[keyPath: keyPath] },
        isDuplicate: equality(of: Child.self)))
  }

  /// A read-only scope of a value derived from the state.
  ///
  /// - Parameter derive: Derives the child's state; it runs after every action that reached a
  ///   handler, and must not read the store.
  /// - Returns: The scoped store.
  public func scope<Child: Sendable>(_ derive: @escaping @Sendable (State) -> Child)
    -> ScopedStore<Child>
  {
    ScopedStore(
      engine: RootScope(
        store: self, path: nil, derive: derive, isDuplicate: equality(of: Child.self)))
  }
}

/// `==` of a type, when it is `Equatable`; nil otherwise.
func equality<Value>(of type: Value.Type) -> (@Sendable (Value, Value) -> Bool)? {
  guard let equatable = type as? any (Equatable & Sendable).Type else { return nil }
  func make<E: Equatable & Sendable>(_ type: E.Type) -> @Sendable (Value, Value) -> Bool {
    // `Value` is `E` (the dynamic cast of `Value.self` above found it): each value is read as
    // its own type, without a dynamic cast per comparison.
    { lhs, rhs in unsafeBitCast(lhs, to: E.self) == unsafeBitCast(rhs, to: E.self) }
  }
  return make(equatable)
}
