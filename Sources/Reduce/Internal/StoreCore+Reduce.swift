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
  /// Reduces one action that came out of the chain, commits it and notifies observers.
  ///
  /// The lock is held on entry and released inside. The state is taken out of the store and
  /// reduced on the stack, so a handler that cannot throw mutates uniquely referenced storage in
  /// place. A copy of the old state is kept only when a handler may throw (to roll back) or an
  /// observer needs it. With `releaseTurnWhenDone`, when no observer needs telling, the commit
  /// and the release of the turn share one hold of the lock.
  @inlinable
  func reduceReleasingLock<A: Action>(_ action: A, releaseTurnWhenDone: Bool)
    -> ReduceOutcome<State>
  {
    if fields.pointee.closed {
      lock.unlock()
      return .committed
    }
    let registry = fields.pointee.registry
    let actionType = ObjectIdentifier(A.self)
    let mayThrow: Bool
    var route: Route<State>?
    if actionType == replaceStateType {
      mayThrow = false
    } else if A.self == Batch.self {
      mayThrow = Self.mayThrow(unsafeBitCast(action, to: Batch.self), registry)
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
    guard var state = fields.pointee.slot.take() else {
      preconditionFailure("The store's state is already being reduced; reducers must not dispatch.")
    }
    lock.unlock()

    let old: State? = keepOld ? state : nil
    let changed: Bool
    do {
      changed = try apply(action, route, registry, to: &state)
    } catch {
      // Only a handler that may throw gets here, and then `old` was kept.
      lock.lock()
      commitLocked(old ?? state)
      lock.unlock()
      return .failed(.reducerFailed(key: error.key, action: action, underlying: error.underlying))
    }
    let notifying = changed && (observers != nil || observationEnabled.load(ordering: .relaxed))
    lock.lock()
    if !notifying && releaseTurnWhenDone && !hasPendingLocked {
      let result = state
      commitLocked(state)
      releaseTurnLocked()
      lock.unlock()
      return .released(result)
    }
    if notifying {
      commitLocked(state)
      lock.unlock()
      notify(observers?.observers, action: action, old: old, new: state)
    } else {
      commitLocked(state)
      lock.unlock()
    }
    return .committed
  }

  /// Applies an action to the state; returns whether any handler ran (or the state was
  /// replaced).
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
      var ran = false
      for inner in unsafeBitCast(action, to: Batch.self).actions {
        if try apply(inner, nil, registry, to: &state) { ran = true }
      }
      return ran
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

  /// Whether any handler a batch reaches may throw.
  @usableFromInline
  static func mayThrow(_ batch: Batch, _ registry: Registry<State>) -> Bool {
    batch.actions.contains { action in
      if let inner = action as? Batch { return mayThrow(inner, registry) }
      return registry.route(for: ObjectIdentifier(type(of: action))).mayThrow
    }
  }

  /// Tells observers of a committed action, holding the turn, in subscription order.
  @inlinable
  func notify(_ observers: Observers<State>?, action: some Action, old: State?, new: State) {
    if let old, let isEqual, isEqual(old, new) { return }
    if observationEnabled.load(ordering: .relaxed), let store {
      registrar.withMutation(of: store, keyPath: \.state) {}
    }
    guard let observers, !observers.isEmpty else { return }
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
