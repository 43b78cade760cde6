/// A handler that threw, with the key of its mutator.
struct ReducerFailure: Error {
  let key: MutatorKey
  let underlying: any Error
}

extension StoreCore {
  /// Reduces one action that came out of the chain, commits it and notifies observers.
  ///
  /// The state is taken out of the store and reduced on the stack, so a handler that cannot
  /// throw mutates uniquely referenced storage in place. A copy of the old state is kept only
  /// when a handler may throw (to roll back) or an observer needs it.
  func reduce<A: Action>(_ action: A) throws(DispatchError) {
    lock.lock()
    if closed {
      lock.unlock()
      return
    }
    let registry = self.registry
    let observers = self.observers
    let mayThrow: Bool
    if A.self == ReplaceState<State>.self {
      mayThrow = false
    } else if A.self == Batch.self {
      mayThrow = Self.mayThrow(unsafeBitCast(action, to: Batch.self), registry)
    } else {
      let route = registry.route(for: ObjectIdentifier(A.self))
      if route.steps.isEmpty {
        lock.unlock()
        return
      }
      mayThrow = route.mayThrow
    }
    let keepOld = mayThrow || observers.needOldState(stateIsEquatable: isEqual != nil)
    var state = takeStateLocked()
    lock.unlock()

    let old: State? = keepOld ? state : nil
    let changed: Bool
    do {
      changed = try Self.apply(action, registry, to: &state)
    } catch {
      // Only a handler that may throw gets here, and then `old` was kept.
      if let old { commit(old) }
      throw .reducerFailed(key: error.key, action: action, underlying: error.underlying)
    }
    guard changed else {
      commit(state)
      return
    }
    if observers.isEmpty && !observationEnabled.load(ordering: .relaxed) {
      commit(state)
      return
    }
    commit(state)
    notify(observers, action: action, old: old, new: state)
  }

  /// Applies an action to the state; returns whether any handler ran (or the state was
  /// replaced).
  static func apply<A: Action>(_ action: A, _ registry: Registry<State>, to state: inout State)
    throws(ReducerFailure) -> Bool
  {
    if A.self == ReplaceState<State>.self {
      state = unsafeBitCast(action, to: ReplaceState<State>.self).state
      return true
    }
    if A.self == Batch.self {
      var ran = false
      for inner in unsafeBitCast(action, to: Batch.self).actions {
        if try apply(inner, registry, to: &state) { ran = true }
      }
      return ran
    }
    let steps = registry.route(for: ObjectIdentifier(A.self)).steps
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

  /// Whether any handler a batch reaches may throw.
  static func mayThrow(_ batch: Batch, _ registry: Registry<State>) -> Bool {
    batch.actions.contains { action in
      if let inner = action as? Batch { return mayThrow(inner, registry) }
      return registry.route(for: ObjectIdentifier(type(of: action))).mayThrow
    }
  }

  /// Tells observers of a committed action, holding the turn, in subscription order.
  func notify(_ observers: Observers<State>, action: some Action, old: State?, new: State) {
    if let old, let isEqual, isEqual(old, new) { return }
    if observationEnabled.load(ordering: .relaxed), let store {
      registrar.withMutation(of: store, keyPath: \.state) {}
    }
    guard !observers.isEmpty else { return }
    var due: [[Sink<State>]] = []
    if !observers.whole.isEmpty { due.append(observers.whole) }
    if !observers.changes.isEmpty, old != nil { due.append(observers.changes) }
    for group in observers.groups where group.value.refresh(from: new) {
      due.append(group.sinks)
    }
    var change: StateChange<State>?
    Self.inSubscriptionOrder(due) { sink in
      guard !sink.flag.isCancelled else { return }
      switch sink.delivery {
      case .state(let observer):
        observer(new)
      case .change(let observer):
        if let old {
          let value = change ?? StateChange(action: action, oldState: old, newState: new)
          change = value
          observer(value)
        }
      case .value(let observer):
        observer()
      }
    }
  }

  /// Visits the sinks of several lists, each sorted by id, in increasing id order.
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
