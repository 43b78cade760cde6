// Overloads that exist only for their error message. Without them, a closure whose `inout`
// parameter is not the key path's value type matches no initializer, and the compiler reports
// the mismatch against the `any Action` form, so the message points at the action:
//
//   cannot convert value of type '@Sendable (inout Int, SettingsAction) -> ()' to expected
//   argument type '@Sendable (inout String, any Action) -> Void'
//
// A real initializer is more specific than these (its closure's substate is the key path's), so
// it is always chosen when it applies, and these are chosen only when nothing else fits.

extension Mutator {
  /// Unavailable: the closure's `inout` parameter must have the key path's value type.
  ///
  /// - Parameters:
  ///   - keyPath: The substate.
  ///   - key: The mutator's key.
  ///   - reduce: A closure whose first parameter is not of the substate's type.
  @available(
    *, unavailable,
    message:
      "the closure's 'inout' parameter must have the type of the key path's value (the substate); for an Int at \\AppState.count, write { (count: inout Int, action: CounterAction) in ... }"
  )
  public init<Substate, Other, A: Action, E: Error>(
    _ keyPath: WritableKeyPath<State, Substate> & Sendable,
    key: MutatorKey? = nil,
    _ reduce: @escaping @Sendable (inout Other, A) throws(E) -> Void
  ) {
    self.init(key: key, lens: Lens(keyPath))
  }

  /// Unavailable: the closure's `inout` parameter must have the key path's value type.
  ///
  /// - Parameters:
  ///   - keyPath: The substate.
  ///   - key: The mutator's key.
  ///   - reduce: A closure whose first parameter is not of the substate's type.
  @available(
    *, unavailable,
    message:
      "the closure's 'inout' parameter must have the type of the key path's value (the substate); for an Int at \\AppState.count, write { (count: inout Int, action: any Action) in ... }"
  )
  public init<Substate, Other, E: Error>(
    _ keyPath: WritableKeyPath<State, Substate> & Sendable,
    key: MutatorKey? = nil,
    _ reduce: @escaping @Sendable (inout Other, any Action) throws(E) -> Void
  ) {
    self.init(key: key, lens: Lens(keyPath))
  }

  /// Unavailable: the closure's `inout` parameter must have the lens's value type.
  ///
  /// - Parameters:
  ///   - key: The mutator's key.
  ///   - lens: The substate.
  ///   - reduce: A closure whose first parameter is not of the substate's type.
  @available(
    *, unavailable,
    message:
      "the closure's 'inout' parameter must have the type of the lens's value (the substate); for a Lens<AppState, Int>, write { (count: inout Int, action: CounterAction) in ... }"
  )
  public init<Substate, Other, A: Action, E: Error>(
    key: MutatorKey,
    lens: Lens<State, Substate>,
    _ reduce: @escaping @Sendable (inout Other, A) throws(E) -> Void
  ) {
    self.init(key: key, lens: lens)
  }

  /// Unavailable: the closure's `inout` parameter must have the lens's value type.
  ///
  /// - Parameters:
  ///   - key: The mutator's key.
  ///   - lens: The substate.
  ///   - reduce: A closure whose first parameter is not of the substate's type.
  @available(
    *, unavailable,
    message:
      "the closure's 'inout' parameter must have the type of the lens's value (the substate); for a Lens<AppState, Int>, write { (count: inout Int, action: any Action) in ... }"
  )
  public init<Substate, Other, E: Error>(
    key: MutatorKey,
    lens: Lens<State, Substate>,
    _ reduce: @escaping @Sendable (inout Other, any Action) throws(E) -> Void
  ) {
    self.init(key: key, lens: lens)
  }
}
