public import Observation

/// A store-like view of one part of a store's state, for a child feature.
///
/// It reads and observes only its substate, and dispatches into the store it was scoped from.
/// A child feature's code and tests take a `ScopedStore<Child>` and never see the app's state:
///
/// ```swift
/// func showProfile(_ profile: ScopedStore<Profile>) -> Subscription {
///   profile.dispatch(ProfileAction.appeared)
///   return profile.subscribe(to: \.name) { name in print("name:", name) }
/// }
/// showProfile(store.scope(\.profile))
/// ```
///
/// Observers of a scope are called only when its substate changed: by `==` for an `Equatable`
/// substate. A scope made of stored-property key paths costs nothing for the actions whose
/// mutators do not touch its bytes, and every observer of one scoped path shares one
/// comparison. `ScopedStore` conforms to `Observable`: reading ``state`` inside
/// `withObservationTracking` (or a SwiftUI view) tracks the substate alone.
public final class ScopedStore<State: Sendable>: Sendable, Observable {
  let scope: any ScopeSource<State>
  private let registrar = ObservationRegistrar()
  /// Tells Observation of the substate's changes, from the first read of ``state`` on.
  private let tracking = Locked<Subscription?>(nil)

  init(scope: any ScopeSource<State>) {
    self.scope = scope
  }

  /// Scopes a whole store: for a child feature's tests, which build a store of the child's
  /// state and hand the feature its scope.
  ///
  /// - Parameter store: The store.
  public convenience init(_ store: Store<State>) {
    self.init(scope: Scope(store: store, path: ComposedPath(\State.self), derive: { $0 }))
  }

  /// The substate now.
  ///
  /// Reading it inside `withObservationTracking` (or a SwiftUI view) tracks it: trackers are
  /// told when the substate changed (for a substate that is not `Equatable`, after every
  /// action that may have changed it).
  public var state: State {
    startTracking()
    registrar.access(self, keyPath: \.state)
    return scope.current
  }

  private func startTracking() {
    guard tracking.withLock({ $0 == nil }) else { return }
    let isDuplicate = equality(of: State.self)
    let subscription = scope.observeWhole(by: isDuplicate, initial: false, finish: nil) {
      [weak self] _ in
      guard let self else { return }
      self.registrar.withMutation(of: self, keyPath: \.state) {}
    }
    let extra = tracking.withLock { current -> Subscription? in
      guard current == nil else { return subscription }
      current = subscription
      return nil
    }
    extra?.cancel()
  }

  // MARK: Dispatching

  /// Dispatches an action into the store this scope was made from.
  ///
  /// - Parameter action: The action.
  /// - Returns: The substate after the action and its follow-ups, or why the action failed.
  @discardableResult
  public func dispatch(_ action: some Action) -> Result<State, DispatchError> {
    scope.dispatch(action)
  }

  /// Dispatches actions one after another into the store this scope was made from.
  ///
  /// - Parameter actions: The actions, in order.
  /// - Returns: The substate after the last action, or the first failure.
  @discardableResult
  public func dispatch(_ actions: [any Action]) -> Result<State, DispatchError> {
    scope.dispatch(actions)
  }

  /// Dispatches an action from a task, suspending instead of blocking while the store is busy.
  ///
  /// - Parameter action: The action.
  /// - Returns: The substate after the action and its follow-ups, or why the action failed.
  @discardableResult
  public func send(_ action: some Action) async -> Result<State, DispatchError> {
    await scope.send(action)
  }

  // MARK: Observing

  /// Observes the substate.
  ///
  /// - Parameters:
  ///   - initial: Whether the observer is called at once with the current substate.
  ///   - observer: Called with the substate, then after every action that changed it.
  /// - Returns: The subscription; the observer stops when it is cancelled or deinitialised.
  public func subscribe(initial: Bool = true, _ observer: @escaping @Sendable (State) -> Void)
    -> Subscription
  {
    scope.observeWhole(by: equality(of: State.self), initial: initial, finish: nil, observer)
  }

  /// Observes one value of the substate.
  ///
  /// - Parameters:
  ///   - keyPath: The value's path in the substate.
  ///   - initial: Whether the observer is called at once with the current value.
  ///   - observer: Called with each new value.
  /// - Returns: The subscription; the observer stops when it is cancelled or deinitialised.
  public func subscribe<Value: Equatable & Sendable>(
    to keyPath: KeyPath<State, Value> & Sendable,
    initial: Bool = true,
    _ observer: @escaping @Sendable (Value) -> Void
  ) -> Subscription {
    scope.observe(keyPath, initial: initial, observer)
  }

  /// Observes a value derived from the substate, called when it changed by `==`.
  ///
  /// - Parameters:
  ///   - select: Derives the value from the substate.
  ///   - initial: Whether the observer is called at once with the current value.
  ///   - observer: Called with each new value.
  /// - Returns: The subscription; the observer stops when it is cancelled or deinitialised.
  public func subscribe<Value: Equatable & Sendable>(
    to select: @escaping @Sendable (State) -> Value,
    initial: Bool = true,
    _ observer: @escaping @Sendable (Value) -> Void
  ) -> Subscription {
    scope.observe(select, by: ==, initial: initial, observer)
  }

  /// Observes a value derived from the substate, called when it changed by your comparison.
  ///
  /// - Parameters:
  ///   - select: Derives the value from the substate.
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
    scope.observe(select, by: isDuplicate, initial: initial, observer)
  }

  /// The substate as an async sequence: the current substate, then each new one.
  ///
  /// A slow consumer gets the newest value. The sequence ends when the root store is
  /// deinitialised, or when the iterating task is cancelled.
  public var states: StateSequence<State> {
    let scope = scope
    let isDuplicate = equality(of: State.self)
    return StateSequence(isDuplicate: isDuplicate) { continuation in
      scope.observeWhole(by: isDuplicate, initial: true, finish: { continuation.finish() }) {
        continuation.yield($0)
      }
    }
  }

  /// One value of the substate as an async sequence: the current value, then each new one.
  ///
  /// - Parameter keyPath: The value's path in the substate.
  /// - Returns: The sequence.
  public func states<Value: Equatable & Sendable>(
    of keyPath: KeyPath<State, Value> & Sendable
  ) -> StateSequence<Value> {
    let scope = scope
    let isDuplicate: @Sendable (Value, Value) -> Bool = { $0 == $1 }
    return StateSequence(isDuplicate: isDuplicate) { continuation in
      scope.observe(keyPath, initial: true, finish: { continuation.finish() }) {
        continuation.yield($0)
      }
    }
  }

  // MARK: Scoping further

  /// A scope of a part of this substate.
  ///
  /// - Parameter keyPath: The part's path in this substate.
  /// - Returns: The scoped store.
  public func scope<Child: Sendable>(_ keyPath: KeyPath<State, Child> & Sendable)
    -> ScopedStore<Child>
  {
    ScopedStore<Child>(scope: scope.scoped(keyPath))
  }

  /// A read-only scope of a value derived from this substate.
  ///
  /// - Parameter derive: Derives the child's state from this substate; it runs after every
  ///   action that may have changed this substate, and must not read the store.
  /// - Returns: The scoped store.
  public func scope<Child: Sendable>(_ derive: @escaping @Sendable (State) -> Child)
    -> ScopedStore<Child>
  {
    ScopedStore<Child>(scope: scope.scoped(derive))
  }
}

extension Store {
  /// A scope of one part of the state, for a child feature: it reads and observes only that
  /// part, and dispatches into this store.
  ///
  /// - Parameter keyPath: The part's path.
  /// - Returns: The scoped store.
  public func scope<Child: Sendable>(_ keyPath: KeyPath<State, Child> & Sendable)
    -> ScopedStore<Child>
  {
    ScopedStore(
      scope: Scope(store: self, path: ComposedPath(keyPath), derive: { $0[keyPath: keyPath] }))
  }

  /// A read-only scope of a value derived from the state.
  ///
  /// - Parameter derive: Derives the child's state; it runs after every action that reached a
  ///   handler, and must not read the store.
  /// - Returns: The scoped store.
  public func scope<Child: Sendable>(_ derive: @escaping @Sendable (State) -> Child)
    -> ScopedStore<Child>
  {
    ScopedStore(scope: Scope(store: self, path: nil, range: nil, derive: derive))
  }
}

/// What a scoped store reads, observes and dispatches through: its root store and the way from
/// the root's state to its own.
protocol ScopeSource<State>: Sendable {
  associatedtype State: Sendable

  var current: State { get }
  func dispatch(_ action: any Action) -> Result<State, DispatchError>
  func dispatch(_ actions: [any Action]) -> Result<State, DispatchError>
  func send(_ action: any Action) async -> Result<State, DispatchError>
  func observe<Value: Sendable>(
    _ select: @escaping @Sendable (State) -> Value,
    by isDuplicate: (@Sendable (Value, Value) -> Bool)?, initial: Bool,
    finish: (@Sendable () -> Void)?, _ observer: @escaping @Sendable (Value) -> Void
  ) -> Subscription
  func observe<Value: Equatable & Sendable>(
    _ keyPath: KeyPath<State, Value> & Sendable, initial: Bool,
    finish: (@Sendable () -> Void)?, _ observer: @escaping @Sendable (Value) -> Void
  ) -> Subscription
  func observeWhole(
    by isDuplicate: (@Sendable (State, State) -> Bool)?, initial: Bool,
    finish: (@Sendable () -> Void)?, _ observer: @escaping @Sendable (State) -> Void
  ) -> Subscription
  func scoped<Child: Sendable>(_ keyPath: KeyPath<State, Child> & Sendable)
    -> any ScopeSource<Child>
  func scoped<Child: Sendable>(_ derive: @escaping @Sendable (State) -> Child)
    -> any ScopeSource<Child>
  /// A value derived from one part of the substate: observed as that part is.
  func scoped<Part: Sendable, Child: Sendable>(
    through keyPath: KeyPath<State, Part> & Sendable,
    _ derive: @escaping @Sendable (Part) -> Child
  ) -> any ScopeSource<Child>
}

extension ScopeSource {
  func observe<Value: Sendable>(
    _ select: @escaping @Sendable (State) -> Value,
    by isDuplicate: (@Sendable (Value, Value) -> Bool)?, initial: Bool,
    _ observer: @escaping @Sendable (Value) -> Void
  ) -> Subscription {
    observe(select, by: isDuplicate, initial: initial, finish: nil, observer)
  }

  func observe<Value: Equatable & Sendable>(
    _ keyPath: KeyPath<State, Value> & Sendable, initial: Bool,
    _ observer: @escaping @Sendable (Value) -> Void
  ) -> Subscription {
    observe(keyPath, initial: initial, finish: nil, observer)
  }
}

/// A part of a root store's state.
///
/// It is reached by a key path (which its observers use to share
/// reads and to be skipped by actions that change other parts) or derived by a closure.
/// Scoping a scope composes the two.
struct Scope<Root: Sendable, State: Sendable>: ScopeSource {
  let store: Store<Root>
  /// The path from the root's state, when the scope is made of key paths only.
  let path: ComposedPath<Root, State>?
  /// The bytes of the root's state the substate is read from, when they are known: observers
  /// are skipped by actions whose mutators touch other bytes.
  let range: Range<Int>?
  let derive: @Sendable (Root) -> State

  init(
    store: Store<Root>, path: ComposedPath<Root, State>, derive: @escaping @Sendable (Root) -> State
  ) {
    self.init(store: store, path: path, range: byteRange(of: path.path), derive: derive)
  }

  init(
    store: Store<Root>, path: ComposedPath<Root, State>?, range: Range<Int>?,
    derive: @escaping @Sendable (Root) -> State
  ) {
    self.store = store
    self.path = path
    self.range = range
    self.derive = derive
  }

  var current: State { derive(store.core.readState()) }

  func dispatch(_ action: any Action) -> Result<State, DispatchError> {
    store.core.dispatch(.action(action, isFallback: false), returning: derive)
  }

  func dispatch(_ actions: [any Action]) -> Result<State, DispatchError> {
    store.dispatch(actions).map(derive)
  }

  func send(_ action: any Action) async -> Result<State, DispatchError> {
    await store.core.send(.action(action, isFallback: false), returning: derive)
  }

  func observe<Value: Sendable>(
    _ select: @escaping @Sendable (State) -> Value,
    by isDuplicate: (@Sendable (Value, Value) -> Bool)?, initial: Bool,
    finish: (@Sendable () -> Void)?, _ observer: @escaping @Sendable (Value) -> Void
  ) -> Subscription {
    let derive = derive
    return store.core.observe(
      { select(derive($0)) }, isDuplicate: isDuplicate, range: range, shareKey: nil,
      initial: initial, finish: finish, observer)
  }

  func observe<Value: Equatable & Sendable>(
    _ keyPath: KeyPath<State, Value> & Sendable, initial: Bool,
    finish: (@Sendable () -> Void)?, _ observer: @escaping @Sendable (Value) -> Void
  ) -> Subscription {
    guard let path else {
      return observe({ $0[keyPath: keyPath] }, by: ==, initial: initial, finish: finish, observer)
    }
    let full = path.appending(keyPath)
    return store.core.observe(
      { $0[keyPath: full.path] }, isDuplicate: { $0 == $1 }, range: byteRange(of: full.path),
      shareKey: full.path as AnyKeyPath, initial: initial, finish: finish, observer)
  }

  /// The whole substate: subscribers of one key-path scope share one read and one comparison.
  func observeWhole(
    by isDuplicate: (@Sendable (State, State) -> Bool)?, initial: Bool,
    finish: (@Sendable () -> Void)?, _ observer: @escaping @Sendable (State) -> Void
  ) -> Subscription {
    guard let path else {
      return observe({ $0 }, by: isDuplicate, initial: initial, finish: finish, observer)
    }
    return store.core.observe(
      { $0[keyPath: path.path] }, isDuplicate: isDuplicate, range: byteRange(of: path.path),
      shareKey: path.path as AnyKeyPath, initial: initial, finish: finish, observer)
  }

  func scoped<Child: Sendable>(_ keyPath: KeyPath<State, Child> & Sendable)
    -> any ScopeSource<Child>
  {
    let derive = derive
    guard let path = path?.appending(keyPath) else {
      return Scope<Root, Child>(
        store: store, path: nil, range: range, derive: { derive($0)[keyPath: keyPath] })
    }
    return Scope<Root, Child>(store: store, path: path, derive: { derive($0)[keyPath: keyPath] })
  }

  func scoped<Child: Sendable>(_ derive: @escaping @Sendable (State) -> Child)
    -> any ScopeSource<Child>
  {
    let parent = self.derive
    return Scope<Root, Child>(
      store: store, path: nil, range: range, derive: { derive(parent($0)) })
  }

  func scoped<Part: Sendable, Child: Sendable>(
    through keyPath: KeyPath<State, Part> & Sendable,
    _ derive: @escaping @Sendable (Part) -> Child
  ) -> any ScopeSource<Child> {
    let parent = self.derive
    let partRange = path.map { byteRange(of: $0.appending(keyPath).path) } ?? range
    return Scope<Root, Child>(
      store: store, path: nil, range: partRange, derive: { derive(parent($0)[keyPath: keyPath]) })
  }
}

/// A key path from a root store's state, composed of the `Sendable` key paths of nested scopes.
///
/// `@unchecked Sendable`: `appending(path:)` returns a plain `KeyPath`, but a path composed of
/// `Sendable` key paths captures nothing that is not `Sendable`.
struct ComposedPath<Root, Value>: @unchecked Sendable {
  let path: KeyPath<Root, Value>

  init(_ path: KeyPath<Root, Value> & Sendable) {
    self.path = path
  }

  private init(composed path: KeyPath<Root, Value>) {
    self.path = path
  }

  func appending<Child>(_ next: KeyPath<Value, Child> & Sendable) -> ComposedPath<Root, Child> {
    ComposedPath<Root, Child>(composed: path.appending(path: next))
  }
}
