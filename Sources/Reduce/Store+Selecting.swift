extension Store {
  /// Observes a value derived from the state by a closure, called when it changed by `==`.
  ///
  /// The observer is called at once with the current value (unless `initial` is false), then
  /// after every action that changed the value. The closure runs after every action that
  /// reached a handler; for a derived value that many observers share, or that is costly, use a
  /// ``MemoizedSelector``.
  ///
  /// - Parameters:
  ///   - select: Derives the value from a state; it must not read the store.
  ///   - initial: Whether the observer is called at once with the current value.
  ///   - observer: Called with each new value.
  /// - Returns: The subscription; the observer stops when it is cancelled or deinitialised.
  public func subscribe<Value: Equatable & Sendable>(
    to select: @escaping @Sendable (State) -> Value,
    initial: Bool = true,
    _ observer: @escaping @Sendable (Value) -> Void
  ) -> Subscription {
    subscribe(to: select, by: ==, initial: initial, observer)
  }

  /// Observes a value derived from the state by a closure, called when it changed by a
  /// comparison of yours: for values that are not `Equatable`, or equal enough.
  ///
  /// - Parameters:
  ///   - select: Derives the value from a state; it must not read the store.
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
    core.subscribe(
      selecting: { state, last in
        let value = select(state.pointee)
        if isDuplicate(last, value) { return false }
        last = value
        return true
      },
      current: select, shareKey: nil, range: nil, initial: initial, observer)
  }

  /// Observes a memoized selector, called when its value changed by `==`.
  ///
  /// Every observer of one selector in this store shares one evaluation per action, and the
  /// selector computes the value only when its inputs changed.
  ///
  /// - Parameters:
  ///   - selector: The selector.
  ///   - initial: Whether the observer is called at once with the current value.
  ///   - observer: Called with each new value.
  /// - Returns: The subscription; the observer stops when it is cancelled or deinitialised.
  public func subscribe<Value: Equatable & Sendable>(
    to selector: MemoizedSelector<State, Value>,
    initial: Bool = true,
    _ observer: @escaping @Sendable (Value) -> Void
  ) -> Subscription {
    core.subscribe(
      selecting: { state, last in
        let value = selector(state.pointee)
        if value == last { return false }
        last = value
        return true
      },
      current: { selector($0) }, shareKey: .selector(ObjectIdentifier(selector)), range: nil,
      initial: initial, observer)
  }

  /// Observes a memoized selector of a value that is not `Equatable`, called each time the
  /// selector computed it anew (its inputs changed).
  ///
  /// - Parameters:
  ///   - selector: The selector.
  ///   - initial: Whether the observer is called at once with the current value.
  ///   - observer: Called with each new value.
  /// - Returns: The subscription; the observer stops when it is cancelled or deinitialised.
  public func subscribe<Value: Sendable>(
    to selector: MemoizedSelector<State, Value>,
    initial: Bool = true,
    _ observer: @escaping @Sendable (Value) -> Void
  ) -> Subscription {
    let seen = GenerationMark()
    return core.subscribe(
      selecting: { state, last in
        let (value, generation) = selector.evaluate(state.pointee)
        guard seen.advance(to: generation) else { return false }
        last = value
        return true
      },
      current: { state in
        let (value, generation) = selector.evaluate(state)
        _ = seen.advance(to: generation)
        return value
      }, shareKey: .generations(ObjectIdentifier(selector)), range: nil, initial: initial,
      observer)
  }

  /// The current value of a memoized selector.
  ///
  /// - Parameter selector: The selector.
  /// - Returns: Its value for the current state, computed only if its inputs changed.
  public func select<Value: Sendable>(_ selector: MemoizedSelector<State, Value>) -> Value {
    selector(state)
  }
}

/// The newest computation of a selector its group has seen.
///
/// `@unchecked Sendable`: used only by the thread holding the store's turn.
final class GenerationMark: @unchecked Sendable {
  private var seen: UInt64 = 0

  /// Keeps `generation`; returns whether it is newer than the one seen.
  func advance(to generation: UInt64) -> Bool {
    guard generation != seen else { return false }
    seen = generation
    return true
  }
}
