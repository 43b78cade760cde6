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

/// Shows a decided change to the middleware that asked, and may refuse it: see
/// `ReductionWatch.willCommit`.
@usableFromInline
typealias WillCommit<State> = @Sendable (PendingChange) throws(DispatchError) -> Void

extension Batch {
  /// Whether the batch, or a batch inside it, replaces the whole state of a `State` store.
  @inlinable
  func replacesState<State: Sendable>(of type: State.Type) -> Bool {
    actions.contains { action in
      action is ReplaceState<State> || (action as? Batch)?.replacesState(of: State.self) == true
    }
  }
}

extension StoreCore {
  /// Reduces an action that left the chain: the last step of every flow, holding the turn.
  @inlinable
  func reduce(_ action: any Action, _ flow: Flow<State>) throws(DispatchError) {
    if flow.plan.actionType == ObjectIdentifier(Batch.self), let batch = action as? Batch {
      try apply(batch, flow)
    } else if flow.batch != nil {
      try stage(action, flow)
    } else {
      try commit(action, flow)
    }
  }

  /// Reduces one action on its own, commits it and tells the observers and the watches.
  ///
  /// The handlers change the state in place, so a handler that cannot throw appends to a large
  /// array in O(1). A copy of the old state is kept only when a handler may throw (to roll back)
  /// or an observer needs it.
  @inlinable
  func commit(_ action: any Action, _ flow: Flow<State>) throws(DispatchError) {
    refreshSetup()
    if local.pointee.setup.closed { return }
    let route = flow.plan.route(in: local.pointee.setup.registry)
    if route.isEmpty {
      // No change, but one that middleware asking to be shown changes are shown.
      try flow.watches?.willCommit?(PendingChange(action: action, mutators: []))
      return
    }
    let observers = local.pointee.setup.observers
    beginChange()
    let needsOld = observers?.needsOldState(stateIsEquatable: isEqual != nil) ?? false
    let watches = flow.watches
    if route.mayThrow || needsOld {
      try commitKeepingOld(action, route, watches, observers)
      return
    }
    try watching(watches, action, staged: false) { () throws(DispatchError) -> Bool in
      try reduceAndTell(action, route, watches?.willCommit, old: nil, observers: observers)
      return true
    }
  }

  /// ``commit(_:_:)`` with a copy of the state before the action, to roll back to or to show
  /// the observers that need it.
  ///
  /// The copy goes on by address: a large state's optional is copied into every call it is
  /// passed to, even when it is nil (measured on `scoped-1000`, a nil optional of its 1.6 KB
  /// state made and copied twice per action, about 400 instructions). Out of line, so that the
  /// common path, which keeps no copy, is not laid out around this one.
  @inlinable @inline(never)
  func commitKeepingOld(
    _ action: any Action, _ route: Route<State>, _ watches: ReductionWatch<State>?,
    _ observers: ObserverSnapshot<State>?
  ) throws(DispatchError) {
    let old = local.pointee.state
    try withUnsafePointer(to: old) { old throws(DispatchError) in
      try watching(watches, action, staged: false) { () throws(DispatchError) -> Bool in
        try reduceAndTell(action, route, watches?.willCommit, old: old, observers: observers)
        return true
      }
    }
  }

  /// Runs `reduce` inside the flow's watches, when it has any (see `ReductionWatch`): their
  /// calls are made at once, or, when `staged` (an action of a batch), kept until the batch
  /// commits.
  @inlinable
  func watching(
    _ watches: ReductionWatch<State>?, _ action: any Action, staged: Bool,
    _ reduce: () throws(DispatchError) -> Bool
  ) throws(DispatchError) {
    guard let watches else {
      _ = try reduce()
      return
    }
    try watches.around(
      { local.pointee.state }, action: action, store: identifier,
      later: staged ? { self.local.pointee.stagedWatchCalls.append($0) } : nil, reduce)
  }

  /// Runs the handlers, commits (or rolls back to `old` and rethrows) and tells the observers.
  ///
  /// The state before the action, `old`, is on the caller's stack, given when a handler may
  /// throw or an observer needs it.
  @inlinable
  func reduceAndTell(
    _ action: any Action, _ route: Route<State>, _ willCommit: WillCommit<State>?,
    old: UnsafePointer<State>?, observers: ObserverSnapshot<State>?
  ) throws(DispatchError) {
    do {
      try applyHandlers(action, route, willCommit)
    } catch {
      if let old { local.pointee.state = old.pointee }
      endChange()
      throw error
    }
    endChange()
    notify(observers, action: action, old: old, touched: route.touched)
  }

  /// Reduces an action that is one of a `Batch`'s, into the batch's state: the batch commits or
  /// rolls back as a whole.
  @inlinable
  func stage(_ action: any Action, _ flow: Flow<State>) throws(DispatchError) {
    let route: Route<State>
    if let registry = local.pointee.batchRegistry {
      route = flow.plan.route(in: registry)
    } else {
      refreshSetup()
      route = flow.plan.route(in: local.pointee.setup.registry)
    }
    if route.isEmpty {
      try flow.watches?.willCommit?(PendingChange(action: action, mutators: []))
      return
    }
    func reduceStaged() throws(DispatchError) -> Bool {
      try applyHandlers(action, route, flow.watches?.willCommit)
      local.pointee.stagedReductions += 1
      local.pointee.stagedMutators += route.keys
      return true
    }
    try watching(flow.watches, action, staged: true, reduceStaged)
  }

  /// Runs the handlers of `route` on the state in place, or replaces the state (the route of
  /// `ReplaceState`).
  ///
  /// The change is decided once every handler's check passed, and for a route with a handler
  /// that may throw, once the handlers ran (the caller then holds the old state to roll back
  /// to): `willCommit` is shown it then, and may refuse it.
  @inlinable
  func applyHandlers(_ action: any Action, _ route: Route<State>, _ willCommit: WillCommit<State>?)
    throws(DispatchError)
  {
    if route.replacesState {
      try willCommit?(PendingChange(action: action, mutators: [], replacesState: true))
      if let replacement = action as? ReplaceState<State> {
        local.pointee.state = replacement.state
        if !route.steps.isEmpty { follow(action, route) }
      }
      return
    }
    if route.hasChecks { try runChecks(action, route) }
    if let willCommit, !route.mayThrow {
      try willCommit(PendingChange(action: action, mutators: route.keys))
    }
    local.pointee.inReducers = true
    // By index: a copy of each step would retain its key and handler.
    for index in route.steps.indices {
      do {
        try route.steps[index].handler.body(&local.pointee.state, action)
      } catch {
        local.pointee.inReducers = false
        throw .reducerFailed(key: route.steps[index].key, action: action, underlying: error)
      }
    }
    local.pointee.inReducers = false
    if let willCommit, route.mayThrow {
      try willCommit(PendingChange(action: action, mutators: route.keys))
    }
  }

  /// Runs the followers of a `ReplaceState` on the state that replaced the old one, in
  /// registration order; they cannot throw.
  @inlinable
  func follow(_ action: any Action, _ route: Route<State>) {
    local.pointee.inReducers = true
    defer { local.pointee.inReducers = false }
    for index in route.steps.indices {
      // A follower's body is `throws(Never)` wrapped as `throws`: it cannot throw.
      try? route.steps[index].handler.body(&local.pointee.state, action)
    }
  }

  /// Runs the checks of the handlers of `route` that have one, before any handler changes the
  /// state: a check that throws refuses the action with nothing to roll back.
  @inlinable
  func runChecks(_ action: any Action, _ route: Route<State>) throws(DispatchError) {
    local.pointee.inReducers = true
    defer { local.pointee.inReducers = false }
    for index in route.steps.indices {
      guard let check = route.steps[index].handler.check else { continue }
      do {
        try check(local.pointee.state, action)
      } catch {
        throw .reducerFailed(key: route.steps[index].key, action: action, underlying: error)
      }
    }
  }

  /// Applies a `Batch`: each of its actions goes through the chain from the top, so every
  /// middleware sees it, and is reduced into the batch's state; the batch then commits as one
  /// change, or rolls back as a whole when a middleware rejects one of its actions or a handler
  /// throws.
  @inlinable
  func apply(_ batch: Batch, _ flow: Flow<State>) throws(DispatchError) {
    if flow.batch != nil {
      // Nested: part of the enclosing batch, which commits or rolls back.
      let reducedBefore = local.pointee.stagedReductions
      let mutatorsBefore = local.pointee.stagedMutators.count
      func runNested() throws(DispatchError) -> Bool {
        try runActions(of: batch, flow)
        try flow.watches?.willCommit?(
          PendingChange(
            action: batch, mutators: Array(local.pointee.stagedMutators[mutatorsBefore...]),
            replacesState: batch.replacesState(of: State.self)))
        return local.pointee.stagedReductions != reducedBefore
      }
      try watching(flow.watches, batch, staged: true, runNested)
      return
    }
    refreshSetup()
    if local.pointee.setup.closed { return }
    let registry = local.pointee.setup.registry
    let observers = local.pointee.setup.observers
    beginChange()
    let old = local.pointee.state
    let reducedBefore = local.pointee.stagedReductions
    local.pointee.batchRegistry = registry
    defer {
      local.pointee.batchRegistry = nil
      local.pointee.stagedMutators = []
    }
    func applyAndTell() throws(DispatchError) -> Bool {
      do {
        try runActions(of: batch, flow)
        try flow.watches?.willCommit?(
          PendingChange(
            action: batch, mutators: local.pointee.stagedMutators,
            replacesState: batch.replacesState(of: State.self)))
      } catch {
        local.pointee.state = old
        local.pointee.stagedWatchCalls = []
        endChange()
        throw error
      }
      endChange()
      let stagedCalls = local.pointee.stagedWatchCalls
      local.pointee.stagedWatchCalls = []
      guard local.pointee.stagedReductions != reducedBefore else { return false }
      withUnsafePointer(to: old) { notify(observers, action: batch, old: $0, touched: nil) }
      for call in stagedCalls { call() }
      return true
    }
    try watching(flow.watches, batch, staged: false, applyAndTell)
  }

  /// Runs each action of a batch through the chain, as part of it.
  @inlinable
  func runActions(of batch: Batch, _ flow: Flow<State>) throws(DispatchError) {
    for action in batch.actions {
      let inner = Flow(
        plan: plan(for: action), item: flow.item, thread: flow.thread, watches: nil, batch: batch)
      try runChain(action, inner)
    }
  }
}
