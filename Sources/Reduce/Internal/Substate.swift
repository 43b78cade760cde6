/// How a mutator reaches its substate, and where in the state it lies.
///
/// The store reads and writes a substate only through its key path or its lens. Where it lies
/// (its byte range, from `MemoryLayout.offset(of:)`) serves two checks and nothing else: two
/// mutators whose substates overlap are refused at registration, and an observer whose value
/// lies outside every range an action's mutators touch is not asked whether it changed.
@usableFromInline
class SubstateAccessBase<State>: @unchecked Sendable {
  // `@unchecked Sendable`: immutable; its key paths and closures were `Sendable` when given.
  let substateType: Any.Type
  let keyPath: AnyKeyPath?
  let byteRange: Range<Int>?
  let pathDescription: String?
  let isSubstate: @Sendable (Any) -> Bool
  let footprint: [Footprint]
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

  /// Whether two substates provably share storage: the same lens, the same key path, or
  /// overlapping byte ranges.
  func overlaps(_ other: SubstateAccessBase<State>) -> Bool {
    if let lhs = lensIdentity, let rhs = other.lensIdentity, lhs == rhs { return true }
    for lhs in footprint {
      for rhs in other.footprint where lhs.overlaps(rhs) { return true }
    }
    return false
  }
}

/// One key path a mutator's substate occupies, with its bytes when it is a stored-property path.
struct Footprint: @unchecked Sendable {
  // `@unchecked Sendable`: the key path is immutable and was `Sendable` when it was given.
  let keyPath: AnyKeyPath
  let range: Range<Int>?
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

/// The access to one substate of a known type: what builds a mutator's handlers.
@usableFromInline
final class SubstateAccess<State, Substate>: SubstateAccessBase<State>, @unchecked Sendable {
  @usableFromInline let lens: Lens<State, Substate>

  init(lens: Lens<State, Substate>) {
    self.lens = lens
    let range = lens.keyPath.flatMap { MemoryLayout<State>.offset(of: $0) }.map {
      $0..<($0 + MemoryLayout<Substate>.size)
    }
    super.init(
      substateType: Substate.self, keyPath: lens.keyPath, byteRange: range,
      footprint: lens.covered.map { Footprint($0, in: State.self) },
      lensIdentity: lens.identity.map(ObjectIdentifier.init),
      isSubstate: { $0 is Substate })
  }

  /// Runs `body` on the substate in place: through the key path when there is one (a stored
  /// property is changed where it lies, so appending to a large array costs O(1)), otherwise
  /// through the lens's `get` and `set`.
  @inlinable
  func update<E: Error>(_ state: inout State, _ body: (inout Substate) throws(E) -> Void)
    throws(E)
  {
    if let path = lens.keyPath {
      try body(&state[keyPath: path])
    } else {
      var substate = lens.get(state)
      try body(&substate)
      lens.set(&state, substate)
    }
  }

  @inlinable
  func read(_ state: State) -> Substate {
    if let path = lens.keyPath { return state[keyPath: path] }
    return lens.get(state)
  }

  @inlinable
  func handler<A: Action, E: Error>(
    of type: A.Type, _ reduce: @escaping @Sendable (inout Substate, A) throws(E) -> Void
  ) -> Handler<State> {
    Handler(of: A.self, mayThrow: E.self != Never.self) { state, action in
      let action = cast(action, to: A.self)
      try self.update(&state) { substate throws(E) in try reduce(&substate, action) }
    }
  }

  @inlinable
  func handlerOfEveryAction<E: Error>(
    _ reduce: @escaping @Sendable (inout Substate, any Action) throws(E) -> Void
  ) -> Handler<State> {
    Handler(of: nil, mayThrow: E.self != Never.self) { state, action in
      try self.update(&state) { substate throws(E) in try reduce(&substate, action) }
    }
  }

  @inlinable
  func handlerOfEveryAction<E: Error>(
    pure reduce: @escaping @Sendable (State, any Action) throws(E) -> Substate
  ) -> Handler<State> {
    Handler(of: nil, mayThrow: E.self != Never.self) { state, action in
      let substate = try reduce(state, action)
      self.update(&state) { $0 = substate }
    }
  }

  @inlinable
  func handler<A: Action, E: Error>(
    of type: A.Type, pure reduce: @escaping @Sendable (State, A) throws(E) -> Substate
  ) -> Handler<State> {
    Handler(of: A.self, mayThrow: E.self != Never.self) { state, action in
      let substate = try reduce(state, cast(action, to: A.self))
      self.update(&state) { $0 = substate }
    }
  }

  @inlinable
  func handler<A: Action, E: Error>(
    of type: A.Type,
    validate: @escaping @Sendable (Substate, A) throws(E) -> Void,
    reduce: @escaping @Sendable (inout Substate, A) -> Void
  ) -> Handler<State> {
    Handler(
      of: A.self, mayThrow: false,
      check: { state, action in try validate(self.read(state), cast(action, to: A.self)) },
      body: { state, action in
        let action = cast(action, to: A.self)
        self.update(&state) { substate in reduce(&substate, action) }
      })
  }

  @inlinable
  func follower(_ follow: @escaping @Sendable (inout Substate, State) -> Void) -> Handler<State>
  where State: Sendable {
    Handler(of: ReplaceState<State>.self, mayThrow: false) { state, _ in
      let replaced = state
      self.update(&state) { substate in follow(&substate, replaced) }
    }
  }
}

/// One reducer of a mutator: the action type it handles (nil: every action), its optional
/// check, and its change.
@usableFromInline
final class Handler<State>: Sendable {
  let actionType: ObjectIdentifier?
  let actionName: String
  /// Whether `body` may throw, so that the store keeps the old state to roll back to.
  let mayThrow: Bool
  let check: (@Sendable (State, any Action) throws -> Void)?
  let body: @Sendable (inout State, any Action) throws -> Void

  @usableFromInline
  init(
    of type: (any Action.Type)?, mayThrow: Bool,
    check: (@Sendable (State, any Action) throws -> Void)? = nil,
    body: @escaping @Sendable (inout State, any Action) throws -> Void
  ) {
    self.actionType = type.map { ObjectIdentifier($0) }
    self.actionName = type.map { String(describing: $0) } ?? "any Action"
    self.mayThrow = mayThrow
    self.check = check
    self.body = body
  }
}

/// The action as the type its handler takes.
///
/// The store routes an action only to handlers of
/// its own type, so the cast cannot fail; if it did, the routing would be wrong.
///
/// The existential is opened first: a cast from the opened value, whose type the runtime compares
/// with `A` directly, costs about a third of a cast from `any Action`, which also looks the
/// conformance up.
@inlinable
func cast<A: Action>(_ action: any Action, to type: A.Type) -> A {
  func unwrap<Boxed: Action>(_ value: Boxed) -> A? { value as? A }
  guard let typed = unwrap(action) else {
    preconditionFailure("The store routed \(Swift.type(of: action)) to a handler of \(A.self).")
  }
  return typed
}
