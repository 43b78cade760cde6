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

  init(
    substateType: Any.Type, keyPath: AnyKeyPath?, byteRange: Range<Int>?,
    isSubstate: @escaping @Sendable (Any) -> Bool
  ) {
    self.substateType = substateType
    self.isSubstate = isSubstate
    self.keyPath = keyPath
    self.byteRange = byteRange
    self.pathDescription = keyPath.map { String(describing: $0) }
  }

  /// Whether the two accesses provably address overlapping storage.
  func overlaps(_ other: SubstateAccessBase<State>) -> Bool {
    if let lhs = keyPath, let rhs = other.keyPath, lhs == rhs { return true }
    guard let lhs = byteRange, let rhs = other.byteRange, !lhs.isEmpty, !rhs.isEmpty else {
      return false
    }
    return lhs.overlaps(rhs)
  }
}

/// Typed access to the substate of one mutator, through a key path (reduced in place) or a lens.
@usableFromInline
final class SubstateAccess<State, Substate>: SubstateAccessBase<State>, @unchecked Sendable {
  @usableFromInline let writableKeyPath: (WritableKeyPath<State, Substate> & Sendable)?
  @usableFromInline let lens: Lens<State, Substate>

  init(lens: Lens<State, Substate>) {
    self.lens = lens
    self.writableKeyPath = lens.keyPath
    let range = lens.keyPath.flatMap { path in
      MemoryLayout<State>.offset(of: path).map { $0..<($0 + MemoryLayout<Substate>.size) }
    }
    super.init(
      substateType: Substate.self, keyPath: lens.keyPath, byteRange: range,
      isSubstate: { $0 is Substate })
  }

  /// Wraps an `inout` reducer of the substate as a reducer of the whole state.
  ///
  /// A key path reaches the substate in place (a writable key path yields its storage); a
  /// closure lens copies the substate out and back.
  @inlinable
  func lift<A, E: Error>(
    _ body: @escaping @Sendable (inout Substate, A) throws(E) -> Void
  ) -> @Sendable (inout State, A) throws -> Void {
    if let path = writableKeyPath {
      return { state, action in try body(&state[keyPath: path], action) }
    }
    let lens = lens
    return { state, action in
      var substate = lens.get(state)
      try body(&substate, action)
      lens.set(&state, substate)
    }
  }

  /// Wraps a pure reducer, which returns the new substate, as a reducer of the whole state.
  @inlinable
  func lift<A, E: Error>(
    pure body: @escaping @Sendable (State, A) throws(E) -> Substate
  ) -> @Sendable (inout State, A) throws -> Void {
    let lens = lens
    return { state, action in lens.set(&state, try body(state, action)) }
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

  @usableFromInline
  init(
    actionType: ObjectIdentifier?, actionName: String, mayThrow: Bool,
    body: @escaping @Sendable (inout State, any Action) throws -> Void
  ) {
    self.actionType = actionType
    self.actionName = actionName
    self.mayThrow = mayThrow
    self.body = body
  }

  /// A handler of actions of type `A`.
  ///
  /// Call it where `State` and `A` are concrete, so that `body` is compiled for them.
  @inlinable
  static func handling<A: Action>(
    _ type: A.Type, mayThrow: Bool, body: @escaping @Sendable (inout State, A) throws -> Void
  ) -> Handler {
    Handler(
      actionType: ObjectIdentifier(A.self), actionName: String(describing: A.self),
      mayThrow: mayThrow
    ) { state, action in
      try body(&state, unwrap(action, as: A.self))
    }
  }

  /// A handler of every action.
  @inlinable
  static func handlingEveryAction(
    mayThrow: Bool, body: @escaping @Sendable (inout State, any Action) throws -> Void
  ) -> Handler {
    Handler(actionType: nil, actionName: "any Action", mayThrow: mayThrow, body: body)
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
      Boxed.self == A.self, "The store routed an action of type \(Boxed.self) to a handler of \(A.self).")
    // `Boxed` is `A`: a value reinterpreted as its own type.
    return unsafeBitCast(value, to: A.self)
  }
  return open(action)
}
