extension Store {
  /// Observes the whole state.
  ///
  /// The observer is called at once with the current state (unless `initial` is false), then
  /// after every action that changed it (for a state that is not `Equatable`: every action that
  /// reached a handler). It is called in the store's turn, on the dispatching thread, before
  /// that action's `dispatch` returns, in dispatch order and in subscription order. It may
  /// dispatch: the action is queued behind the current one.
  ///
  /// > Note: For an `Equatable` state, the store keeps the last state it told the observers of,
  /// > to compare: a collection changed in place is then copied on its next change. Observe the
  /// > values you show (a key path, a selector) rather than the whole of a large state.
  ///
  /// - Parameters:
  ///   - initial: Whether to call the observer at once with the current state.
  ///   - observer: Called with the state.
  /// - Returns: The subscription; the observer is called until it is cancelled or deinitialised.
  public func subscribe(initial: Bool = true, _ observer: @escaping @Sendable (State) -> Void)
    -> Subscription
  {
    core.observe(
      { $0 }, isDuplicate: core.isEqual, range: nil, shareKey: WholeState(), initial: initial,
      observer)
  }

  /// Observes the value at a key path: called exactly when it changed, however the change was
  /// made (in place in a collection with spare capacity too).
  ///
  /// Subscribers of one key path share one read and one comparison per action, and an action
  /// whose mutators change other stored properties does not read it at all.
  ///
  /// - Parameters:
  ///   - keyPath: The value to observe.
  ///   - initial: Whether to call the observer at once with the current value.
  ///   - observer: Called with the value.
  /// - Returns: The subscription.
  public func subscribe<Value: Equatable & Sendable>(
    to keyPath: KeyPath<State, Value> & Sendable,
    initial: Bool = true,
    _ observer: @escaping @Sendable (Value) -> Void
  ) -> Subscription {
    core.observe(
      { $0[keyPath: keyPath] }, isDuplicate: { $0 == $1 }, range: byteRange(of: keyPath),
      shareKey: keyPath as AnyKeyPath, initial: initial, observer)
  }

  /// Observes a value derived from the state by a closure: called when the derived value
  /// changed.
  ///
  /// The closure runs after every action that changed the state; keep it cheap, or use a
  /// ``MemoizedSelector``.
  ///
  /// - Parameters:
  ///   - select: Derives the value.
  ///   - initial: Whether to call the observer at once with the current value.
  ///   - observer: Called with the value.
  /// - Returns: The subscription.
  public func subscribe<Value: Equatable & Sendable>(
    to select: @escaping @Sendable (State) -> Value,
    initial: Bool = true,
    _ observer: @escaping @Sendable (Value) -> Void
  ) -> Subscription {
    subscribe(to: select, by: ==, initial: initial, observer)
  }

  /// Observes a value derived from the state, telling changes by a closure of your own.
  ///
  /// - Parameters:
  ///   - select: Derives the value.
  ///   - isDuplicate: Whether two values are the same (no call).
  ///   - initial: Whether to call the observer at once with the current value.
  ///   - observer: Called with the value.
  /// - Returns: The subscription.
  public func subscribe<Value: Sendable>(
    to select: @escaping @Sendable (State) -> Value,
    by isDuplicate: @escaping @Sendable (Value, Value) -> Bool,
    initial: Bool = true,
    _ observer: @escaping @Sendable (Value) -> Void
  ) -> Subscription {
    core.observe(
      select, isDuplicate: isDuplicate, range: nil, shareKey: nil, initial: initial, observer)
  }

  /// Observes a memoized selector's value: called when it changed.
  ///
  /// Subscribers of one selector share one evaluation per action.
  ///
  /// - Parameters:
  ///   - selector: The selector.
  ///   - initial: Whether to call the observer at once with the current value.
  ///   - observer: Called with the value.
  /// - Returns: The subscription.
  public func subscribe<Value: Equatable & Sendable>(
    to selector: MemoizedSelector<State, Value>,
    initial: Bool = true,
    _ observer: @escaping @Sendable (Value) -> Void
  ) -> Subscription {
    core.observe(
      { selector($0) }, isDuplicate: { $0 == $1 }, range: nil,
      shareKey: ObjectIdentifier(selector), initial: initial, observer)
  }

  /// Observes a memoized selector whose value is not `Equatable`: called each time the
  /// selector computed a new value (its input changed).
  ///
  /// - Parameters:
  ///   - selector: The selector.
  ///   - initial: Whether to call the observer at once with the current value.
  ///   - observer: Called with the value.
  /// - Returns: The subscription.
  public func subscribe<Value: Sendable>(
    to selector: MemoizedSelector<State, Value>,
    initial: Bool = true,
    _ observer: @escaping @Sendable (Value) -> Void
  ) -> Subscription {
    core.observe(
      { selector.evaluate($0) }, isDuplicate: { $0.generation == $1.generation }, range: nil,
      shareKey: Generations(selector: ObjectIdentifier(selector)), initial: initial,
      { observer($0.value) })
  }

  /// The value of a memoized selector now.
  ///
  /// - Parameter selector: The selector.
  /// - Returns: Its value for the current state.
  public func select<Value: Sendable>(_ selector: MemoizedSelector<State, Value>) -> Value {
    selector(state)
  }

  /// Observes every change with the action that made it and the state before and after.
  ///
  /// Called for every action that changed the state (for a state that is not `Equatable`:
  /// every action that reached a handler, and every ``ReplaceState``), in the store's turn. The
  /// store keeps the state before each action while such an observer exists: a collection
  /// changed in place is then copied.
  ///
  /// - Parameter observer: Called with each change.
  /// - Returns: The subscription.
  public func subscribeToChanges(_ observer: @escaping @Sendable (StateChange<State>) -> Void)
    -> Subscription
  {
    core.observeChanges(observer)
  }

  /// The state now, then each distinct new state, as an async sequence.
  ///
  /// A slow consumer gets the newest state; older ones are dropped, and dispatch never waits
  /// for a consumer. The sequence ends when the store is deinitialised.
  public var states: StateSequence<State> {
    let core = core
    return StateSequence(isDuplicate: core.isEqual) { [weak core] continuation in
      core?.observe(
        { $0 }, isDuplicate: core?.isEqual, range: nil, shareKey: WholeState(), initial: true,
        finish: { continuation.finish() }, { continuation.yield($0) })
    }
  }

  /// The value at a key path now, then each distinct new value, as an async sequence.
  ///
  /// - Parameter keyPath: The value to observe.
  /// - Returns: The values; a slow consumer gets the newest.
  public func states<Value: Equatable & Sendable>(
    of keyPath: KeyPath<State, Value> & Sendable
  ) -> StateSequence<Value> {
    let range = byteRange(of: keyPath)
    let isDuplicate: @Sendable (Value, Value) -> Bool = { $0 == $1 }
    return StateSequence(isDuplicate: isDuplicate) { [weak core] continuation in
      core?.observe(
        { $0[keyPath: keyPath] }, isDuplicate: isDuplicate, range: range,
        shareKey: keyPath as AnyKeyPath, initial: true, finish: { continuation.finish() }
      ) { continuation.yield($0) }
    }
  }
}

/// The bytes of the state a key path's value lies in, when it is a path of stored properties:
/// an index of which observers an action may affect, never a way to read the state.
func byteRange<Root, Value>(of keyPath: KeyPath<Root, Value>) -> Range<Int>? {
  MemoryLayout<Root>.offset(of: keyPath).map { $0..<($0 + MemoryLayout<Value>.size) }
}

/// The share key of whole-state observers.
struct WholeState: Hashable {}

/// The share key of the observers of a memoized selector's generations.
struct Generations: Hashable {
  let selector: ObjectIdentifier
}
