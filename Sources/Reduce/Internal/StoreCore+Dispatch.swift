/// The path of one action dispatched on its own, from `Store.dispatch` to the commit: the path
/// every dispatch takes, so the one part of the core that is inlinable.
///
/// Compiled where the store is used, it is specialised for the store's state. Left generic,
/// each generic type it touches (`Result<State, _>`, a route's steps, the commit observers)
/// costs a look-up of its metadata at run time: measured on `counter`, 20,060 instructions per
/// dispatch generic, against the figures in Guides/Performance.md specialised. Everything else
/// (queued work, batches, observers, registration) is ordinary internal code.
extension StoreCore {
  /// Dispatches an action: queued behind the current one when this thread is dispatching,
  /// otherwise carried out in the turn; the result is the state it left.
  @inlinable
  func dispatch(_ action: any Action) -> Result<State, DispatchError> {
    dispatch(action, returning: { $0 })
  }

  /// Dispatches an action from a task: a task that finds the store busy suspends.
  @inlinable
  func send(_ action: any Action) async -> Result<State, DispatchError> {
    await send(action, returning: { $0 })
  }

  /// Dispatches an action and reads a value from the state it left, in the turn, so that no
  /// caller keeps the state while other actions change it.
  @inlinable
  func dispatch<Value>(_ action: any Action, returning read: (State) -> Value)
    -> Result<Value, DispatchError>
  {
    if turn.isHeldByCurrentThread {
      queue(.action(action, isFallback: false))
      return .success(read(reducer.state))
    }
    turn.acquire()
    let (result, plan) = carryOut(action, reading: read)
    return release(result, ranWith: plan, reportingFor: action)
  }

  /// As `dispatch(_:returning:)`, from a task.
  @inlinable
  func send<Value>(_ action: any Action, returning read: (State) -> Value) async
    -> Result<Value, DispatchError>
  {
    await turn.acquireSuspending()
    let (result, plan) = carryOut(action, reading: read)
    return release(result, ranWith: plan, reportingFor: action)
  }

  /// Holding the turn: carries out an action and every follow-up it queued, then reads the
  /// value unless it failed, then runs what the reader dispatched (which it should not).
  ///
  /// The dispatch runs with the plan it found, which it returns: the chain's commit observers
  /// then ask for `afterTurn` as the chain was when it started.
  @inlinable
  func carryOut<Value>(_ action: any Action, reading read: (State) -> Value)
    -> (Result<Value, DispatchError>, Plan<State>)
  {
    let plan = plan
    let failure = run(action, from: plan.chain.first, in: plan)
    if let failure { handle(failure, isFallback: false) }
    if agenda.hasFollowUps { runFollowUps() }
    let result: Result<Value, DispatchError> =
      if let failure { .failure(failure) } else { .success(read(reducer.state)) }
    if agenda.hasFollowUps { runFollowUps() }
    return (result, plan)
  }

  /// Holding the turn, once a dispatch that ran with `plan` is carried out: releases the turn,
  /// then runs the commit observers' `afterTurn` (their failures reported for `action`).
  ///
  /// Always inlined: once per dispatch, where the optimiser left it a call (counter +41
  /// instructions).
  @inlinable @inline(__always)
  func release<Value>(
    _ result: Result<Value, DispatchError>, ranWith plan: Plan<State>,
    reportingFor action: any Action
  ) -> Result<Value, DispatchError> {
    turn.release()
    guard plan.hasAfterTurn else { return result }
    return finish(result, afterTurn: plan.chain.afterTurn, action: action)
  }

  /// Runs the rest of a chain for an action a middleware passed on: at once during the
  /// dispatch it belongs to; queued when this thread is carrying out another; as a dispatch of
  /// its own otherwise.
  @inlinable
  func pass(_ action: any Action, to node: ChainNode<State>?, dispatch: UInt64)
    throws(DispatchError)
  {
    let isHeld = turn.isHeldByCurrentThread
    guard isHeld, dispatch == agenda.currentDispatch else {
      let rest = Work.resume(action, run: { self.run(action, from: node, in: nil) })
      if isHeld { queue(rest) } else { try passLate(rest) }
      return
    }
    try runChain(action, from: node, in: nil)
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

  /// Holding the turn: hands the action to a middleware, or (nil) to the reducers.
  ///
  /// The reducers run with the store's registry as it is when the action reaches them: a
  /// middleware may register a mutator before it calls `next`. `plan` is the store's plan when
  /// the caller has just read it and no middleware ran since; nil: it is read here.
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

  /// Holding the turn: reduces an action and shows its commit to the chain's commit observers.
  ///
  /// A batch, an action of a batch, and an action whose state before must be kept take the
  /// general path.
  @inlinable
  func reduce(_ action: any Action, in plan: Plan<State>) throws(DispatchError) {
    if type(of: action) == Batch.self, let batch = action as? Batch {
      try reduce(batch, in: plan)
      return
    }
    if reducer.status.isStaging {
      try reducer.stage(action)
      return
    }
    let route = plan.registry.route(for: action)
    let chain = plan.chain
    if route.mayThrow || watching.needsOldState {
      let change = try reducer.commit(
        action, route: route, chain: chain, keepOld: watching.needsOldState)
      if let change { committed(change, chain) }
      return
    }
    if chain.recordings.isEmpty && watching.isEmpty {
      // Nobody to show the commit to: no commit to make.
      if try reducer.changeInPlace(action, route: route), isObserved { tellObservation() }
      return
    }
    guard let commit = try reducer.commitInPlace(action, route: route, chain: chain)
    else { return }
    if isObserved { tellObservation() }
    if !watching.isEmpty, watching.mayChange(touched: route.touched) {
      tellObservers(commit, touched: route.touched)
    }
    if chain.recordings.isEmpty { return }
    let state = reducer.state
    for recording in chain.recordings { recording.finish(state, commit) }
  }
}
