/// The one path of every dispatch, from `Store.dispatch` to the commit: a lone action, actions
/// one after another, a follow-up queued from a middleware or an observer, the rest of a chain
/// passed on late, and a batch all go through it.
///
/// 1. ``dispatch(_:returning:)`` (or ``send(_:returning:)`` from a task) takes the turn, or
///    queues the work when this thread holds it already.
/// 2. ``carryOutAndRelease(_:reading:)`` carries the work out, then its follow-ups, reads the
///    result, releases the turn and runs the commit observers' `afterTurn`.
/// 3. ``run(_:from:in:)`` numbers the dispatch, and ``runChain(_:from:in:)`` hands the action to
///    each middleware in turn (its `next` comes back to ``pass(_:to:dispatch:)``).
/// 4. Past the last middleware, ``reduce(_:in:)`` asks the ``Reducer`` to commit the action
///    along its route, and ``committed(_:_:)`` tells Observation, the observers and the commit
///    observers.
///
/// The path is inlinable, so it is compiled for the store's state where the store is used: code
/// compiled for any state pays a look-up of the metadata of each generic type it touches. A
/// middleware's `next` and context, compiled for any state, come back into it through the
/// closures of ``Specialized``, which `Store.init` makes where the state is known.
extension StoreCore {
  // MARK: Entering the turn

  /// Carries out work and returns a value read from the state it left, or its failure.
  ///
  /// From inside a dispatch on this thread, the work is queued behind the current action and
  /// the value is read from the state now.
  @inlinable
  func dispatch<Value>(_ work: Work, returning read: (State) -> Value)
    -> Result<Value, DispatchError>
  {
    if turn.isHeldByCurrentThread {
      queue(work)
      return .success(read(reducer.state))
    }
    turn.acquire()
    return carryOutAndRelease(work, reading: read)
  }

  /// As ``dispatch(_:returning:)``, from a task: a task that finds the store busy suspends.
  @inlinable
  func send<Value>(_ work: Work, returning read: (State) -> Value) async
    -> Result<Value, DispatchError>
  {
    await turn.acquireSuspending()
    return carryOutAndRelease(work, reading: read)
  }

  /// Dispatches actions one after another unless `refusal`, asked once the turn is taken,
  /// refuses them.
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
    return carryOutAndRelease(.sequence(actions), reading: { $0 })
  }

  /// Holding the turn: carries out the work and every follow-up it queued, reads the value
  /// unless the work failed, releases the turn, then runs the commit observers' `afterTurn`
  /// (their failures reported for the work's action).
  ///
  /// The work runs with the plan it found: the chain's commit observers are asked for
  /// `afterTurn` as the chain was when the work started.
  @inlinable
  func carryOutAndRelease<Value>(_ work: Work, reading read: (State) -> Value)
    -> Result<Value, DispatchError>
  {
    let plan = plan
    let failure = perform(work, in: plan)
    if let failure { handle(failure, isFallback: work.isFallback) }
    if agenda.hasFollowUps { runFollowUps() }
    let result: Result<Value, DispatchError> =
      if let failure { .failure(failure) } else { .success(read(reducer.state)) }
    // What the reader dispatched, which it should not.
    if agenda.hasFollowUps { runFollowUps() }
    turn.release()
    guard plan.hasAfterTurn else { return result }
    return finish(result, afterTurn: plan.chain.afterTurn, action: work.action)
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

  // MARK: Carrying out

  /// Holding the turn: carries out one piece of work; returns its failure.
  ///
  /// `plan` is the store's plan when the caller has just read it; nil: it is read here.
  @inlinable
  func perform(_ work: Work, in plan: Plan<State>?) -> DispatchError? {
    switch work {
    case .action(let action, _):
      let plan = plan ?? self.plan
      return run(action, from: plan.chain.first, in: plan)
    case .resume(_, let rest):
      return rest()
    case .sequence(let actions):
      for action in actions {
        let plan = self.plan
        if let failure = run(action, from: plan.chain.first, in: plan) { return failure }
        if agenda.hasFollowUps { runFollowUps() }
      }
      return nil
    }
  }

  /// Holding the turn: runs the queued work, and what it queues, in the order it was queued.
  @inlinable
  func runFollowUps() {
    while let work = agenda.takeFollowUp() {
      if let failure = perform(work, in: nil) { handle(failure, isFallback: work.isFallback) }
    }
  }

  /// Holding the turn: runs an action from a middleware of the chain (nil: the reducers) as a
  /// dispatch of its own; a `next` of another dispatch is queued, not run in it.
  ///
  /// `plan` is the store's plan when the caller has just read it; nil: the reducers read it.
  @inlinable
  func run(_ action: any Action, from node: ChainNode<State>?, in plan: Plan<State>?)
    -> DispatchError?
  {
    agenda.beginDispatch()
    do {
      try runChain(action, from: node, in: plan)
      return nil
    } catch {
      return error
    }
  }

  // MARK: The chain

  /// Holding the turn: hands the action to a middleware, or (nil) to the reducers.
  ///
  /// The reducers run with the store's plan as it is when the action reaches them: a middleware
  /// may register a mutator before it calls `next`. `plan` is the store's plan when the caller
  /// has just read it and no middleware ran since; nil: it is read here.
  @inlinable
  func runChain(_ action: any Action, from node: ChainNode<State>?, in plan: Plan<State>?)
    throws(DispatchError)
  {
    if agenda.isClosed { return }
    guard let node else {
      try reduce(action, in: plan ?? self.plan)
      return
    }
    let next = Next(core: self, node: node.next, dispatch: agenda.currentDispatch)
    let context = MiddlewareContext(core: self, action: action, middlewareName: node.entry.name)
    do {
      try node.entry.middleware.handle(action, context: context, next: next)
    } catch let error as DispatchError {
      throw error
    } catch {
      throw .rejected(by: node.entry.name, action: action, underlying: error)
    }
  }

  /// Runs the rest of a chain for an action a middleware passed on: at once during the
  /// dispatch it belongs to; queued when this thread is carrying out another; as a dispatch of
  /// its own otherwise.
  @inlinable
  func pass(_ action: any Action, to node: ChainNode<State>?, dispatch: UInt64)
    throws(DispatchError)
  {
    let isHeld = turn.isHeldByCurrentThread
    if isHeld, dispatch == agenda.currentDispatch {
      try runChain(action, from: node, in: nil)
      return
    }
    let rest = Work.resume(action, run: { self.run(action, from: node, in: nil) })
    if isHeld {
      queue(rest)
    } else if case .failure(let failure) = self.dispatch(rest, returning: { _ in () }) {
      throw failure
    }
  }

  // MARK: Reducing

  /// Holding the turn: reduces an action along its route, commits it, and tells everyone.
  ///
  /// A batch sends each of its actions through the whole chain; they are staged, and the batch
  /// commits once. An action of a batch being staged only joins it.
  @inlinable
  func reduce(_ action: any Action, in plan: Plan<State>) throws(DispatchError) {
    if reducer.status.isStaging {
      if let batch = action as? Batch {
        // Nested: its actions are part of the enclosing batch.
        for action in batch.actions { try runChain(action, from: plan.chain.first, in: plan) }
      } else {
        try reducer.stage(action)
      }
      return
    }
    let reduction: Reduction<State>
    var touched: [Range<Int>]?
    if type(of: action) == Batch.self, let batch = action as? Batch {
      let first = plan.chain.first
      reduction = .batch(batch, registry: plan.registry) { () throws(DispatchError) in
        for action in batch.actions { try self.runChain(action, from: first, in: plan) }
      }
    } else {
      let route = plan.registry.route(for: action)
      touched = route.touched
      reduction = .action(action, route)
    }
    var old: State?
    let commit = try reducer.commit(
      reduction, chain: plan.chain, keepOld: watching.needsOldState, old: &old)
    if let commit { committed(commit, old: old, touched: touched, plan.chain) }
  }

  /// Holding the turn, after a commit: tells Observation, the observers, then the commit
  /// observers.
  ///
  /// The observers run here, in the turn, on the dispatching thread, before the dispatch
  /// returns; what they dispatch is queued behind the current action.
  ///
  /// - Parameters:
  ///   - commit: The change committed.
  ///   - old: The state before, when it was kept: an `Equatable` state equal to it tells no
  ///     observer.
  ///   - touched: The bytes the handlers may have changed; nil when unknown.
  ///   - chain: The chain of the dispatch.
  @inlinable
  func committed(
    _ commit: PendingCommit, old: State?, touched: [Range<Int>]?, _ chain: Chain<State>
  ) {
    if old == nil || !isUnchanged(since: old) {
      if isObserved { tellObservation() }
      if !watching.isEmpty, watching.mayChange(touched: touched) {
        tellObservers(commit, old: old, touched: touched)
      }
    }
    if chain.recordings.isEmpty { return }
    let state = reducer.state
    for recording in chain.recordings { recording.finish(state, commit) }
  }

  // MARK: Telling the observers

  /// Whether the state is equal to the one before a change, for an `Equatable` state.
  @usableFromInline
  func isUnchanged(since old: State?) -> Bool {
    guard let old, let isEqual else { return false }
    return isEqual(old, reducer.state)
  }

  /// Tells the observers of a change.
  @usableFromInline
  func tellObservers(_ commit: PendingCommit, old: State?, touched: [Range<Int>]?) {
    // A copy of the list: an observer may subscribe or cancel while it is told.
    let observers = self.observers
    observers.tell(
      Reducer.Change(commit: commit, old: old, touched: touched), state: reducer.state)
  }

  /// Tells Observation's registrar that the state changed.
  @usableFromInline
  func tellObservation() {
    guard let store else { return }
    registrar.withMutation(of: store, keyPath: \.state) {}
  }

  // MARK: Failures and the end of a turn

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
}

/// A piece of work the store carries out in its turn.
@usableFromInline
enum Work {
  /// An action dispatched from the top of the chain; a fallback's failure is not fallen back.
  case action(any Action, isFallback: Bool)
  /// Actions dispatched one after another (`dispatch([a, b])`).
  case sequence([any Action])
  /// The rest of a chain, from a `next` called after its dispatch ended: `run` carries it out.
  case resume(any Action, run: () -> DispatchError?)

  @usableFromInline var isFallback: Bool {
    if case .action(_, let isFallback) = self { return isFallback }
    return false
  }

  /// The action a failure of the work after its turn is reported for.
  @usableFromInline var action: any Action {
    switch self {
    case .action(let action, _), .resume(let action, _): action
    case .sequence(let actions): actions.last ?? Batch([])
    }
  }
}

/// The engine's steps that code compiled for any state calls (a middleware's `next` and
/// context), made where the store's state is known so that they run compiled for it.
@usableFromInline
struct Specialized<State: Sendable>: Sendable {
  /// Runs the rest of a chain for a `next`: ``StoreCore/pass(_:to:dispatch:)``.
  @usableFromInline let pass:
    @Sendable (StoreCore<State>, any Action, ChainNode<State>?, UInt64) throws(DispatchError) ->
      Void
  /// Dispatches work from a middleware's context: ``StoreCore/dispatch(_:returning:)``.
  @usableFromInline let dispatch: @Sendable (StoreCore<State>, Work) -> Result<State, DispatchError>

  @inlinable
  init() {
    pass = { core, action, node, dispatch throws(DispatchError) in
      try core.pass(action, to: node, dispatch: dispatch)
    }
    dispatch = { core, work in core.dispatch(work, returning: { $0 }) }
  }
}

/// What the thread holding a store's turn keeps track of: the dispatch it is carrying out, the
/// work queued behind it, and whether the store has closed.
///
/// It is not generic and its fields are private, so the compiler sees every access to them and
/// checks their exclusivity when it compiles; the same fields in the generic engine would be
/// checked at run time, on every dispatch.
///
/// Touched only by the thread holding the turn.
@usableFromInline
final class Agenda: @unchecked Sendable {
  // `@unchecked Sendable`: touched only by the thread holding the store's turn.
  private var followUps: [Work] = []
  private var nextFollowUp = 0
  /// How many of `followUps` wait: read by every dispatch, where `followUps.count` would be an
  /// access the compiler checks at run time (its elements' deinitialisers may run any code).
  private var waiting = 0
  private var dispatch: UInt64 = 0
  private var closed = false

  /// The dispatch being carried out: a `next` of another one is queued, not run in it.
  @usableFromInline var currentDispatch: UInt64 { dispatch }

  /// Whether the store has closed: nothing more is run.
  @usableFromInline var isClosed: Bool { closed }

  /// Whether work is queued behind the current action.
  @usableFromInline var hasFollowUps: Bool { waiting > 0 }

  /// Starts a dispatch of its own: an action from the top of the chain, or a late `next`.
  @usableFromInline
  func beginDispatch() {
    dispatch &+= 1
  }

  func close() {
    closed = true
  }

  /// Queues work to run after the current action.
  @usableFromInline
  func append(_ work: Work) {
    followUps.append(work)
    waiting += 1
  }

  /// The next queued work, in the order it was queued; nil once every one was taken.
  @usableFromInline
  func takeFollowUp() -> Work? {
    guard nextFollowUp < followUps.count else {
      followUps.removeAll(keepingCapacity: true)
      nextFollowUp = 0
      return nil
    }
    let work = followUps[nextFollowUp]
    nextFollowUp += 1
    waiting -= 1
    return work
  }
}
