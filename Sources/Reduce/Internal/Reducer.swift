/// The state, and the reduction of actions into it: run the handlers of an action's route, show
/// the change to the commit observers before it is made, and roll it back when a handler or an
/// observer refuses it.
///
/// Only the thread holding the store's turn changes it. Other threads read the state with
/// ``read()``, under `stateLock`, which the turn holder holds while it changes the state: a
/// read from another thread gets the state before or after an action, never half of one, and
/// waits only while handlers run.
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

  private(set) var state: State
  private let stateLock = Locked(())
  /// Whether a handler or a check is running: the store stops a reducer that reads, dispatches
  /// or subscribes.
  private(set) var isReducing = false
  private(set) var stage: Stage?
  let storeID: ObjectIdentifier

  init(state: State, storeID: ObjectIdentifier) {
    self.state = state
    self.storeID = storeID
  }

  /// The state, for a thread that does not hold the store's turn.
  func read() -> State {
    stateLock.withLock { _ in state }
  }

  private func restore(_ old: State) {
    stateLock.withLock { _ in state = old }
  }

  /// Reduces one action and commits it.
  ///
  /// - Parameters:
  ///   - action: The action that reached the reducers.
  ///   - route: Its handlers.
  ///   - recordings: The commit observers of the dispatch's chain.
  ///   - keepOld: Whether an observer needs the state before.
  /// - Returns: The change, or nil when no handler ran.
  /// - Throws: The handler's or the observer's refusal; the state is then as it was.
  func commit(
    _ action: any Action, route: Route<State>, recordings: [CommitRecording<State>],
    keepOld: Bool
  ) throws(DispatchError) -> Change? {
    let commit = PendingCommit(
      action: action, mutators: route.keys, replacesState: route.replacesState, store: storeID)
    if route.isEmpty {
      try Self.willCommit(commit, recordings)
      return nil
    }
    try check(action, route)
    for recording in recordings { recording.begin(state) }
    if !route.mayThrow {
      // Decided: no handler can fail. Shown before any change, so nothing is rolled back.
      try Self.willCommit(commit, recordings)
      let old = keepOld ? state : nil
      try apply(action, route)
      return Change(commit: commit, old: old, touched: route.touched)
    }
    let old = state
    do {
      try apply(action, route)
      try Self.willCommit(commit, recordings)
    } catch {
      restore(old)
      throw error
    }
    return Change(commit: commit, old: old, touched: route.touched)
  }

  /// Reduces a batch: `run` sends each of its actions through the chain, whose reductions are
  /// staged; then the batch commits once, or rolls back whole.
  ///
  /// - Returns: The change, or nil when no handler ran.
  func commit(
    _ batch: Batch, registry: Registry<State>, recordings: [CommitRecording<State>],
    run: () throws(DispatchError) -> Void
  ) throws(DispatchError) -> Change? {
    let old = state
    for recording in recordings { recording.begin(state) }
    stage = Stage(registry: registry)
    defer { stage = nil }
    let commit: PendingCommit
    do {
      try run()
      let staged = stage ?? Stage(registry: registry)
      commit = PendingCommit(
        action: batch, mutators: staged.mutators, replacesState: staged.replacesState,
        store: storeID)
      try Self.willCommit(commit, recordings)
    } catch {
      restore(old)
      throw error
    }
    guard stage?.reduced == true else { return nil }
    return Change(commit: commit, old: old, touched: nil)
  }

  /// Reduces one action of the batch being staged; the batch rolls back if it throws.
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

  /// Shows a decided change to the observers that asked, innermost first: an audit trail
  /// early in the chain writes its entry once every observer after it accepted the change.
  private static func willCommit(
    _ commit: PendingCommit, _ recordings: [CommitRecording<State>]
  ) throws(DispatchError) {
    for recording in recordings.reversed() {
      guard let willCommit = recording.willCommit else { continue }
      do {
        try willCommit(commit)
      } catch let error as DispatchError {
        throw error
      } catch {
        throw .middlewareFailed(name: recording.name, action: commit.action, underlying: error)
      }
    }
  }

  private func check(_ action: any Action, _ route: Route<State>) throws(DispatchError) {
    guard route.hasChecks else { return }
    isReducing = true
    defer { isReducing = false }
    for step in route.steps {
      guard let check = step.handler.check else { continue }
      do {
        try check(state, action)
      } catch {
        throw .reducerFailed(key: step.key, action: action, underlying: error)
      }
    }
  }

  private func apply(_ action: any Action, _ route: Route<State>) throws(DispatchError) {
    isReducing = true
    defer { isReducing = false }
    try stateLock.withLock { _ throws(DispatchError) in
      if route.replacesState {
        if let replacement = action as? ReplaceState<State> { state = replacement.state }
        // Followers (`onReplaceState`) cannot throw.
        for step in route.steps { try? step.handler.body(&state, action) }
        return
      }
      for step in route.steps {
        do {
          try step.handler.body(&state, action)
        } catch {
          throw .reducerFailed(key: step.key, action: action, underlying: error)
        }
      }
    }
  }
}
