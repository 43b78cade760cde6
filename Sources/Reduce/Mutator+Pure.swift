extension Mutator {
  // MARK: Pure forms that see every action

  /// Creates a mutator of the substate at a key path from a pure reducer of every action, as
  /// RxReduce's reducers were written: `(State, Action) -> Substate`.
  ///
  /// The reducer runs for every action that reaches the reducers, so it usually starts by
  /// casting (`guard let action = action as? AppAction else { return state.counter }`).
  /// Prefer a reducer typed on its action type: it is routed, and costs nothing for others.
  ///
  /// - Parameters:
  ///   - keyPath: The stored property the mutator reduces.
  ///   - key: The mutator's key; defaults to the key path's description.
  ///   - reduce: Returns the new substate from the whole state and any action.
  @inlinable
  public init<Substate, E: Error>(
    _ keyPath: WritableKeyPath<State, Substate> & Sendable,
    key: MutatorKey? = nil,
    reduce: @escaping @Sendable (State, any Action) throws(E) -> Substate
  ) {
    self.init(key: key, lens: Lens(keyPath))
    self = self.on((any Action).self, reduce: reduce)
  }

  /// Creates a mutator of the substate a lens reaches from a pure reducer of every action, as
  /// RxReduce's `Mutator(lens:reducer:)` did.
  ///
  /// - Parameters:
  ///   - key: The mutator's key.
  ///   - lens: Reads and writes the substate.
  ///   - reduce: Returns the new substate from the whole state and any action.
  @inlinable
  public init<Substate, E: Error>(
    key: MutatorKey,
    lens: Lens<State, Substate>,
    reduce: @escaping @Sendable (State, any Action) throws(E) -> Substate
  ) {
    self.init(key: key, lens: lens)
    self = self.on((any Action).self, reduce: reduce)
  }

  /// Returns a copy of this mutator with a pure handler that sees every action.
  ///
  /// - Parameters:
  ///   - type: `(any Action).self`.
  ///   - reduce: Returns the new substate from the whole state and any action.
  /// - Returns: The mutator with the new handler.
  @inlinable
  public func on<Substate, E: Error>(
    _ type: (any Action).Type,
    reduce: @escaping @Sendable (State, any Action) throws(E) -> Substate
  ) -> Mutator {
    adding(Substate.self, nil) { (access: SubstateAccess<State, Substate>) in
      access.handlerOfEveryAction(pure: reduce)
    }
  }
}
