/// What a ``ScopedStore`` does, erased over the type of the root store's state.
@usableFromInline
protocol ScopeEngine<State>: Sendable {
  associatedtype State: Sendable

  /// The substate now.
  var current: State { get }

  /// Dispatches into the root store; returns the substate after it.
  func dispatch(_ action: any Action) -> Result<State, DispatchError>

  /// Dispatches actions one by one into the root store; returns the substate after them.
  func dispatch(_ actions: [any Action]) -> Result<State, DispatchError>

  /// Sends into the root store from a task; returns the substate after it.
  func send(_ action: any Action) async -> Result<State, DispatchError>

  /// Observes the substate as a whole.
  func subscribe(
    initial: Bool, finish: (@Sendable () -> Void)?, _ observer: @escaping @Sendable (State) -> Void
  ) -> Subscription

  /// Observes a value of the substate at a key path.
  func subscribe<Value: Equatable & Sendable>(
    to keyPath: KeyPath<State, Value> & Sendable, initial: Bool,
    finish: (@Sendable () -> Void)?, _ observer: @escaping @Sendable (Value) -> Void
  ) -> Subscription

  /// Observes a value derived from the substate.
  func subscribe<Value: Sendable>(
    selecting select: @escaping @Sendable (State) -> Value,
    by isDuplicate: @escaping @Sendable (Value, Value) -> Bool, initial: Bool,
    _ observer: @escaping @Sendable (Value) -> Void
  ) -> Subscription

  /// A scope of a part of this scope's substate.
  func scope<Child: Sendable>(
    _ keyPath: KeyPath<State, Child> & Sendable,
    isDuplicate: (@Sendable (Child, Child) -> Bool)?
  ) -> any ScopeEngine<Child>

  /// A read-only scope of a value derived from this scope's substate.
  func scope<Child: Sendable>(
    deriving derive: @escaping @Sendable (State) -> Child,
    isDuplicate: (@Sendable (Child, Child) -> Bool)?
  ) -> any ScopeEngine<Child>
}

/// A scope of a store whose state is `Root`: a key path into it, or a closure deriving from it.
///
/// `@unchecked Sendable`: every property is an immutable `let`; `path` is `Sendable`, or
/// appended from `Sendable` key paths, which `appending(path:)` does not say in its type.
final class RootScope<Root: Sendable, State: Sendable>: ScopeEngine, @unchecked Sendable {
  let store: Store<Root>
  /// The substate's path from the root, when the scope is made of key paths: observers of one
  /// path share one comparison, and skip actions whose mutators did not touch its bytes.
  let path: KeyPath<Root, State>?
  let derive: @Sendable (Root) -> State
  /// Whether two substates are the same (no call); nil: every change of what the scope reads
  /// may have changed it.
  let isDuplicate: (@Sendable (State, State) -> Bool)?
  /// The bytes of `Root` the substate occupies, for a stored-property path.
  let range: Range<Int>?
  /// Reads the substate from the root state at an address: through the key path when there is
  /// one, which reads in place, without a copy of the root state.
  let read: @Sendable (UnsafePointer<Root>) -> State

  init(
    store: Store<Root>, path: KeyPath<Root, State>?,
    derive: @escaping @Sendable (Root) -> State,
    isDuplicate: (@Sendable (State, State) -> Bool)?
  ) {
    self.store = store
    self.path = path
    self.derive = derive
    self.isDuplicate = isDuplicate
    if let path {
      let sendable = SendablePath(path)
      let offset = MemoryLayout<Root>.offset(of: path)
      self.read = { readValue(at: sendable.path, offset: offset, in: $0) }
    } else {
      self.read = { derive($0.pointee) }
    }
    self.range = path.flatMap { MemoryLayout<Root>.offset(of: $0) }.map {
      $0..<($0 + MemoryLayout<State>.size)
    }
  }

  var current: State { derive(store.core.readState()) }

  // The substate is read in the root store's turn (`returning:`): a root state handed back and
  // kept until it is mapped would make the next action of another thread copy what it changes.
  func dispatch(_ action: any Action) -> Result<State, DispatchError> {
    store.dispatch(action, returning: derive)
  }

  func dispatch(_ actions: [any Action]) -> Result<State, DispatchError> {
    store.dispatch(actions).map(derive)
  }

  func send(_ action: any Action) async -> Result<State, DispatchError> {
    await store.send(action, returning: derive)
  }

  func subscribe(
    initial: Bool, finish: (@Sendable () -> Void)?, _ observer: @escaping @Sendable (State) -> Void
  ) -> Subscription {
    let read = read
    let isDuplicate = isDuplicate ?? { _, _ in false }
    return store.core.subscribe(
      selecting: { root, last in
        let value = read(root)
        if isDuplicate(last, value) { return false }
        last = value
        return true
      },
      current: derive, shareKey: path.map { .scope($0) }, range: range, initial: initial,
      finish: finish, observer)
  }

  func subscribe<Value: Equatable & Sendable>(
    to keyPath: KeyPath<State, Value> & Sendable, initial: Bool,
    finish: (@Sendable () -> Void)?, _ observer: @escaping @Sendable (Value) -> Void
  ) -> Subscription {
    if let path {
      return store.core.subscribe(
        to: path.appending(path: keyPath), initial: initial, finish: finish, observer)
    }
    let derive = derive
    return store.core.subscribe(
      selecting: { root, last in
        let value = derive(root.pointee)[keyPath: keyPath]
        if value == last { return false }
        last = value
        return true
      },
      current: { derive($0)[keyPath: keyPath] }, shareKey: nil, range: nil, initial: initial,
      finish: finish, observer)
  }

  func subscribe<Value: Sendable>(
    selecting select: @escaping @Sendable (State) -> Value,
    by isDuplicate: @escaping @Sendable (Value, Value) -> Bool, initial: Bool,
    _ observer: @escaping @Sendable (Value) -> Void
  ) -> Subscription {
    let read = read
    let derive = derive
    return store.core.subscribe(
      selecting: { root, last in
        let value = select(read(root))
        if isDuplicate(last, value) { return false }
        last = value
        return true
      },
      current: { select(derive($0)) }, shareKey: nil, range: range, initial: initial, observer)
  }

  func scope<Child: Sendable>(
    _ keyPath: KeyPath<State, Child> & Sendable,
    isDuplicate: (@Sendable (Child, Child) -> Bool)?
  ) -> any ScopeEngine<Child> {
    guard let path else {
      let derive = derive
      return RootScope<Root, Child>(
        store: store, path: nil, derive: { derive($0)[keyPath: keyPath] },
        isDuplicate: isDuplicate)
    }
    let composed = SendablePath(path.appending(path: keyPath))
    return RootScope<Root, Child>(
      store: store, path: composed.path, derive: { $0[keyPath: composed.path] },
      isDuplicate: isDuplicate)
  }

  func scope<Child: Sendable>(
    deriving child: @escaping @Sendable (State) -> Child,
    isDuplicate: (@Sendable (Child, Child) -> Bool)?
  ) -> any ScopeEngine<Child> {
    let derive = derive
    return RootScope<Root, Child>(
      store: store, path: nil, derive: { child(derive($0)) }, isDuplicate: isDuplicate)
  }
}

/// A key path appended from `Sendable` key paths.
///
/// `@unchecked Sendable`: `appending(path:)` returns a plain `KeyPath`; made of `Sendable` key
/// paths (immutable values with `Sendable` components), the result is `Sendable` too.
struct SendablePath<Root, Value>: @unchecked Sendable {
  let path: KeyPath<Root, Value>

  init(_ path: KeyPath<Root, Value>) {
    self.path = path
  }
}
