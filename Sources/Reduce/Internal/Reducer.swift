/// What a commit reduces: one action along its route, or a batch, whose actions `run` sends
/// through the chain to be staged.
@usableFromInline
enum Reduction<State: Sendable> {
  case action(any Action, Route<State>)
  case batch(Batch, registry: Registry<State>, run: () throws(DispatchError) -> Void)
}

/// The state, and the reduction of actions into it: run the handlers of an action's route, show
/// the change to the commit observers before it is made, and roll it back when a handler or an
/// observer refuses it.
///
/// Only the thread holding the store's turn changes it. Other threads read the state with
/// ``read()``, under `stateLock`, which the turn holder holds from the first change of a commit
/// until it is made or rolled back: a read from another thread gets a committed state, never
/// half of an action, a batch's first actions or a change about to be refused, and waits only
/// while a change is being made.
@usableFromInline
final class Reducer<State: Sendable>: @unchecked Sendable {
  // `@unchecked Sendable`: touched only by the thread holding the store's turn, except `state`,
  // which that thread writes holding `stateLock`, and other threads read holding it.

  /// A batch being reduced: its actions change the state one after another, and the batch
  /// commits once, at the end.
  struct Stage {
    let registry: Registry<State>
    var mutators: [MutatorKey] = []
    var replacesState = false
    var reduced = false
  }

  /// What a commit changed: what the store tells its observers.
  struct Change {
    let commit: PendingCommit
    /// The state before, when the store kept it (a handler could throw, or an observer needs it).
    let old: State?
    /// The bytes the handlers may have changed; nil when unknown.
    let touched: [Range<Int>]?

  }

  @usableFromInline private(set) var state: State
  @usableFromInline let stateLock = Locked(())
  /// Whether a handler is running or a batch is being reduced.
  @usableFromInline let status = ReducerStatus()
  /// The batch being reduced; set with `status.isStaging`.
  private(set) var stage: Stage?

  init(state: State) {
    self.state = state
  }

  /// The store's identity: the reducer lives as long as the store's engine.
  @usableFromInline var storeID: ObjectIdentifier { ObjectIdentifier(self) }

  /// The state, for a thread that does not hold the store's turn.
  func read() -> State {
    stateLock.withLock { _ in state }
  }

  /// Reduces an action along its route, or a batch, and commits it: the one way the state
  /// changes.
  ///
  /// How is decided when the route is built: a route whose handlers cannot throw is reduced in
  /// place, shown to `willCommit` before any change, so that nothing needs rolling back; one
  /// whose handlers may throw, and a batch, are reduced with the state before kept, and put
  /// back when a handler or `willCommit` refuses the change.
  ///
  /// - Parameters:
  ///   - reduction: The action and its route, or the batch.
  ///   - chain: The chain of the dispatch, whose commit observers see the change.
  ///   - keepOld: Whether an observer needs the state before.
  ///   - old: Set to the state before when it was kept: for `keepOld`, or to put it back.
  /// - Returns: The change committed, or nil when no handler ran.
  /// - Throws: A check's, a handler's or a commit observer's refusal; the state is then as it
  ///   was.
  @inlinable
  func commit(
    _ reduction: Reduction<State>, chain: Chain<State>, keepOld: Bool, old: inout State?
  ) throws(DispatchError) -> PendingCommit? {
    guard case .action(let action, let route) = reduction, route.reducesInPlace else {
      return try commitKeepingOld(reduction, chain: chain, old: &old)
    }
    let commit = PendingCommit(
      action: action, mutators: route.keys, replacesState: route.replacesState, store: storeID)
    if route.isEmpty {
      if !chain.checks.isEmpty { try approve(commit, by: chain.checks) }
      return nil
    }
    if route.hasChecks { try check(action, route) }
    for recording in chain.recordings { recording.begin(state) }
    if !chain.checks.isEmpty { try approve(commit, by: chain.checks) }
    if keepOld { old = state }
    try stateLock.withLock { _ throws(DispatchError) in try apply(action, route) }
    return commit
  }

  /// Reduces a change that may fail once it began (a handler that can throw, a batch) holding
  /// `stateLock` until it is accepted or put back: no other thread sees a change that
  /// `willCommit` may still refuse, nor a batch's first actions.
  @usableFromInline
  func commitKeepingOld(_ reduction: Reduction<State>, chain: Chain<State>, old: inout State?)
    throws(DispatchError) -> PendingCommit?
  {
    let before = state
    old = before
    switch reduction {
    case .action(let action, let route):
      let commit = PendingCommit(
        action: action, mutators: route.keys, replacesState: route.replacesState, store: storeID)
      if route.isEmpty {
        try approve(commit, by: chain.checks)
        return nil
      }
      try check(action, route)
      for recording in chain.recordings { recording.begin(state) }
      try stateLock.withLock { _ throws(DispatchError) in
        do throws(DispatchError) {
          try apply(action, route)
          try approve(commit, by: chain.checks)
        } catch {
          state = before
          throw error
        }
      }
      return commit
    case .batch(let batch, let registry, let run):
      for recording in chain.recordings { recording.begin(state) }
      stage = Stage(registry: registry)
      status.setStaging(true)
      defer {
        stage = nil
        status.setStaging(false)
      }
      let commit = try stateLock.withLock { _ throws(DispatchError) -> PendingCommit in
        do throws(DispatchError) {
          try run()
          let staged = stage ?? Stage(registry: registry)
          let commit = PendingCommit(
            action: batch, mutators: staged.mutators, replacesState: staged.replacesState,
            store: storeID)
          try approve(commit, by: chain.checks)
          return commit
        } catch {
          state = before
          throw error
        }
      }
      guard stage?.reduced == true else { return nil }
      return commit
    }
  }

  /// Reduces one action of the batch being staged, holding the state lock the batch took; the
  /// batch rolls back if it throws.
  @usableFromInline
  func stage(_ action: any Action) throws(DispatchError) {
    guard var staged = stage else { return }
    let route = staged.registry.route(for: action)
    if route.isEmpty { return }
    try check(action, route)
    try apply(action, route)
    staged.mutators += route.keys
    staged.replacesState = staged.replacesState || route.replacesState
    staged.reduced = true
    stage = staged
  }

  @usableFromInline
  func check(_ action: any Action, _ route: Route<State>) throws(DispatchError) {
    guard route.hasChecks else { return }
    status.setReducing(true)
    defer { status.setReducing(false) }
    for step in route.steps {
      guard let check = step.handler.check else { continue }
      do {
        try check(state, action)
      } catch {
        throw .reducerFailed(key: step.key, action: action, underlying: error)
      }
    }
  }

  /// Runs the handlers of a route on the state, holding the state lock (the caller took it).
  @inlinable
  func apply(_ action: any Action, _ route: Route<State>) throws(DispatchError) {
    status.setReducing(true)
    defer { status.setReducing(false) }
    if route.replacesState {
      if let replacement = action as? ReplaceState<State> { state = replacement.state }
      // Followers (`onReplaceState`) cannot throw.
      for body in route.bodies { try? body(&state, action) }
      return
    }
    for index in route.bodies.indices {
      do {
        try route.bodies[index](&state, action)
      } catch {
        throw .reducerFailed(key: route.keys[index], action: action, underlying: error)
      }
    }
  }
}

// MARK: Routes

extension Registry {
  /// The handlers an action of this type runs, in registration order.
  @inlinable
  func route(for action: any Action) -> Route<State> {
    let type = ObjectIdentifier(action.dispatchedType)
    let low = routedTypes.lowerBound(of: type) { $0 }
    return low < routedTypes.count && routedTypes[low] == type ? routes[low] : everyAction
  }
}

/// One handler an action runs.
struct RouteStep<State>: Sendable {
  let key: MutatorKey
  let handler: Handler<State>
  /// The bytes of the substate the handler changes; nil when unknown (a lens).
  let range: Range<Int>?
}

/// The handlers an action type runs, and what the store needs to know about them before it
/// runs them.
@usableFromInline
final class Route<State>: Sendable {
  let steps: [RouteStep<State>]
  /// Whether the route is reduced in place: no handler can throw, so no state before is kept
  /// to roll back to.
  @usableFromInline let reducesInPlace: Bool
  @usableFromInline let hasChecks: Bool
  /// The bytes the handlers may change; nil when some are unknown or the whole state changes.
  @usableFromInline let touched: [Range<Int>]?
  @usableFromInline let replacesState: Bool
  /// The keys of the handlers' mutators, in the order they run.
  @usableFromInline let keys: [MutatorKey]
  /// The handlers' changes, in the same order (read apart from the keys, which a dispatch
  /// needs only when a handler fails).
  @usableFromInline let bodies: [@Sendable (inout State, any Action) throws -> Void]
  /// Whether an action of this route changes nothing.
  @usableFromInline let isEmpty: Bool

  init(_ steps: [RouteStep<State>], replacesState: Bool = false) {
    self.steps = steps
    self.reducesInPlace = !steps.contains { $0.handler.mayThrow }
    self.hasChecks = steps.contains { $0.handler.check != nil }
    let ranges = steps.compactMap(\.range)
    self.touched = ranges.count == steps.count && !replacesState ? ranges : nil
    self.replacesState = replacesState
    self.keys = steps.map(\.key)
    self.bodies = steps.map(\.handler.body)
    self.isEmpty = steps.isEmpty && !replacesState
  }
}

/// Whether a store's reducers are at work: a handler running, or a batch being reduced.
///
/// Not generic, for the reason ``Agenda`` is not. Touched only by the thread holding the turn.
@usableFromInline
final class ReducerStatus: @unchecked Sendable {
  // `@unchecked Sendable`: touched only by the thread holding the store's turn.
  private var reducing = false
  private var staging = false

  /// Whether a handler or a check is running: the store stops a reducer that reads, dispatches
  /// or subscribes.
  var isReducing: Bool { reducing }

  /// Whether a batch is being reduced.
  @usableFromInline var isStaging: Bool { staging }

  @usableFromInline
  func setReducing(_ value: Bool) {
    reducing = value
  }

  func setStaging(_ value: Bool) {
    staging = value
  }
}
