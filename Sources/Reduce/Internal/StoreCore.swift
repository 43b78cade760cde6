import Observation
import Synchronization

/// A piece of work the store carries out in its turn.
@usableFromInline
enum Work<State: Sendable> {
  /// An action dispatched from the top of the chain; a fallback's failure is not fallen back.
  case action(any Action, isFallback: Bool)
  /// Actions dispatched one after another (`dispatch([a, b])`).
  case sequence([any Action])
  /// The rest of a chain, from a `next` called after its dispatch ended.
  case resume(any Action, ChainNode<State>?)

  var isFallback: Bool {
    if case .action(_, let isFallback) = self { return isFallback }
    return false
  }

  /// The action a failure of the work after its turn is reported for.
  var action: any Action {
    switch self {
    case .action(let action, _), .resume(let action, _): action
    case .sequence(let actions): actions.last ?? Batch([])
    }
  }
}

/// A store's engine: dispatches go through ``Turn`` into single-threaded code that runs the
/// middleware chain, the ``Reducer``, the ``ObserverList`` and the commit observers.
///
/// Everything below the `turn` is touched only by the thread holding the turn; the store's
/// public methods take the turn (or, called from inside a dispatch on the thread holding it,
/// queue their work behind the current action).
@usableFromInline
final class StoreCore<State: Sendable>: @unchecked Sendable {
  // `@unchecked Sendable`: its mutable members are touched only by the thread holding `turn`;
  // `errorSinks` has its own lock; `store` and `link` are set once, before the store is shared.

  @usableFromInline let turn = Turn()
  @usableFromInline let link: StoreLink<State>
  let registrar = ObservationRegistrar()
  /// The store, for telling Observation's registrar; set once by `Store.init`.
  @usableFromInline weak var store: Store<State>?
  let isEqual: (@Sendable (State, State) -> Bool)?
  /// Runs the rest of a chain for a `next`.
  ///
  /// It calls ``pass(_:to:dispatch:)`` in a closure made by `Store.init`, where the store's
  /// state is known. A middleware compiled for any state (a
  /// generic one, such as `AnyMiddleware`) calls `next` unspecialised; through this closure the
  /// rest of the chain runs compiled for the state (measured: 4,700 instructions a middleware
  /// step without it).
  @usableFromInline let passOn: PassOn<State>
  private let fallback: (@Sendable (DispatchError) -> (any Action)?)?
  let errorSinks = Locked(ErrorSinks())

  // Touched only holding the turn.
  @usableFromInline let reducer: Reducer<State>
  @usableFromInline var registry = Registry<State>()
  @usableFromInline var chain = Chain<State>()
  @usableFromInline var observers = ObserverList<State>()
  @usableFromInline private(set) var followUps: [Work<State>] = []
  private var nextFollowUp = 0
  /// The dispatch being carried out: a `next` of another one is queued, not run in it.
  @usableFromInline var currentDispatch: UInt64 = 0
  /// Whether `state` was read where Observation tracks it: only then is the registrar told.
  private let isTracked = Atomic<Bool>(false)
  @usableFromInline var closed = false

  @usableFromInline
  init(
    initialState: State, fallback: (@Sendable (DispatchError) -> (any Action)?)?,
    passOn: @escaping PassOn<State>
  ) {
    self.passOn = passOn
    let link = StoreLink<State>()
    self.link = link
    self.fallback = fallback
    isEqual = equality(of: State.self)
    reducer = Reducer(state: initialState, storeID: link.storeID)
    link.core = self
  }

  // MARK: Dispatching

  /// Carries out work and returns the state it left, or its failure.
  ///
  /// From inside a dispatch on this thread, the work is queued behind the current action and
  /// the result is the state now.
  func dispatch(_ work: Work<State>) -> Result<State, DispatchError> {
    if turn.isHeldByCurrentThread { return queue(work) }
    let (result, afterTurn) = turn.run { carryOut(work) }
    return finish(result, afterTurn: afterTurn, action: work.action)
  }

  /// Carries out work from a task: a task that finds the store busy suspends.
  func send(_ work: Work<State>) async -> Result<State, DispatchError> {
    let (result, afterTurn) = await turn.runSuspending { carryOut(work) }
    return finish(result, afterTurn: afterTurn, action: work.action)
  }

  /// Dispatches a sequence unless `refusal`, asked once the turn is taken, refuses it.
  func dispatch(_ actions: [any Action], unless refusal: () -> DispatchError?)
    -> Result<State, DispatchError>
  {
    if turn.isHeldByCurrentThread {
      if let refused = refusal() { return .failure(refused) }
      return queue(.sequence(actions))
    }
    let (result, afterTurn) = turn.run {
      () -> (Result<State, DispatchError>, [CommitRecording<State>]) in
      if let refused = refusal() { return (.failure(refused), []) }
      return carryOut(.sequence(actions))
    }
    return finish(result, afterTurn: afterTurn, action: Batch(actions))
  }

  /// Runs the rest of a chain for an action a middleware passed on after its dispatch ended,
  /// from another thread: as a dispatch of its own.
  @usableFromInline
  func passLate(_ action: any Action, to node: ChainNode<State>?) throws(DispatchError) {
    let work = Work<State>.resume(action, node)
    let (result, afterTurn) = turn.run { carryOut(work) }
    if case .failure(let failure) = finish(result, afterTurn: afterTurn, action: action) {
      throw failure
    }
  }

  @usableFromInline
  func queue(_ work: Work<State>) -> Result<State, DispatchError> {
    if reducer.isReducing {
      // A mistake of the caller's: `fatalError`, whose message an optimized build prints too.
      fatalError(
        "A reducer dispatched to the store. Reducers must be pure functions of their substate and action: dispatch follow-up actions from a middleware or an observer instead."
      )
    }
    followUps.append(work)
    return .success(reducer.state)
  }

  /// Holding the turn: runs the work and every follow-up it queued.
  private func carryOut(_ work: Work<State>)
    -> (Result<State, DispatchError>, [CommitRecording<State>])
  {
    let failure = perform(work)
    if let failure { handle(failure, isFallback: work.isFallback) }
    runFollowUps()
    let result: Result<State, DispatchError> =
      if let failure { .failure(failure) } else { .success(reducer.state) }
    return (result, chain.afterTurn)
  }

  private func perform(_ work: Work<State>) -> DispatchError? {
    switch work {
    case .action(let action, _):
      return run(action, from: chain.first)
    case .resume(let action, let node):
      return run(action, from: node)
    case .sequence(let actions):
      for action in actions {
        if let failure = run(action, from: chain.first) { return failure }
        runFollowUps()
      }
      return nil
    }
  }

  @usableFromInline
  func runFollowUps() {
    while nextFollowUp < followUps.count {
      let work = followUps[nextFollowUp]
      nextFollowUp += 1
      if let failure = perform(work) { handle(failure, isFallback: work.isFallback) }
    }
    followUps.removeAll(keepingCapacity: true)
    nextFollowUp = 0
  }

  // MARK: Reducing

  /// A batch's actions each go through the whole chain, then the batch commits once.
  @usableFromInline
  func reduce(_ batch: Batch) throws(DispatchError) {
    let first = chain.first
    if reducer.stage != nil {
      // Nested: its actions are part of the enclosing batch.
      for action in batch.actions { try runChain(action, from: first) }
      return
    }
    let chain = chain
    let change = try reducer.commit(batch, registry: registry, recordings: chain.recordings) {
      () throws(DispatchError) in
      for action in batch.actions { try runChain(action, from: first) }
    }
    if let change { committed(change, chain) }
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
  @usableFromInline
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
    guard reducer.isReducing else { return }
    // A mistake of the caller's: `fatalError`, whose message an optimized build prints too.
    fatalError(
      "\(mistake) Reducers must be pure functions of their substate and action: dispatch follow-up actions from a middleware or an observer instead."
    )
  }

  // MARK: Errors

  /// After the turn: runs the commit observers' `afterTurn`, and reports what fails.
  @usableFromInline
  func finish<Value>(
    _ result: Result<Value, DispatchError>, afterTurn: [CommitRecording<State>],
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
    publish(failure)
    if !isFallback, let fallback, let action = fallback(failure) {
      followUps.append(.action(action, isFallback: true))
    }
  }

  /// Publishes a failure found outside a dispatch, and dispatches the fallback's action.
  func report(_ failure: DispatchError) {
    publish(failure)
    guard let fallback, let action = fallback(failure) else { return }
    _ = dispatch(.action(action, isFallback: true))
  }

  private func publish(_ failure: DispatchError) {
    for sink in errorSinks.withLock({ Array($0.sinks.values) }) { sink.yield(failure) }
  }

  func makeErrorStream() -> AsyncStream<DispatchError> {
    let (stream, continuation) = AsyncStream.makeStream(
      of: DispatchError.self, bufferingPolicy: .bufferingNewest(ErrorSequence.bufferLimit))
    let id: UInt64? = errorSinks.withLock { sinks in
      guard !sinks.closed else { return nil }
      sinks.lastID += 1
      sinks.sinks[sinks.lastID] = continuation
      return sinks.lastID
    }
    guard let id else {
      continuation.finish()
      return stream
    }
    continuation.onTermination = { [weak self] _ in
      _ = self?.errorSinks.withLock { $0.sinks.removeValue(forKey: id) }
    }
    return stream
  }
}

/// The rest of a chain for a `next`: the store's engine, the action, the middleware to hand it
/// to (nil: the reducers) and the dispatch the `next` was given in.
@usableFromInline
typealias PassOn<State: Sendable> =
  @Sendable (StoreCore<State>, any Action, ChainNode<State>?, UInt64) throws(DispatchError) -> Void

/// The continuations of a store's error sequences.
struct ErrorSinks {
  var sinks: [UInt64: AsyncStream<DispatchError>.Continuation] = [:]
  var lastID: UInt64 = 0
  var closed = false
}

/// `==` of a type that turns out to be `Equatable`, found at run time; nil when it is not.
func equality<Value>(of type: Value.Type) -> (@Sendable (Value, Value) -> Bool)? {
  guard let equatable = type as? any (Equatable & Sendable).Type else { return nil }
  func make<E: Equatable & Sendable>(_ type: E.Type) -> @Sendable (Value, Value) -> Bool {
    { lhs, rhs in (lhs as? E) == (rhs as? E) }
  }
  return make(equatable)
}
