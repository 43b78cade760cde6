extension Store {
  /// Observes the whole state.
  ///
  /// The observer is called at once with the current state, then after every action that
  /// changed it (for a state that is not `Equatable`: every action that reached a handler),
  /// synchronously on the thread that holds the store's turn (the dispatching thread, or under
  /// contention the thread that carried the action out) before that action's dispatch returns,
  /// in dispatch order and subscription order.
  ///
  /// - Parameters:
  ///   - initial: Whether the observer is called at once with the current state; false: only
  ///     after changes.
  ///   - observer: Called with each state.
  /// - Returns: The subscription; the observer stops when it is cancelled or deinitialised.
  public func subscribe(initial: Bool = true, _ observer: @escaping @Sendable (State) -> Void)
    -> Subscription
  {
    core.subscribe(initial: initial, observer)
  }

  /// Observes one value of the state.
  ///
  /// The observer is called at once with the current value, then whenever the value changed.
  /// Observers of values that did not change cost one comparison per key path, however many
  /// there are.
  ///
  /// - Parameters:
  ///   - keyPath: The value's path.
  ///   - initial: Whether the observer is called at once with the current value; false: only
  ///     after changes.
  ///   - observer: Called with each new value.
  /// - Returns: The subscription; the observer stops when it is cancelled or deinitialised.
  public func subscribe<Value: Equatable & Sendable>(
    to keyPath: KeyPath<State, Value> & Sendable,
    initial: Bool = true,
    _ observer: @escaping @Sendable (Value) -> Void
  ) -> Subscription {
    core.subscribe(to: keyPath, initial: initial, observer)
  }

  /// Observes every change with the action that made it and the states before and after.
  ///
  /// Called after every action that changed the state (for a state that is not `Equatable`:
  /// every action that reached a handler, and every ``ReplaceState``); not at once.
  ///
  /// - Parameter observer: Called with each change.
  /// - Returns: The subscription; the observer stops when it is cancelled or deinitialised.
  public func subscribeToChanges(_ observer: @escaping @Sendable (StateChange<State>) -> Void)
    -> Subscription
  {
    core.subscribeToChanges(observer)
  }

  /// The state as an async sequence: the current state, then each new distinct state.
  public var states: StateSequence<State> {
    StateSequence(isDuplicate: core.isEqual) { [weak core] in
      guard let core else { return AsyncStream { $0.finish() } }
      let (stream, continuation) = AsyncStream.makeStream(
        of: State.self, bufferingPolicy: .bufferingNewest(1))
      let subscription = core.subscribe(
        { continuation.yield($0) }, finish: { continuation.finish() })
      continuation.onTermination = { _ in subscription.cancel() }
      return stream
    }
  }

  /// One value of the state as an async sequence: the current value, then each new distinct one.
  ///
  /// - Parameter keyPath: The value's path.
  /// - Returns: The sequence.
  public func states<Value: Equatable & Sendable>(
    of keyPath: KeyPath<State, Value> & Sendable
  ) -> StateSequence<Value> {
    let isDuplicate: @Sendable (Value, Value) -> Bool = { $0 == $1 }
    return StateSequence(isDuplicate: isDuplicate) { [weak core] in
      guard let core else { return AsyncStream { $0.finish() } }
      let (stream, continuation) = AsyncStream.makeStream(
        of: Value.self, bufferingPolicy: .bufferingNewest(1))
      let subscription = core.subscribe(
        to: keyPath, finish: { continuation.finish() }, { continuation.yield($0) })
      continuation.onTermination = { _ in subscription.cancel() }
      return stream
    }
  }
}
