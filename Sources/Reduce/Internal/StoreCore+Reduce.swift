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
    let type = flow.plan.actionType
    var observers: ObserverSnapshot<State>?
    let route = fields.withLock { fields -> Route<State>? in
      let route = fields.registry.route(for: type)
      if fields.closed || route.isEmpty { return nil }
      beginChange(&fields)
      observers = fields.observers
      return route
    }
    guard let route else { return }
    let needsOld = observers?.needsOldState(stateIsEquatable: isEqual != nil) ?? false
    let old: State? = route.mayThrow || needsOld ? local.pointee.state : nil
    try watching(flow.watches, action, staged: false) { () throws(DispatchError) -> Bool in
      try reduceAndTell(action, route, old: old, observers: observers)
      return true
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
    _ = try watches.around(
      { local.pointee.state }, action: action,
      later: staged ? { self.local.pointee.stagedWatchCalls.append($0) } : nil, reduce)
  }

  /// Runs the handlers, commits (or rolls back to `old` and rethrows) and tells the observers.
  @inlinable
  func reduceAndTell(
    _ action: any Action, _ route: Route<State>, old: State?, observers: ObserverSnapshot<State>?
  ) throws(DispatchError) {
    do {
      try applyHandlers(action, route)
    } catch {
      if let old { local.pointee.state = old }
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
    let type = flow.plan.actionType
    let registry = local.pointee.batchRegistry ?? fields.withLock { $0.registry }
    let route = registry.route(for: type)
    if route.isEmpty { return }
    func reduceStaged() throws(DispatchError) -> Bool {
      try applyHandlers(action, route)
      local.pointee.stagedReductions += 1
      return true
    }
    try watching(flow.watches, action, staged: true, reduceStaged)
  }

  /// Runs the handlers of `route` on the state in place, or replaces the state (the route of
  /// `ReplaceState`).
  @inlinable
  func applyHandlers(_ action: any Action, _ route: Route<State>) throws(DispatchError) {
    if route.replacesState {
      if let replacement = action as? ReplaceState<State> {
        local.pointee.state = replacement.state
      }
      return
    }
    local.pointee.inReducers = true
    defer { local.pointee.inReducers = false }
    // By index: a copy of each step would retain its key and handler.
    for index in route.steps.indices {
      do {
        try route.steps[index].handler.body(&local.pointee.state, action)
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
      func runNested() throws(DispatchError) -> Bool {
        try runActions(of: batch, flow)
        return local.pointee.stagedReductions != reducedBefore
      }
      try watching(flow.watches, batch, staged: true, runNested)
      return
    }
    let snapshot = fields.withLock { fields -> (Registry<State>, ObserverSnapshot<State>?)? in
      if fields.closed { return nil }
      beginChange(&fields)
      return (fields.registry, fields.observers)
    }
    guard let (registry, observers) = snapshot else { return }
    let old = local.pointee.state
    let reducedBefore = local.pointee.stagedReductions
    local.pointee.batchRegistry = registry
    defer { local.pointee.batchRegistry = nil }
    func applyAndTell() throws(DispatchError) -> Bool {
      do {
        try runActions(of: batch, flow)
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
      notify(observers, action: batch, old: old, touched: nil)
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
        plan: plan(for: action), index: 0, item: flow.item, thread: flow.thread, watches: nil,
        batch: batch)
      try runChain(action, inner)
    }
  }
}
