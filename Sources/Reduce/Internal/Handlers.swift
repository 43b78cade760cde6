/// Type-erased access to the substate of one mutator: what registration checks need.
///
/// `@unchecked Sendable`: every property is a `let` holding a `Sendable` value (key paths and
/// lens closures are `Sendable`); the class is never mutated after `init`.
@usableFromInline
class SubstateAccessBase<State>: @unchecked Sendable {
  /// The substate's type, to check the handlers' annotations against.
  let substateType: Any.Type
  /// The key path, for equality (overlap) checks; nil for a lens built from closures.
  let keyPath: AnyKeyPath?
  /// The bytes of `State` the substate occupies, where the key path is a stored-property path:
  /// for overlap checks, and to skip key-path observers an action cannot have changed.
  @usableFromInline let byteRange: Range<Int>?
  /// The key path's description, where there is a key path.
  let pathDescription: String?
  /// Whether a value (from `Mirror`) can be the substate.
  let isSubstate: @Sendable (Any) -> Bool
  /// The storage the substate is known to occupy: the key path, or the paths a lens declares.
  let footprint: [Footprint]
  /// The identity of a lens built from closures, shared by its copies.
  let lensIdentity: ObjectIdentifier?

  init(
    substateType: Any.Type, keyPath: AnyKeyPath?, byteRange: Range<Int>?,
    footprint: [Footprint], lensIdentity: ObjectIdentifier?,
    isSubstate: @escaping @Sendable (Any) -> Bool
  ) {
    self.substateType = substateType
    self.isSubstate = isSubstate
    self.keyPath = keyPath
    self.byteRange = byteRange
    self.pathDescription = keyPath.map { String(describing: $0) }
    self.footprint = footprint
    self.lensIdentity = lensIdentity
  }

  /// Whether the two accesses provably address overlapping storage: one lens, the same key
  /// path, or overlapping bytes of two stored-property paths.
  func overlaps(_ other: SubstateAccessBase<State>) -> Bool {
    if let lhs = lensIdentity, let rhs = other.lensIdentity, lhs == rhs { return true }
    for lhs in footprint {
      for rhs in other.footprint where lhs.overlaps(rhs) { return true }
    }
    return false
  }
}

/// One key path a mutator's substate occupies, with its bytes when it is a stored-property
/// path.
struct Footprint: @unchecked Sendable {
  // `@unchecked Sendable`: the key path is immutable and was `Sendable` when it was given.
  let keyPath: AnyKeyPath
  let range: Range<Int>?
  /// Whether a value (from `Mirror`) can be the value at the key path.
  let isValue: @Sendable (Any) -> Bool

  init<State>(_ path: PartialKeyPath<State> & Sendable, in state: State.Type) {
    keyPath = path
    let valueType = type(of: path).valueType
    func size<Value>(_ type: Value.Type) -> Int { MemoryLayout<Value>.size }
    range = MemoryLayout<State>.offset(of: path).map { $0..<($0 + size(valueType)) }
    isValue = { type(of: $0) == valueType }
  }

  func overlaps(_ other: Footprint) -> Bool {
    if keyPath == other.keyPath { return true }
    guard let lhs = range, let rhs = other.range, !lhs.isEmpty, !rhs.isEmpty else { return false }
    return lhs.overlaps(rhs)
  }
}

/// Typed access to the substate of one mutator, through a key path (reduced in place) or a lens.
@usableFromInline
final class SubstateAccess<State, Substate>: SubstateAccessBase<State>, @unchecked Sendable {
  @usableFromInline let writableKeyPath: (WritableKeyPath<State, Substate> & Sendable)?
  /// Where the substate is stored in `State`, when the key path is a path of stored
  /// properties: the substate is then reached at its offset, without a key-path projection.
  @usableFromInline let storedOffset: Int?
  @usableFromInline let lens: Lens<State, Substate>

  init(lens: Lens<State, Substate>) {
    self.lens = lens
    self.writableKeyPath = lens.keyPath
    storedOffset = lens.keyPath.flatMap { MemoryLayout<State>.offset(of: $0) }
    let range = storedOffset.map { $0..<($0 + MemoryLayout<Substate>.size) }
    super.init(
      substateType: Substate.self, keyPath: lens.keyPath, byteRange: range,
      footprint: lens.covered.map { Footprint($0, in: State.self) },
      lensIdentity: lens.identity.map(ObjectIdentifier.init),
      isSubstate: { $0 is Substate })
  }

  /// Runs `body` on the substate of `state`, and writes its change back.
  ///
  /// A stored-property path reaches the substate at its offset, any other key path through
  /// its projection, both in place; a closure lens copies the substate out and, unless `body`
  /// throws, back.
  @inlinable
  func update<E: Error>(_ state: inout State, _ body: (inout Substate) throws(E) -> Void)
    throws(E)
  {
    if let storedOffset {
      try withStoredProperty(of: &state, at: storedOffset, as: Substate.self, body)
      return
    }
    if let path = writableKeyPath {
      try body(&state[keyPath: path])
      return
    }
    var substate = lens.get(state)
    try body(&substate)
    lens.set(&state, substate)
  }

  /// A handler of actions of type `A` that changes the substate in place.
  ///
  /// One closure, compiled where `State`, `Substate` and `A` are concrete: it unwraps the
  /// action, reaches the substate and runs `reduce`.
  @inlinable
  func handler<A: Action, E: Error>(
    of type: A.Type, _ reduce: @escaping @Sendable (inout Substate, A) throws(E) -> Void
  ) -> Handler<State> {
    Handler(of: A.self, mayThrow: E.self != Never.self) { state, action in
      try self.update(&state) { substate throws(E) in
        try reduce(&substate, unwrap(action, as: A.self))
      }
    }
  }

  /// A handler of every action that changes the substate in place.
  @inlinable
  func handlerOfEveryAction<E: Error>(
    _ reduce: @escaping @Sendable (inout Substate, any Action) throws(E) -> Void
  ) -> Handler<State> {
    Handler(of: nil, mayThrow: E.self != Never.self) { state, action in
      try self.update(&state) { substate throws(E) in try reduce(&substate, action) }
    }
  }

  /// A handler of every action from a pure reducer, which returns the new substate.
  @inlinable
  func handlerOfEveryAction<E: Error>(
    pure reduce: @escaping @Sendable (State, any Action) throws(E) -> Substate
  ) -> Handler<State> {
    Handler(of: nil, mayThrow: E.self != Never.self) { state, action in
      let substate = try reduce(state, action)
      self.update(&state) { $0 = substate }
    }
  }

  /// A follower of `ReplaceState`: adapts the substate to the state that replaced the old one.
  @inlinable
  func follower(_ follow: @escaping @Sendable (inout Substate, State) -> Void) -> Handler<State>
  where State: Sendable {
    Handler(of: ReplaceState<State>.self, mayThrow: false) { state, _ in
      let replaced = state
      self.update(&state) { substate in follow(&substate, replaced) }
    }
  }

  /// Reads the substate.
  @inlinable
  func read(_ state: State) -> Substate {
    if let path = writableKeyPath { return state[keyPath: path] }
    return lens.get(state)
  }

  /// A handler that checks an action against the substate before it changes the substate in a
  /// way that cannot fail: nothing to roll back, so no copy is kept.
  @inlinable
  func handler<A: Action, E: Error>(
    of type: A.Type,
    validate: @escaping @Sendable (Substate, A) throws(E) -> Void,
    reduce: @escaping @Sendable (inout Substate, A) -> Void
  ) -> Handler<State> {
    Handler(
      of: A.self, mayThrow: false,
      check: { state, action in try validate(self.read(state), unwrap(action, as: A.self)) },
      body: { state, action in
        self.update(&state) { substate in reduce(&substate, unwrap(action, as: A.self)) }
      })
  }

  /// A handler of actions of type `A` from a pure reducer, which returns the new substate.
  @inlinable
  func handler<A: Action, E: Error>(
    of type: A.Type, pure reduce: @escaping @Sendable (State, A) throws(E) -> Substate
  ) -> Handler<State> {
    Handler(of: A.self, mayThrow: E.self != Never.self) { state, action in
      let substate = try reduce(state, unwrap(action, as: A.self))
      self.update(&state) { $0 = substate }
    }
  }
}

/// One handler of a mutator: a reducer of the whole state for one action type, or for every
/// action.
///
/// `@unchecked Sendable`: immutable after `init`, and its closure is `Sendable`.
@usableFromInline
final class Handler<State>: @unchecked Sendable {
  /// The action type handled, or nil for a handler of every action.
  @usableFromInline let actionType: ObjectIdentifier?
  /// The action type's name, for error messages.
  let actionName: String
  /// False when the handler's closure is `throws(Never)`: no copy is kept to roll back to.
  @usableFromInline let mayThrow: Bool
  /// Reduces the state for an action; the store calls it only with an action of `actionType`.
  @usableFromInline let body: @Sendable (inout State, any Action) throws -> Void
  /// Decides, reading the state, whether the action may be reduced; throws to refuse it.
  ///
  /// Run for every handler of an action before any of them changes the state. Nil: no check.
  @usableFromInline let check: (@Sendable (State, any Action) throws -> Void)?

  @usableFromInline
  init(
    actionType: ObjectIdentifier?, actionName: String, mayThrow: Bool,
    check: (@Sendable (State, any Action) throws -> Void)?,
    body: @escaping @Sendable (inout State, any Action) throws -> Void
  ) {
    self.actionType = actionType
    self.actionName = actionName
    self.mayThrow = mayThrow
    self.check = check
    self.body = body
  }

  /// A handler of actions of type `type` (nil: of every action).
  @inlinable
  convenience init(
    of type: (any Action.Type)?, mayThrow: Bool,
    check: (@Sendable (State, any Action) throws -> Void)? = nil,
    body: @escaping @Sendable (inout State, any Action) throws -> Void
  ) {
    self.init(
      actionType: type.map { ObjectIdentifier($0) },
      actionName: type.map { String(describing: $0) } ?? "any Action", mayThrow: mayThrow,
      check: check, body: body)
  }
}

/// The value of type `A` inside an existential that the store routed by its type, `A`.
///
/// The existential is opened and its type compared with `A`; the value is then read as itself.
/// Measured: `as? A` costs about 250 instructions per handler call (a dynamic cast that
/// searches for conversions), more than the rest of a counter's reduction.
@inlinable
func unwrap<A: Action>(_ action: any Action, as type: A.Type) -> A {
  func open<Boxed: Action>(_ value: Boxed) -> A {
    precondition(
      Boxed.self == A.self,
      "The store routed an action of type \(Boxed.self) to a handler of \(A.self).")
    // `Boxed` is `A`: a value reinterpreted as its own type.
    return unsafeBitCast(value, to: A.self)
  }
  return open(action)
}
