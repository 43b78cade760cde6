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
  /// The bytes of `State` the substate occupies, where the key path is a stored-property path.
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
  /// A stored-property path is reduced through a pointer at the property's offset
  /// (`MemoryLayout.offset(of:)` documents this use), in place and without a key-path
  /// projection; other key paths through the key path, in place; a closure lens by copying the
  /// substate out and back.
  @inlinable
  func lift<A, E: Error>(
    _ body: @escaping @Sendable (inout Substate, A) throws(E) -> Void
  ) -> @Sendable (inout State, A) throws -> Void {
    if let offset = byteRange?.lowerBound {
      return { state, action in
        try withUnsafeMutablePointer(to: &state) { pointer throws(E) in
          let substate = UnsafeMutableRawPointer(pointer).advanced(by: offset)
            .assumingMemoryBound(to: Substate.self)
          try body(&substate.pointee, action)
        }
      }
    }
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

/// One handler of a mutator, erased over its action type.
///
/// `@unchecked Sendable`: immutable after `init`; its subclasses store `Sendable` closures only.
@usableFromInline
class HandlerBox<State>: @unchecked Sendable {
  /// The action type handled, or nil for a handler of every action.
  @usableFromInline let actionType: ObjectIdentifier?
  /// The action type's name, for error messages.
  let actionName: String
  /// False when the handler's closure is `throws(Never)`: it can be reduced in place.
  @usableFromInline let mayThrow: Bool
  /// The handler for an action known only as `any Action` (after middleware): the store calls
  /// it only with an action of the handled type.
  @usableFromInline let erasedBody: @Sendable (inout State, any Action) throws -> Void

  init(
    actionType: ObjectIdentifier?, actionName: String, mayThrow: Bool,
    erasedBody: @escaping @Sendable (inout State, any Action) throws -> Void
  ) {
    self.actionType = actionType
    self.actionName = actionName
    self.mayThrow = mayThrow
    self.erasedBody = erasedBody
  }
}

/// The value of type `A` inside an existential whose dynamic type the caller knows to be `A`.
///
/// Cheaper than `as?`, which searches conformances: the existential is opened and its value
/// reinterpreted as `A` once the opened type is checked to be `A` (`_identityCast`).
@inlinable
func unwrap<A: Action>(_ action: any Action, as type: A.Type) -> A {
  func read<B: Action>(_ value: B) -> A {
    precondition(B.self == A.self, "The store routed an action to a handler of another type.")
    return _identityCast(value, to: A.self)
  }
  return read(action)
}

/// A handler of one action type.
@usableFromInline
final class TypedHandler<State, A: Action>: HandlerBox<State>, @unchecked Sendable {
  @usableFromInline let body: @Sendable (inout State, A) throws -> Void

  /// Creates a handler; call it where `State` and `A` are concrete, so that the erased body is
  /// specialised.
  @inlinable
  convenience init(mayThrow: Bool, body: @escaping @Sendable (inout State, A) throws -> Void) {
    self.init(
      mayThrow: mayThrow, body: body,
      erasedBody: { state, action in try body(&state, unwrap(action, as: A.self)) })
  }

  @usableFromInline
  init(
    mayThrow: Bool, body: @escaping @Sendable (inout State, A) throws -> Void,
    erasedBody: @escaping @Sendable (inout State, any Action) throws -> Void
  ) {
    self.body = body
    super.init(
      actionType: ObjectIdentifier(A.self), actionName: String(describing: A.self),
      mayThrow: mayThrow, erasedBody: erasedBody)
  }
}

/// A handler of every action.
@usableFromInline
final class AnyActionHandler<State>: HandlerBox<State>, @unchecked Sendable {
  @usableFromInline let body: @Sendable (inout State, any Action) throws -> Void

  @usableFromInline
  init(mayThrow: Bool, body: @escaping @Sendable (inout State, any Action) throws -> Void) {
    self.body = body
    super.init(actionType: nil, actionName: "any Action", mayThrow: mayThrow, erasedBody: body)
  }
}
