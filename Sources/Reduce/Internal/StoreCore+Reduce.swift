public import Observation
public import Synchronization

/// A handler that threw, with the key of its mutator.
@usableFromInline
struct ReducerFailure: Error {
  @usableFromInline let key: MutatorKey
  @usableFromInline let underlying: any Error

  @inlinable
  init(key: MutatorKey, underlying: any Error) {
    self.key = key
    self.underlying = underlying
  }
}

/// How a direct reduction ended.
@usableFromInline
enum DirectOutcome<State> {
  /// The action was not of the kind the direct path serves; the lock is still held.
  case declined
  /// Committed (and observers notified); the turn is still held.
  case committed
  /// Committed and the turn given back in the same hold of the lock.
  case released(State)
}

/// How a reduction ended.
@usableFromInline
enum ReduceOutcome<State> {
  /// The new state is committed and observers were notified; the turn is still held.
  case committed
  /// The new state is committed and the turn given back in the same hold of the lock.
  case released(State)
  /// A handler threw; the old state is back in place.
  case failed(DispatchError)
}

extension StoreCore {
  /// Reduces an action of a type known where the store is called: the fast path of a dispatch
  /// with no middleware, with the handlers called directly.
  ///
  /// The lock is held on entry and released inside.
  @inlinable
  func reduceReleasingLock<A: Action>(_ action: A, releaseTurnWhenDone: Bool)
    -> ReduceOutcome<State>
  {
    let isBatch = A.self == Batch.self
    return reduceReleasingLock(
      actionType: ObjectIdentifier(A.self),
      batch: isBatch ? unsafeBitCast(action, to: Batch.self) : nil,
      releaseTurnWhenDone: releaseTurnWhenDone,
      action: { action },
      apply: { state, route, registry throws(ReducerFailure) in
        try apply(action, route, registry, to: &state)
      })
  }

  /// Reduces the most common dispatch with the least work: no middleware, one handler that
  /// cannot throw, no observer that needs the old state.
  ///
  /// Holding the turn and the lock on entry; returns nil (lock still held) when the action is
  /// not of that kind, or the new state after releasing both.
  @inlinable @inline(__always)
  func reduceSimpleReleasingLock<A: Action>(_ action: A) -> State? {
    let outcome = reduceDirectlyReleasingLock(
      actionType: ObjectIdentifier(A.self), releaseTurnWhenDone: true, action: { action },
      run: { handler, state in
        try unsafeDowncast(handler, to: TypedHandler<State, A>.self).body(&state, action)
      })
    switch outcome {
    case .declined: return nil
    case .released(let state): return state
    case .committed: return drainAndRelease()
    }
  }

  /// Reduces an action that came out of the middleware chain with the least work, when it is
  /// of the same common kind.
  ///
  /// Holding the turn and the lock on entry; returns false (lock still held) when the action is
  /// not of that kind, or true after reducing and notifying, with the lock released and the turn
  /// still held.
  @inlinable @inline(__always)
  func reduceErasedSimpleReleasingLock(_ action: any Action, _ actionType: ObjectIdentifier)
    -> Bool
  {
    let outcome = reduceDirectlyReleasingLock(
      actionType: actionType, releaseTurnWhenDone: false, action: { action },
      run: { handler, state in try handler.erasedBody(&state, action) })
    if case .declined = outcome { return false }
    return true
  }

  /// The direct reduction both paths above share: one handler that cannot throw, run in place
  /// through `run`, no copy of the old state.
  ///
  /// Holding the turn and the lock on entry. Declines (lock still held) when the action is not
  /// of that kind. Otherwise commits and notifies; with `releaseTurnWhenDone` and nobody to
  /// notify, gives the turn up in the same hold of the lock as the commit.
  @inlinable @inline(__always)
  func reduceDirectlyReleasingLock(
    actionType: ObjectIdentifier,
    releaseTurnWhenDone: Bool,
    action: () -> any Action,
    run: (HandlerBox<State>, inout State) throws -> Void
  ) -> DirectOutcome<State> {
    let observers = fields.pointee.observers
    guard !fields.pointee.closed, !reducing.load(ordering: .relaxed),
      observers?.observers.needOldState(stateIsEquatable: isEqual != nil) != true
    else { return .declined }
    let route = fields.pointee.registry.route(for: actionType)
    guard route.steps.count == 1, !route.mayThrow else { return .declined }
    // The route, which this function keeps alive, holds the handler: it is used unretained.
    let handler = Unmanaged.passUnretained(route.steps[0].handler)
    guard handler._withUnsafeGuaranteedRef({ $0.actionType != nil }) else { return .declined }
    let hooks = hooksInUseLocked()
    reducing.store(true, ordering: .relaxed)
    lock.unlock()
    if let hooks { willReduce(hooks: hooks) }
    // The route said the handler cannot throw; the catch only satisfies the type checker.
    withExtendedLifetime(route) {
      do {
        try handler._withUnsafeGuaranteedRef { try run($0, &stateStorage.pointee) }
      } catch {
        preconditionFailure("A handler declared throws(Never) threw \(error)")
      }
    }
    // A hook runs after the commit while this thread still holds the turn.
    let notifying = observers != nil || observationEnabled.load(ordering: .relaxed) || hooks != nil
    if releaseTurnWhenDone && !notifying {
      if let state = commitReleasingIdleTurn() { return .released(state) }
    } else {
      commit()
    }
    if notifying {
      notify(observers?.observers, action: action, old: nil, touched: route.touched)
      if let hooks { didReduce(hooks: hooks, action: action) }
    }
    return .committed
  }

  /// The chain's reduction hooks, for the reduction the turn holder is about to run, as the
  /// address of their ``ReductionHooks``; the lock must be held.
  ///
  /// Returned unretained: `reductionHooksInUse`, which only the turn holder assigns, keeps them
  /// alive until its next reduction, whatever other threads do to the chain meanwhile.
  @inlinable @inline(__always)
  func hooksInUseLocked() -> UnsafeRawPointer? {
    if fields.pointee.reductionHooksInUse !== fields.pointee.reductionHooks {
      fields.pointee.reductionHooksInUse = fields.pointee.reductionHooks
    }
    return fields.pointee.reductionHooksInUse.map {
      UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque())
    }
  }

  /// Calls the `willReduce` of the hooks ``hooksInUseLocked()`` returned.
  @inlinable
  func willReduce(hooks: UnsafeRawPointer) {
    Unmanaged<ReductionHooks<State>>.fromOpaque(hooks)._withUnsafeGuaranteedRef {
      $0.willReduce(stateStorage, store: identifier)
    }
  }

  /// Calls the `didReduce` of the hooks ``hooksInUseLocked()`` returned.
  @inlinable
  func didReduce(hooks: UnsafeRawPointer, action: () -> any Action) {
    Unmanaged<ReductionHooks<State>>.fromOpaque(hooks)._withUnsafeGuaranteedRef {
      $0.didReduce(stateStorage, action: action, store: identifier)
    }
  }

  /// Commits an in-place reduction and, when no work is queued, gives the turn up in the same
  /// hold of the lock.
  ///
  /// - Returns: The committed state when the turn was given up; nil when queued work keeps it.
  @inlinable @inline(__always)
  func commitReleasingIdleTurn() -> State? {
    lock.lock()
    commitLocked()
    guard !hasPendingLocked else {
      lock.unlock()
      return nil
    }
    let state = stateStorage.pointee
    releaseTurnLocked()
    lock.unlock()
    return state
  }

  /// Reduces an action known only as `any Action`, of the type `actionType`: one that came out
  /// of the middleware chain.
  ///
  /// The lock is held on entry and released inside.
  @inlinable
  func reduceErasedReleasingLock(_ action: any Action, _ actionType: ObjectIdentifier)
    -> ReduceOutcome<State>
  {
    return reduceReleasingLock(
      actionType: actionType,
      batch: actionType == ObjectIdentifier(Batch.self) ? action as? Batch : nil,
      releaseTurnWhenDone: false,
      action: { action },
      apply: { state, route, registry throws(ReducerFailure) in
        try applyErased(action, actionType, route, registry, to: &state)
      })
  }

  /// Reduces one action that came out of the chain, commits it and notifies observers.
  ///
  /// The lock is held on entry and released inside. The state is taken out of the store and
  /// reduced on the stack, so a handler that cannot throw mutates uniquely referenced storage in
  /// place. A copy of the old state is kept only when a handler may throw (to roll back) or an
  /// observer needs it. With `releaseTurnWhenDone`, when no observer needs telling, the commit
  /// and the release of the turn share one hold of the lock.
  @inlinable @inline(__always)
  func reduceReleasingLock(
    actionType: ObjectIdentifier,
    batch: Batch?,
    releaseTurnWhenDone: Bool,
    action: () -> any Action,
    apply: (inout State, Route<State>?, Registry<State>) throws(ReducerFailure) -> Bool
  ) -> ReduceOutcome<State> {
    if fields.pointee.closed {
      lock.unlock()
      return .committed
    }
    let registry = fields.pointee.registry
    let mayThrow: Bool
    var route: Route<State>?
    if actionType == replaceStateType {
      mayThrow = false
    } else if let batch {
      mayThrow = Self.mayThrow(batch, registry)
    } else {
      let typed = registry.route(for: actionType)
      route = typed
      if typed.steps.isEmpty {
        if releaseTurnWhenDone && !hasPendingLocked {
          let state = committedStateLocked()
          releaseTurnLocked()
          lock.unlock()
          return .released(state)
        }
        lock.unlock()
        return .committed
      }
      mayThrow = typed.mayThrow
    }
    let observers = fields.pointee.observers
    let keepOld =
      mayThrow || (observers?.observers.needOldState(stateIsEquatable: isEqual != nil) ?? false)
    precondition(
      !reducing.load(ordering: .relaxed),
      "The store's state is already being reduced; reducers must not dispatch.")
    reducing.store(true, ordering: .relaxed)
    let old: State? = keepOld ? stateStorage.pointee : nil
    let hooks = hooksInUseLocked()
    lock.unlock()
    if let hooks { willReduce(hooks: hooks) }

    // Holding the turn and with `reducing` set, this thread alone touches the state: the
    // handlers change it in place, through the pointer, with no lock held.
    let changed: Bool
    do {
      changed = try apply(&stateStorage.pointee, route, registry)
    } catch {
      // Only a handler that may throw gets here, and then `old` was kept.
      lock.lock()
      if let old { stateStorage.pointee = old }
      commitLocked()
      lock.unlock()
      return .failed(.reducerFailed(key: error.key, action: action(), underlying: error.underlying))
    }
    // A hook runs after the commit while this thread still holds the turn.
    let notifying =
      changed
      && (observers != nil || observationEnabled.load(ordering: .relaxed) || hooks != nil)
    if !notifying && releaseTurnWhenDone {
      if let state = commitReleasingIdleTurn() { return .released(state) }
    } else {
      commit()
    }
    if notifying {
      // Holding the turn, nobody else changes the state: read it without the lock.
      notify(observers?.observers, action: action, old: old, touched: route?.touched)
      if let hooks { didReduce(hooks: hooks, action: action) }
    }
    return .committed
  }

  /// Applies an action of a statically known type; returns whether any handler ran (or the
  /// state was replaced).
  @inlinable
  func apply<A: Action>(
    _ action: A, _ route: Route<State>?, _ registry: Registry<State>, to state: inout State
  ) throws(ReducerFailure) -> Bool {
    let actionType = ObjectIdentifier(A.self)
    if actionType == replaceStateType {
      state = unsafeBitCast(action, to: ReplaceState<State>.self).state
      return true
    }
    if A.self == Batch.self {
      return try applyBatch(unsafeBitCast(action, to: Batch.self), registry, to: &state)
    }
    let steps = (route ?? registry.route(for: actionType)).steps
    for step in steps {
      do {
        if step.handler.actionType == nil {
          try unsafeDowncast(step.handler, to: AnyActionHandler<State>.self).body(&state, action)
        } else {
          try unsafeDowncast(step.handler, to: TypedHandler<State, A>.self).body(&state, action)
        }
      } catch {
        throw ReducerFailure(key: step.key, underlying: error)
      }
    }
    return !steps.isEmpty
  }

  /// Applies an action known only as `any Action`, of dynamic type `actionType`.
  @inlinable
  func applyErased(
    _ action: any Action, _ actionType: ObjectIdentifier, _ route: Route<State>?,
    _ registry: Registry<State>, to state: inout State
  ) throws(ReducerFailure) -> Bool {
    if actionType == replaceStateType {
      guard let replacement = action as? ReplaceState<State> else { return false }
      state = replacement.state
      return true
    }
    if actionType == ObjectIdentifier(Batch.self) {
      guard let batch = action as? Batch else { return false }
      return try applyBatch(batch, registry, to: &state)
    }
    let steps = (route ?? registry.route(for: actionType)).steps
    for step in steps {
      do {
        try step.handler.erasedBody(&state, action)
      } catch {
        throw ReducerFailure(key: step.key, underlying: error)
      }
    }
    return !steps.isEmpty
  }

  /// Applies the actions of a batch in order on one state.
  @inlinable
  func applyBatch(_ batch: Batch, _ registry: Registry<State>, to state: inout State)
    throws(ReducerFailure) -> Bool
  {
    var ran = false
    for inner in batch.actions {
      let innerType = ObjectIdentifier(type(of: inner))
      if try applyErased(inner, innerType, nil, registry, to: &state) { ran = true }
    }
    return ran
  }

  /// Whether any handler a batch reaches may throw.
  @usableFromInline
  static func mayThrow(_ batch: Batch, _ registry: Registry<State>) -> Bool {
    batch.actions.contains { action in
      if let inner = action as? Batch { return mayThrow(inner, registry) }
      return registry.route(for: ObjectIdentifier(type(of: action))).mayThrow
    }
  }

  /// Tells observers of a committed action, holding the turn, in subscription order.
  ///
  /// Key-path groups outside `touched`, the bytes of the state the action's mutators may have
  /// changed (nil: unknown), are not even compared.
  @inlinable
  func notify(
    _ observers: Observers<State>?, action: () -> any Action, old: State?,
    touched: [Range<Int>]?
  ) {
    // The turn holder alone changes the state, so it reads it in place without the lock.
    notify(observers, action: action, old: old, touched: touched, state: stateStorage)
  }

  @inlinable
  func notify(
    _ observers: Observers<State>?, action: () -> any Action, old: State?,
    touched: [Range<Int>]?, state: UnsafeMutablePointer<State>
  ) {
    if let old, let isEqual, isEqual(old, state.pointee) { return }
    if observationEnabled.load(ordering: .relaxed), let store {
      registrar.withMutation(of: store, keyPath: \.state) {}
    }
    guard let observers, !observers.isEmpty else { return }
    var first: [Sink<State>]?
    /// The key-path group `first` belongs to, if it does.
    var firstGroup: ScopedGroup<State>?
    var more: [[Sink<State>]] = []
    func due(_ sinks: [Sink<State>]) {
      if first == nil { first = sinks } else { more.append(sinks) }
    }
    if !observers.whole.isEmpty { due(observers.whole) }
    if !observers.changes.isEmpty, old != nil { due(observers.changes) }
    for group in observers.groups
    where group.mayHaveChanged(touched) && group.refresh(UnsafePointer(state)) {
      if first == nil { firstGroup = group }
      due(group.sinks)
    }
    guard let first else { return }
    if more.isEmpty, let firstGroup {
      // One key path changed and nobody else is due: its group calls its observers with the
      // value it read once, each closure typed for it.
      firstGroup.deliver(first)
      return
    }
    var current: State?
    var change: StateChange<State>?
    func deliver(_ sink: Sink<State>) {
      guard !sink.flag.isCancelled else { return }
      switch sink.delivery {
      case .state(let observer):
        let value = current ?? state.pointee
        current = value
        observer(value)
      case .change(let observer):
        if let old {
          let value =
            change ?? StateChange(action: action(), oldState: old, newState: state.pointee)
          change = value
          observer(value)
        }
      case .value(let observer):
        observer()
      }
    }
    if more.isEmpty {
      first.withUnsafeBufferPointer { sinks in
        for sink in sinks { deliver(sink) }
      }
    } else {
      Self.inSubscriptionOrder([first] + more, deliver)
    }
  }

  /// Visits the sinks of several lists, each sorted by id, in increasing id order.
  @inlinable
  static func inSubscriptionOrder(_ lists: [[Sink<State>]], _ body: (Sink<State>) -> Void) {
    if lists.count == 1 {
      for sink in lists[0] { body(sink) }
      return
    }
    var positions = [Int](repeating: 0, count: lists.count)
    while true {
      var best: Int?
      for index in lists.indices where positions[index] < lists[index].count {
        let candidate = lists[index][positions[index]].id
        if let current = best, lists[current][positions[current]].id <= candidate { continue }
        best = index
      }
      guard let index = best else { return }
      body(lists[index][positions[index]])
      positions[index] += 1
    }
  }
}
