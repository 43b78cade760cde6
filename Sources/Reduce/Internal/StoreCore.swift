import Observation
import Synchronization

/// A store's engine: dispatches go through ``Turn`` into single-threaded code that runs the
/// middleware chain, the ``Reducer``, the ``ObserverList`` and the commit observers.
///
/// Everything below the `turn` is touched only by the thread holding the turn; the store's
/// public methods take the turn (or, called from inside a dispatch on the thread holding it,
/// queue their work behind the current action).
@usableFromInline
final class StoreCore<State: Sendable>: @unchecked Sendable {
  // `@unchecked Sendable`: its mutable members are touched only by the thread holding `turn`;
  // `errors` has its own lock; `store` is set once, before the store is shared.
  //
  // A kept `next` or context holds the engine, not the store: when the store is deinitialised,
  // `close()` lets go of everything but the state, so what they keep is small.

  @usableFromInline let turn = Turn()
  let registrar = ObservationRegistrar()
  /// The store, for telling Observation's registrar; set once by `Store.init`.
  @usableFromInline weak var store: Store<State>?
  let isEqual: (@Sendable (State, State) -> Bool)?
  /// The steps that code compiled for any state calls: see ``Specialized``.
  let specialized: Specialized<State>
  /// Touched only holding the turn; nil once the store is closed.
  var fallback: (@Sendable (DispatchError) -> (any Action)?)?
  let errors = ErrorStreams()

  // Touched only holding the turn.
  @usableFromInline let reducer: Reducer<State>
  @usableFromInline var plan = Plan<State>() {
    didSet { names.withLock { $0 = PlanNames(plan) } }
  }
  /// The keys and middleware names of `plan`, for readers on any thread: they never wait for
  /// the turn, as reading the state does not.
  let names = Locked(PlanNames(Plan<State>()))
  var observers: ObserverList<State>
  /// What a dispatch asks of `observers`, read without touching the list.
  @usableFromInline let watching = ObserverSummary()
  @usableFromInline let agenda = Agenda()
  /// Whether `state` was read where Observation tracks it: only then is the registrar told.
  private let isTracked = Atomic<Bool>(false)

  @usableFromInline
  init(
    initialState: State, fallback: (@Sendable (DispatchError) -> (any Action)?)?,
    specialized: Specialized<State>
  ) {
    self.specialized = specialized
    self.fallback = fallback
    isEqual = equality(of: State.self)
    reducer = Reducer(state: initialState)
    observers = ObserverList(summary: watching)
  }

  /// The store's identity, as middleware and commit observers are given it.
  var storeID: ObjectIdentifier { reducer.storeID }

  var registry: Registry<State> { plan.registry }
  var chain: Chain<State> { plan.chain }

  // MARK: Dispatching

  /// Carries out work and returns the state it left, or its failure.
  ///
  /// From inside a dispatch on this thread, the work is queued behind the current action and
  /// the result is the state now.
  @inlinable
  func dispatch(_ work: Work) -> Result<State, DispatchError> {
    if turn.isHeldByCurrentThread {
      queue(work)
      return .success(reducer.state)
    }
    turn.acquire()
    return carryOutAndRelease(work, reportingFor: work.action)
  }

  /// Carries out work from a task: a task that finds the store busy suspends.
  func send(_ work: Work) async -> Result<State, DispatchError> {
    await turn.acquireSuspending()
    return carryOutAndRelease(work, reportingFor: work.action)
  }

  /// Dispatches a sequence unless `refusal`, asked once the turn is taken, refuses it.
  func dispatch(_ actions: [any Action], unless refusal: () -> DispatchError?)
    -> Result<State, DispatchError>
  {
    if turn.isHeldByCurrentThread {
      if let refused = refusal() { return .failure(refused) }
      queue(.sequence(actions))
      return .success(reducer.state)
    }
    turn.acquire()
    if let refused = refusal() {
      turn.release()
      return .failure(refused)
    }
    return carryOutAndRelease(.sequence(actions), reportingFor: Batch(actions))
  }

  /// Holding the turn: carries out work and every follow-up it queued, releases the turn, and
  /// returns the state the work left, or its failure, once the commit observers' `afterTurn`
  /// ran (their failures reported for `action`).
  @usableFromInline
  func carryOutAndRelease(_ work: Work, reportingFor action: any Action)
    -> Result<State, DispatchError>
  {
    let plan = plan
    let result: Result<State, DispatchError> =
      if let failure = carryOut(work) { .failure(failure) } else { .success(reducer.state) }
    return release(result, ranWith: plan, reportingFor: action)
  }

  /// Runs the rest of a chain that a middleware passed on after its dispatch ended, from
  /// another thread: as a dispatch of its own.
  @usableFromInline
  func passLate(_ work: Work) throws(DispatchError) {
    if case .failure(let failure) = dispatch(work) { throw failure }
  }

  /// Queues work behind the current action, holding the turn.
  @usableFromInline
  func queue(_ work: Work) {
    if reducer.status.isReducing {
      // A mistake of the caller's: `fatalError`, whose message an optimized build prints too.
      fatalError(
        "A reducer dispatched to the store. Reducers must be pure functions of their substate and action: dispatch follow-up actions from a middleware or an observer instead."
      )
    }
    agenda.append(work)
  }

  /// Holding the turn: runs the work and every follow-up it queued.
  func carryOut(_ work: Work) -> DispatchError? {
    let failure = perform(work)
    if let failure { handle(failure, isFallback: work.isFallback) }
    runFollowUps()
    return failure
  }

  private func perform(_ work: Work) -> DispatchError? {
    switch work {
    case .action(let action, _):
      return specialized.run(self, action)
    case .resume(_, let run):
      return run()
    case .sequence(let actions):
      for action in actions {
        if let failure = specialized.run(self, action) { return failure }
        runFollowUps()
      }
      return nil
    }
  }

  /// Holding the turn: runs the queued work, and what it queues, in the order it was queued.
  @usableFromInline
  func runFollowUps() {
    while let work = agenda.takeFollowUp() {
      if let failure = perform(work) { handle(failure, isFallback: work.isFallback) }
    }
  }

  // MARK: Reducing

  /// A batch's actions each go through the whole chain, then the batch commits once.
  @usableFromInline
  func reduce(_ batch: Batch, in plan: Plan<State>) throws(DispatchError) {
    let first = plan.chain.first
    if reducer.status.isStaging {
      // Nested: its actions are part of the enclosing batch.
      for action in batch.actions { try runChain(action, from: first, in: plan) }
      return
    }
    let change = try reducer.commit(batch, registry: plan.registry, chain: plan.chain) {
      () throws(DispatchError) in
      for action in batch.actions { try runChain(action, from: first, in: plan) }
    }
    if let change { committed(change, plan.chain) }
  }

  /// Holding the turn, after a commit: tells Observation, the observers, then the commit observers.
  ///
  /// The observers run here, in the turn, on the dispatching thread, before the
  /// dispatch returns; what they dispatch is queued behind the current action.
  @usableFromInline
  func committed(_ change: Reducer<State>.Change, _ chain: Chain<State>) {
    let state = reducer.state
    let unchanged = change.old.map { old in isEqual?(old, state) ?? false } ?? false
    if !unchanged {
      if isObserved { tellObservation() }
      // A copy of the list: an observer may subscribe or cancel while it is told.
      let observers = self.observers
      observers.tell(change, state: state)
    }
    for recording in chain.recordings { recording.finish(state, change.commit) }
  }

  /// Whether `state` was read where Observation tracks it.
  @usableFromInline var isObserved: Bool { isTracked.load(ordering: .relaxed) }

  /// Tells Observation's registrar that the state changed.
  @usableFromInline
  func tellObservation() {
    guard let store else { return }
    registrar.withMutation(of: store, keyPath: \.state) {}
  }

  /// Tells the observers of a commit made in place (no state before was kept).
  @usableFromInline
  func tellObservers(_ commit: PendingCommit, touched: [Range<Int>]?) {
    let observers = self.observers
    observers.tell(Reducer.Change(commit: commit, old: nil, touched: touched), state: reducer.state)
  }

  // MARK: Reading

  /// The current state.
  ///
  /// Another thread gets the state before or after an action, and waits
  /// only while an action's handlers run.
  func readState(tracked: Bool = false) -> State {
    if tracked, !isTracked.load(ordering: .relaxed) { isTracked.store(true, ordering: .relaxed) }
    if turn.isHeldByCurrentThread {
      stopIfReducing("A reducer read the store's state or dispatched to it.")
      return reducer.state
    }
    return reducer.read()
  }

  /// Runs `body` holding the turn: directly when this thread holds it already.
  func withTurn<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
    if turn.isHeldByCurrentThread { return try body() }
    return try turn.run(body)
  }

  func stopIfReducing(_ mistake: String) {
    guard reducer.status.isReducing else { return }
    // A mistake of the caller's: `fatalError`, whose message an optimized build prints too.
    fatalError(
      "\(mistake) Reducers must be pure functions of their substate and action: dispatch follow-up actions from a middleware or an observer instead."
    )
  }

  // MARK: Errors

  /// After the turn: runs the commit observers' `afterTurn`, and reports what fails.
  @usableFromInline
  func finish<Value>(
    _ result: Result<Value, DispatchError>, afterTurn: [CommitHooks],
    action: any Action
  ) -> Result<Value, DispatchError> {
    var result = result
    for recording in afterTurn {
      do {
        try recording.afterTurn?()
      } catch {
        let failure =
          error as? DispatchError
          ?? .middlewareFailed(name: recording.name, action: action, underlying: error)
        if case .success = result { result = .failure(failure) }
        report(failure)
      }
    }
    return result
  }

  /// Holding the turn: publishes a failure and queues the fallback's action.
  @usableFromInline
  func handle(_ failure: DispatchError, isFallback: Bool) {
    errors.publish(failure)
    if !isFallback, let fallback, let action = fallback(failure) {
      agenda.append(.action(action, isFallback: true))
    }
  }

  /// Publishes a failure found outside a dispatch, and dispatches the fallback's action.
  func report(_ failure: DispatchError) {
    errors.publish(failure)
    guard let fallback = withTurn({ fallback }), let action = fallback(failure) else { return }
    _ = dispatch(.action(action, isFallback: true))
  }
}

/// The names of what a plan holds, copied when the plan is installed.
struct PlanNames: Sendable {
  var mutatorKeys: [MutatorKey]
  var middlewareNames: [String]

  init<State>(_ plan: Plan<State>) {
    mutatorKeys = plan.registry.keys
    middlewareNames = plan.chain.names
  }
}

/// `==` of a type that turns out to be `Equatable`, found at run time; nil when it is not.
///
/// The function is cast once, here, to the caller's type (the same type, known to the caller
/// as `Value`): each comparison then calls `==` directly, with no cast of its operands.
func equality<Value>(of type: Value.Type) -> (@Sendable (Value, Value) -> Bool)? {
  guard let equatable = type as? any (Equatable & Sendable).Type else { return nil }
  func make<E: Equatable & Sendable>(_ type: E.Type) -> (@Sendable (Value, Value) -> Bool)? {
    let isEqual: @Sendable (E, E) -> Bool = { $0 == $1 }
    return isEqual as? @Sendable (Value, Value) -> Bool
  }
  return make(equatable)
}
