/// The reducers of one substate, registered in a store under a unique key.
///
/// A mutator is a key, a way to reach one substate (a key path or a ``Lens``), and one handler
/// per action type it handles. There is one and only one mutator per substate.
///
/// ```swift
/// let counter = Mutator(\AppState.counter) { (counter: inout Int, action: CounterAction) in
///   switch action {
///   case .incremented(let n): counter += n
///   case .reset: counter = 0
///   }
/// }
/// .on(SessionAction.self) { (counter: inout Int, action) in
///   if case .loggedOut = action { counter = 0 }
/// }
/// try store.register(counter)
/// ```
///
/// Handlers whose closure cannot throw (`throws(Never)`, the default for a closure without
/// `try`) let the store reduce in place: appending to a large array substate costs O(1).
/// A handler that may refuse an action is best written in two parts, `validate:` and
/// `reduce:`: the check reads the substate and throws to refuse, and the change that follows
/// cannot fail, so the store keeps no copy to roll back to. (A handler whose one closure may
/// throw makes the store keep the old state for every action it handles, and the first change
/// of a large substate then copies it.)
///
/// ```swift
/// let balances = Mutator(\Ledger.balances)
///   .on(
///     LedgerAction.self,
///     validate: { (balances: [String: Int], action) throws(InsufficientFunds) in
///       if case .withdrew(let account, let amount) = action,
///         balances[account, default: 0] < amount
///       {
///         throw InsufficientFunds()
///       }
///     },
///     reduce: { balances, action in
///       switch action {
///       case .deposited(let account, let amount): balances[account, default: 0] += amount
///       case .withdrew(let account, let amount): balances[account, default: 0] -= amount
///       }
///     })
/// ```
/// Mistakes in building a mutator (two handlers for one action type, a substate annotation
/// that does not match the key path) are reported by ``Store/register(_:)``.
public struct Mutator<State: Sendable>: Sendable {
  /// The mutator's unique key in a store.
  public let key: MutatorKey
  let access: SubstateAccessBase<State>
  let keyIsDefault: Bool
  private(set) var handlers: [Handler<State>] = []
  /// Adapts the substate after a `ReplaceState` (``onReplaceState(_:)``); nil: left as replaced.
  var follower: Handler<State>?
  var handlerProblem: RegistrationError?

  @usableFromInline
  init<Substate>(key: MutatorKey?, lens: Lens<State, Substate>) {
    let access = SubstateAccess(lens: lens)
    self.access = access
    self.keyIsDefault = key == nil
    self.key = key ?? MutatorKey(access.pathDescription ?? "\(Substate.self)")
  }

  /// The action types this mutator handles, by name, in the order their handlers were added.
  public var handledActions: [String] { handlers.map(\.actionName) }

  // MARK: Key-path forms

  /// Creates a mutator of the substate at a key path, with a handler for one action type.
  ///
  /// - Parameters:
  ///   - keyPath: The stored property the mutator reduces.
  ///   - key: The mutator's key; defaults to the key path's description (`\AppState.counter`).
  ///   - reduce: Changes the substate in place for an action.
  @inlinable
  public init<Substate, A: Action, E: Error>(
    _ keyPath: WritableKeyPath<State, Substate> & Sendable,
    key: MutatorKey? = nil,
    _ reduce: @escaping @Sendable (inout Substate, A) throws(E) -> Void
  ) {
    self.init(key: key, lens: Lens(keyPath))
    self = self.on(A.self, reduce)
  }

  /// Creates a mutator of the substate at a key path, with a handler that sees every action.
  ///
  /// - Parameters:
  ///   - keyPath: The stored property the mutator reduces.
  ///   - key: The mutator's key; defaults to the key path's description.
  ///   - reduce: Changes the substate in place for any action.
  @inlinable
  public init<Substate, E: Error>(
    _ keyPath: WritableKeyPath<State, Substate> & Sendable,
    key: MutatorKey? = nil,
    _ reduce: @escaping @Sendable (inout Substate, any Action) throws(E) -> Void
  ) {
    self.init(key: key, lens: Lens(keyPath))
    self = self.on((any Action).self, reduce)
  }

  /// Creates a mutator of the substate at a key path from a pure reducer, as in RxReduce.
  ///
  /// - Parameters:
  ///   - keyPath: The stored property the mutator reduces.
  ///   - key: The mutator's key; defaults to the key path's description.
  ///   - reduce: Returns the new substate from the whole state and an action.
  @inlinable
  public init<Substate, A: Action, E: Error>(
    _ keyPath: WritableKeyPath<State, Substate> & Sendable,
    key: MutatorKey? = nil,
    reduce: @escaping @Sendable (State, A) throws(E) -> Substate
  ) {
    self.init(key: key, lens: Lens(keyPath))
    self = self.on(A.self, reduce: reduce)
  }

  /// Creates a mutator whose handler checks each action of type `A` before it changes the
  /// substate.
  ///
  /// `validate` reads the substate and throws to refuse the action; `reduce`, which cannot
  /// fail, then changes the substate in place. No copy is kept to roll back to.
  ///
  /// - Parameters:
  ///   - keyPath: The substate.
  ///   - key: The unique key; by default, the key path's description.
  ///   - validate: Throws to refuse the action; the store reports
  ///     ``DispatchError/reducerFailed(key:action:underlying:)`` with its error, and nothing
  ///     changes.
  ///   - reduce: Changes the substate for an action `validate` accepted.
  @inlinable
  public init<Substate, A: Action, E: Error>(
    _ keyPath: WritableKeyPath<State, Substate> & Sendable,
    key: MutatorKey? = nil,
    validate: @escaping @Sendable (Substate, A) throws(E) -> Void,
    reduce: @escaping @Sendable (inout Substate, A) -> Void
  ) {
    self.init(key: key, lens: Lens(keyPath))
    self = self.on(A.self, validate: validate, reduce: reduce)
  }

  // MARK: Lens forms

  /// Creates a mutator of the substate a lens reaches, with a handler for one action type.
  ///
  /// - Parameters:
  ///   - key: The mutator's key.
  ///   - lens: Reads and writes the substate.
  ///   - reduce: Changes the substate for an action.
  @inlinable
  public init<Substate, A: Action, E: Error>(
    key: MutatorKey,
    lens: Lens<State, Substate>,
    _ reduce: @escaping @Sendable (inout Substate, A) throws(E) -> Void
  ) {
    self.init(key: key, lens: lens)
    self = self.on(A.self, reduce)
  }

  /// Creates a mutator of the substate a lens reaches, with a handler that sees every action.
  ///
  /// - Parameters:
  ///   - key: The mutator's key.
  ///   - lens: Reads and writes the substate.
  ///   - reduce: Changes the substate for any action.
  @inlinable
  public init<Substate, E: Error>(
    key: MutatorKey,
    lens: Lens<State, Substate>,
    _ reduce: @escaping @Sendable (inout Substate, any Action) throws(E) -> Void
  ) {
    self.init(key: key, lens: lens)
    self = self.on((any Action).self, reduce)
  }

  /// Creates a mutator of the substate a lens reaches from a pure reducer, as in RxReduce.
  ///
  /// - Parameters:
  ///   - key: The mutator's key.
  ///   - lens: Reads and writes the substate.
  ///   - reduce: Returns the new substate from the whole state and an action.
  @inlinable
  public init<Substate, A: Action, E: Error>(
    key: MutatorKey,
    lens: Lens<State, Substate>,
    reduce: @escaping @Sendable (State, A) throws(E) -> Substate
  ) {
    self.init(key: key, lens: lens)
    self = self.on(A.self, reduce: reduce)
  }

  // MARK: More handlers

  /// Returns a copy of this mutator with a handler for one more action type.
  ///
  /// Annotate the closure's substate parameter (`{ (list: inout [Todo], action) in ... }`):
  /// the mutator does not carry its substate type, and a mismatch is reported at registration.
  ///
  /// - Parameters:
  ///   - type: The action type handled.
  ///   - reduce: Changes the substate in place for an action of that type.
  /// - Returns: The mutator with the new handler.
  @inlinable
  public func on<Substate, A: Action, E: Error>(
    _ type: A.Type,
    _ reduce: @escaping @Sendable (inout Substate, A) throws(E) -> Void
  ) -> Mutator {
    adding(Substate.self, A.self) { (access: SubstateAccess<State, Substate>) in
      access.handler(of: A.self, reduce)
    }
  }

  /// Returns a copy of this mutator with a handler that sees every action.
  ///
  /// A mutator may have both handlers for given types and one for every action: for an action
  /// of a handled type, the typed handler runs first.
  ///
  /// - Parameters:
  ///   - type: `(any Action).self`.
  ///   - reduce: Changes the substate in place for any action.
  /// - Returns: The mutator with the new handler.
  @inlinable
  public func on<Substate, E: Error>(
    _ type: (any Action).Type,
    _ reduce: @escaping @Sendable (inout Substate, any Action) throws(E) -> Void
  ) -> Mutator {
    adding(Substate.self, nil) { (access: SubstateAccess<State, Substate>) in
      access.handlerOfEveryAction(reduce)
    }
  }

  /// Returns a copy of this mutator with a pure handler for one more action type.
  ///
  /// - Parameters:
  ///   - type: The action type handled.
  ///   - reduce: Returns the new substate from the whole state and an action of that type.
  /// - Returns: The mutator with the new handler.
  @inlinable
  public func on<Substate, A: Action, E: Error>(
    _ type: A.Type,
    reduce: @escaping @Sendable (State, A) throws(E) -> Substate
  ) -> Mutator {
    adding(Substate.self, A.self) { (access: SubstateAccess<State, Substate>) in
      access.handler(of: A.self, pure: reduce)
    }
  }

  /// Adds a handler that checks each action of type `A` before it changes the substate.
  ///
  /// `validate` reads the substate and throws to refuse the action; `reduce`, which cannot
  /// fail, then changes the substate in place. No copy is kept to roll back to.
  ///
  /// - Parameters:
  ///   - type: The action type.
  ///   - validate: Throws to refuse the action; the store reports
  ///     ``DispatchError/reducerFailed(key:action:underlying:)`` with its error, and nothing
  ///     changes.
  ///   - reduce: Changes the substate for an action `validate` accepted.
  /// - Returns: The mutator with the handler added.
  @inlinable
  public func on<Substate, A: Action, E: Error>(
    _ type: A.Type,
    validate: @escaping @Sendable (Substate, A) throws(E) -> Void,
    reduce: @escaping @Sendable (inout Substate, A) -> Void
  ) -> Mutator {
    adding(Substate.self, A.self) { (access: SubstateAccess<State, Substate>) in
      access.handler(of: A.self, validate: validate, reduce: reduce)
    }
  }

  @usableFromInline
  func addingFollower<Substate>(
    _ substate: Substate.Type, _ make: (SubstateAccess<State, Substate>) -> Handler<State>
  ) -> Mutator {
    var copy = self
    guard copy.handlerProblem == nil else { return copy }
    if let typed = access as? SubstateAccess<State, Substate> {
      if copy.follower != nil {
        copy.handlerProblem = .duplicateHandler(key: key, action: "ReplaceState (onReplaceState)")
      } else {
        copy.follower = make(typed)
      }
    } else {
      copy.handlerProblem = .substateMismatch(
        key: key, expected: String(describing: access.substateType),
        found: String(describing: Substate.self))
    }
    return copy
  }

  @usableFromInline
  func adding<Substate>(
    _ substate: Substate.Type,
    _ action: (any Action.Type)?,
    _ make: (SubstateAccess<State, Substate>) -> Handler<State>
  ) -> Mutator {
    var copy = self
    guard copy.handlerProblem == nil else { return copy }
    let actionName = action.map { String(describing: $0) } ?? "any Action"
    if let action, action == Batch.self || action == ReplaceState<State>.self {
      copy.handlerProblem = .builtInAction(key: key, action: actionName)
    } else if let typed = access as? SubstateAccess<State, Substate> {
      let handler = make(typed)
      if copy.handlers.contains(where: { $0.actionType == handler.actionType }) {
        copy.handlerProblem = .duplicateHandler(key: key, action: actionName)
      } else {
        copy.handlers.append(handler)
      }
    } else {
      copy.handlerProblem = .substateMismatch(
        key: key, expected: String(describing: access.substateType),
        found: String(describing: Substate.self))
    }
    return copy
  }
}
