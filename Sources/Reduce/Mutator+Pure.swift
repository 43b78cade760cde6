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

  // MARK: Following a restore

  /// Returns a copy of this mutator whose substate follows every ``ReplaceState``.
  ///
  /// No handler sees a `ReplaceState`: the store replaces the whole state itself (undo, time
  /// travel, loading a file). A substate that depends on others (a selection that points into
  /// the document) may then hold what no longer makes sense: a restored document without the
  /// selected shape. `follow` runs right after the replacement, in the same step, with the
  /// substate `inout` and the replaced state, and adapts the substate: no observer sees the
  /// state in between, and no other action is needed.
  ///
  /// ```swift
  /// let selection = Mutator(\Editor.selection) { (selection: inout Set<Int>, action: SelectAction) in
  ///   if case .select(let id) = action { selection = [id] }
  /// }
  /// .onReplaceState { (selection: inout Set<Int>, editor) in
  ///   selection.formIntersection(editor.document.shapes.map(\.id))
  /// }
  /// ```
  ///
  /// Followers run after every `ReplaceState` (also one inside a ``Batch``), in registration
  /// order, each seeing the changes of the ones before; they cannot throw and, like reducers,
  /// must not read the store.
  ///
  /// - Parameter follow: Adapts the substate to the state that replaced the old one.
  /// - Returns: The mutator with the follower; a second follower is reported at registration
  ///   as ``RegistrationError/duplicateHandler(key:action:)``.
  @inlinable
  public func onReplaceState<Substate>(
    _ follow: @escaping @Sendable (inout Substate, State) -> Void
  ) -> Mutator {
    addingFollower(Substate.self) { (access: SubstateAccess<State, Substate>) in
      access.follower(follow)
    }
  }
}
