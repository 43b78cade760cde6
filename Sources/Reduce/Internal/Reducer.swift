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
  @usableFromInline
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

  /// Reduces one action in place, when no handler can throw and nobody is shown the change.
  ///
  /// - Returns: Whether a handler ran.
  /// - Throws: A check's refusal, before the state changed.
  @inlinable
  func changeInPlace(_ action: any Action, route: Route<State>) throws(DispatchError) -> Bool {
    if route.isEmpty { return false }
    if route.hasChecks { try check(action, route) }
    try stateLock.withLock { _ throws(DispatchError) in try apply(action, route) }
    return true
  }

  /// Reduces one action in place and commits it, when no handler can throw and nobody needs
  /// the state before: the common case, with no copy of the state.
  ///
  /// - Returns: The commit, or nil when no handler ran.
  /// - Throws: A check's or an observer's refusal, before the state changed.
  @inlinable
  func commitInPlace(
    _ action: any Action, route: Route<State>, chain: Chain<State>
  ) throws(DispatchError) -> PendingCommit? {
    let commit = PendingCommit(
      action: action, mutators: route.keys, replacesState: route.replacesState, store: storeID)
    if route.isEmpty {
      if !chain.checks.isEmpty { try approve(commit, by: chain.checks) }
      return nil
    }
    if route.hasChecks { try check(action, route) }
    if !chain.recordings.isEmpty {
      for recording in chain.recordings { recording.begin(state) }
      try approve(commit, by: chain.checks)
    }
    try stateLock.withLock { _ throws(DispatchError) in try apply(action, route) }
    return commit
  }

  /// Reduces one action and commits it, keeping the state before: to roll back a handler that
  /// throws, or for an observer that needs it.
  ///
  /// - Parameters:
  ///   - action: The action that reached the reducers.
  ///   - route: Its handlers.
  ///   - chain: The chain of the dispatch, whose commit observers see the change.
  ///   - keepOld: Whether an observer needs the state before.
  /// - Returns: The change, or nil when no handler ran.
  /// - Throws: The handler's or the observer's refusal; the state is then as it was.
  @usableFromInline
  func commit(
    _ action: any Action, route: Route<State>, chain: Chain<State>,
    keepOld: Bool
  ) throws(DispatchError) -> Change? {
    let commit = PendingCommit(
      action: action, mutators: route.keys, replacesState: route.replacesState, store: storeID)
    if route.isEmpty {
      try approve(commit, by: chain.checks)
      return nil
    }
    try check(action, route)
    for recording in chain.recordings { recording.begin(state) }
    if !route.mayThrow {
      // Decided: no handler can fail. Shown before any change, so nothing is rolled back.
      try approve(commit, by: chain.checks)
      let old = keepOld ? state : nil
      try stateLock.withLock { _ throws(DispatchError) in try apply(action, route) }
      return Change(commit: commit, old: old, touched: route.touched)
    }
    let old = state
    // Held until the change is accepted or rolled back: no other thread sees a change that
    // `willCommit` may still refuse.
    try stateLock.withLock { _ throws(DispatchError) in
      do throws(DispatchError) {
        try apply(action, route)
        try approve(commit, by: chain.checks)
      } catch {
        state = old
        throw error
      }
    }
    return Change(commit: commit, old: old, touched: route.touched)
  }

  /// Reduces a batch: `run` sends each of its actions through the chain, whose reductions are
  /// staged; then the batch commits once, or rolls back whole.
  ///
  /// - Returns: The change, or nil when no handler ran.
  func commit(
    _ batch: Batch, registry: Registry<State>, chain: Chain<State>,
    run: () throws(DispatchError) -> Void
  ) throws(DispatchError) -> Change? {
    let old = state
    for recording in chain.recordings { recording.begin(state) }
    stage = Stage(registry: registry)
    status.setStaging(true)
    defer {
      stage = nil
      status.setStaging(false)
    }
    // Held for the whole batch: no other thread sees its first actions before it commits.
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
        state = old
        throw error
      }
    }
    guard stage?.reduced == true else { return nil }
    return Change(commit: commit, old: old, touched: nil)
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
