public import Synchronization

#if canImport(Glibc)
  public import Glibc
#elseif canImport(Musl)
  public import Musl
#elseif canImport(Darwin)
  public import Darwin
#endif

/// The dispatch turn: one thread at a time runs actions through a store's chain and reducers.
///
/// A thread that finds the turn free takes it and runs its own work. One that finds it taken
/// does not wait for it: it queues its work as a ``TurnRequest`` and waits for the result (a
/// thread yields a few times, then sleeps; a task first spins a moment and yields a few times
/// trying again, then suspends); the turn holder, once its own work and follow-ups are done and
/// its result is taken, carries out the queued requests in arrival order, hands each its result,
/// and wakes it. So under
/// contention the turn stays on one running thread, which works through the queue (combining,
/// as in flat combining or a database's group commit), instead of passing from thread to thread
/// with a sleep and a wake-up per action. A turn holder serves at most `combiningLimit` requests
/// of threads (`taskCombiningLimit` of tasks) and then hands the turn to the next requester, so
/// no dispatch waits long for its own result.
///
/// When nobody waits, the turn is taken and given up without the lock: a compare-and-exchange of
/// `holder` from nobody to the thread, and a store of nobody. A request is queued with the lock
/// held, and serving requests takes it too. A request queued just as the turn is given up could
/// be missed by both sides; they meet as a reader and a change of the state do
/// (`StoreCore.readState()`): the requester counts its request in `waitingRequests`, then looks
/// at `holder`; the holder giving the turn up stores nobody in `holder`, then looks at
/// `waitingRequests`; all with sequentially consistent operations (Dekker's pattern). So at least
/// one of them sees the other, and whichever then takes the turn serves the request (the
/// requester takes its request back out and runs its work itself). Measured: the two holds of the
/// lock of an uncontended dispatch cost about 110 instructions of `counter`'s 880.
extension StoreCore {
  /// The most requests one turn holder carries out for others before handing the turn to a
  /// waiting thread.
  @inlinable static var combiningLimit: Int { 64 }

  /// The most requests one turn holder carries out before handing the turn to a waiting task.
  ///
  /// Larger than for a thread: a task handed the turn runs only once the executor reaches it,
  /// behind every other task ready to run, and meanwhile nobody can serve the queue. Measured,
  /// 1,000 tasks sending on 2 cores: 2.5% of one thread's throughput when a task was handed the
  /// turn every 64 requests.
  @inlinable static var taskCombiningLimit: Int { 4096 }

  /// How many times a task that finds the turn taken looks again, after ``waitBriefly()``,
  /// before it yields.
  @inlinable static var spinRounds: Int { 8 }

  /// How many times a task that finds the turn taken yields to other tasks and tries again
  /// before it queues its work and suspends.
  ///
  /// A queued task costs a suspension and a resumption, and once many wait, the turn holder
  /// spends its time waking them while each comes back to queue again. Measured, 1,000 tasks
  /// sending on 2 cores: 4 to 40% of one thread's throughput from run to run when a task queued
  /// after its first looks; with the first try made without a suspension point (`Store.send`),
  /// 20% with one yield, 31 to 37% with four or eight.
  @inlinable static var yieldingRounds: Int { 4 }

  /// How many times a thread whose request is queued gives the processor up and looks whether
  /// the request ended, before it sleeps.
  @inlinable static var yieldingLooks: Int { 16 }

  /// Sets the turn's holder: nobody or a hand-over, by the holder; itself, by the thread or task
  /// it was handed to.
  @inlinable
  func setHolder(_ thread: ThreadID) {
    holder.store(thread.raw, ordering: .sequentiallyConsistent)
  }

  /// Takes the turn for `thread` if nobody holds it; returns whether it did.
  @inlinable
  func takeTurn(_ thread: ThreadID) -> Bool {
    holder.compareExchange(
      expected: ThreadID.nobody.raw, desired: thread.raw, ordering: .sequentiallyConsistent
    ).exchanged
  }

  /// Gives the turn up, unless a request waits; returns whether it did (the caller, still
  /// holding the turn, serves the requests otherwise).
  @inlinable
  func giveTurnUp(_ thread: ThreadID) -> Bool {
    guard waitingRequests.load(ordering: .sequentiallyConsistent) == 0 else { return false }
    setHolder(.nobody)
    guard waitingRequests.load(ordering: .sequentiallyConsistent) != 0 else { return true }
    // A request was queued as the turn was given up: take the turn back to serve it, unless its
    // requester or another thread took it meanwhile (and serves it).
    return !takeTurn(thread)
  }

  /// Queues a request; the lock must be held.
  ///
  /// - Returns: False when the turn came free meanwhile and `thread` took it instead: the request
  ///   is then not queued, and the caller runs its work itself.
  @inlinable
  func enqueue(
    _ request: TurnRequest<State>, _ fields: inout CoreFields<State>, for thread: ThreadID
  )
    -> Bool
  {
    fields.incoming.append(request)
    waitingRequests.add(1, ordering: .sequentiallyConsistent)
    // The holder may have given the turn up without seeing the request (see above).
    guard holder.load(ordering: .sequentiallyConsistent) == ThreadID.nobody.raw,
      takeTurn(thread)
    else { return true }
    fields.incoming.removeLast()
    waitingRequests.subtract(1, ordering: .sequentiallyConsistent)
    return false
  }

  /// The thread holding the turn, for that thread itself: read back from `holder`, without
  /// asking the system (``ThreadID/current``).
  @inlinable
  var turnHolder: ThreadID {
    ThreadID(raw: holder.load(ordering: .relaxed))
  }

  /// Whether `thread` holds the turn.
  @inlinable
  func holds(_ thread: ThreadID) -> Bool {
    holder.load(ordering: .sequentiallyConsistent) == thread.raw
  }

  /// Waits a moment, without the lock and without suspending, while someone holds the turn: a
  /// task's look before it queues its work; returns whether the turn looks free.
  ///
  /// Most turns last well under a microsecond, less than it costs a task to suspend and be
  /// resumed. Measured: eight tasks sending to one store on two cores took 0.5 to 12 s for
  /// 160,000 sends when every busy find suspended, 0.04 to 0.1 s with this wait. It is bounded:
  /// a few hundred reads of a flag, then the task queues. (A thread does not wait so before it
  /// queues: with more threads than processors, its spinning took the processor from the turn
  /// holder; it yields while its request is carried out instead, see ``wait(for:)``.)
  @inlinable
  func waitBriefly() -> Bool {
    var reads = 0
    while holder.load(ordering: .relaxed) != ThreadID.nobody.raw {
      reads += 1
      if reads == 256 { return false }
    }
    return true
  }

  /// Queues work behind the current action of this thread, which holds the turn.
  ///
  /// - Returns: The state at the time it was queued.
  @inlinable
  func queue(_ work: PendingWork<State>) -> State {
    local.pointee.pending.append(work)
    return local.pointee.state
  }

  /// Queues work dispatched by the turn holder itself (from a middleware or an observer) behind
  /// the current action; stops the process when a reducer dispatched it.
  ///
  /// - Returns: The state at the time it was queued.
  @usableFromInline
  func queueReentrant(_ work: PendingWork<State>) -> State {
    if local.pointee.inReducers {
      // A mistake of the caller's: `fatalError`, whose message an optimized build prints too.
      fatalError(
        "A reducer dispatched to the store. Reducers must be pure functions of their substate and action: dispatch follow-up actions from a middleware or an observer instead."
      )
    }
    return queue(work)
  }

  /// Carries out `work` in the store's turn and returns its result.
  ///
  /// When this thread holds the turn already (a dispatch from a middleware or an observer), the
  /// work is queued behind the current action and the result is the state now. When another
  /// thread holds it, the work is queued for that thread, which carries it out; when nobody
  /// does, this thread takes the turn.
  ///
  /// `work` is made where it is used: for a thread that takes the turn, it is made and consumed
  /// at once.
  @inlinable
  func carryOut(_ work: @autoclosure () -> PendingWork<State>) -> Result<State, DispatchError> {
    let thread = ThreadID.current
    if takeTurn(thread) { return runOwnWork(work()) }
    return carryOut(work(), whileTaken: thread)
  }

  /// Carries out `work` for `thread`, which found the turn taken: queued behind its own current
  /// action when it holds the turn, or for the thread that does, unless the turn came free
  /// meanwhile and `thread` took it.
  @inlinable
  func carryOut(_ work: PendingWork<State>, whileTaken thread: ThreadID)
    -> Result<State, DispatchError>
  {
    if holds(thread) { return .success(queueReentrant(work)) }
    // Handed the turn, or took it when it came free: this thread carries its work out.
    guard case .done(let result, let waits) = queueAndWait(work, read: nil, for: thread) else {
      return runOwnWork(work)
    }
    return settle(result, waits)
  }

  /// Queues the work of `thread`, which found the turn taken, for the turn holder, and blocks
  /// until it ended or the turn was handed to `thread`.
  ///
  /// - Parameters:
  ///   - work: The work.
  ///   - read: The request's reader, for a reading dispatch (`StoreCore+Reading.swift`).
  ///   - thread: The calling thread.
  /// - Returns: How the request ended; nil when the turn came free before it was queued, and
  ///   `thread` took it.
  @inlinable
  func queueAndWait(
    _ work: PendingWork<State>, read: (@Sendable (State) -> Void)?, for thread: ThreadID
  ) -> TurnRequest<State>.Outcome? {
    let request = TurnRequest(work: work, waiter: .thread(Condition()), read: read)
    guard fields.withLock({ enqueue(request, &$0, for: thread) }) else {
      request.dropUnqueued()
      return nil
    }
    return wait(for: request)
  }

  /// Queues the work of a task that found the turn taken for the turn holder, and suspends
  /// until it ended or the turn was handed to this task.
  ///
  /// - Parameters:
  ///   - work: The work.
  ///   - read: The request's reader, for a reading dispatch (`StoreCore+Reading.swift`).
  ///   - whenHeld: The outcome when the task's thread holds the turn already (a re-entrant
  ///     send): it queues the work behind the current action.
  /// - Returns: How the request ended.
  @inlinable
  func queueAndSuspend(
    _ work: PendingWork<State>, read: (@Sendable (State) -> Void)?,
    whenHeld: () -> TurnRequest<State>.Outcome
  ) async -> TurnRequest<State>.Outcome {
    await withCheckedContinuation {
      (continuation: CheckedContinuation<TurnRequest<State>.Outcome, Never>) in
      if holds(.current) {
        continuation.resume(returning: whenHeld())
        return
      }
      if takeTurn(.handedOver) {
        continuation.resume(returning: .turn)
        return
      }
      let request = TurnRequest(work: work, waiter: .task(continuation), read: read)
      if !fields.withLock({ enqueue(request, &$0, for: .handedOver) }) {
        continuation.resume(returning: .turn)
      }
    }
  }

  /// Carries out `work` from a task: as ``carryOut(_:)``, but a task that finds the turn taken
  /// suspends until its work is done, instead of blocking its thread.
  @inlinable
  func send(_ work: PendingWork<State>) async -> Result<State, DispatchError> {
    // The caller tried at once (`Store.send`): yield to other tasks and try again before
    // queueing.
    for _ in 0..<Self.yieldingRounds {
      // A task that yields may resume on another thread: it asks for its own each time.
      await Task.yield()
      if let result = tryRunningNow(work) { return result }
    }
    let outcome = await queueAndSuspend(work, read: nil) { .done(.success(queue(work)), []) }
    switch outcome {
    case .done(let result, let waits):
      return settle(result, waits)
    case .read:
      preconditionFailure("A request with no reader ends with its result.")
    case .turn:
      claimTurn()
      return runOwnWork(work)
    }
  }

  /// Runs `work` at once if the turn is free, or comes free within a moment; nil otherwise.
  @inlinable
  func tryRunningNow(_ work: PendingWork<State>) -> Result<State, DispatchError>? {
    tryRunningNow(work) { runOwnWork($0) }
  }

  /// Carries `work` out with `run`, holding the turn, if the turn is free or comes free within a
  /// moment; nil otherwise.
  @inlinable
  func tryRunningNow<Ending>(_ work: PendingWork<State>, _ run: (PendingWork<State>) -> Ending)
    -> Ending?
  {
    let thread = ThreadID.current
    for round in 0...Self.spinRounds {
      // The turn is asked for only when it looks free: a compare-and-exchange spinning on the
      // holder's word would slow the holder.
      if round > 0, !waitBriefly() { return nil }
      if takeTurn(thread) { return run(work) }
    }
    return nil
  }

  /// Gets the turn for this thread: takes it, or waits to be handed it.
  ///
  /// - Returns: False when this thread held it already (a re-entrant call); true when it got
  ///   it now, and must then end its work with ``finishOwnWork(after:)``, which gives it up.
  @inlinable
  func acquireTurn() -> Bool {
    let thread = ThreadID.current
    if takeTurn(thread) { return true }
    if holds(thread) { return false }
    let request = TurnRequest<State>(work: nil, waiter: .thread(Condition()))
    if fields.withLock({ enqueue(request, &$0, for: thread) }) {
      _ = wait(for: request)
    } else {
      request.dropUnqueued()
    }
    return true
  }

  /// Runs `body` holding the turn (at once if this thread already holds it): for work that
  /// must run on this thread, such as a closure that is not `Sendable`.
  @inlinable
  func withTurn<Result>(_ body: () -> Result) -> Result {
    guard acquireTurn() else { return body() }
    let result = body()
    _ = finishOwnWork(after: nil)
    return result
  }

  /// Blocks until a request of this thread is carried out or handed the turn.
  @inlinable
  func wait(for request: TurnRequest<State>) -> TurnRequest<State>.Outcome {
    guard case .thread(let condition) = request.waiter else {
      preconditionFailure("Only a thread's request is waited for by blocking.")
    }
    defer { condition.destroy() }
    // Most requests end within microseconds, less than it costs to sleep and be woken: look for
    // that a few times, giving the processor to others (the turn holder) meanwhile. Measured, 8
    // threads on 2 cores: 15 to 20% of one thread's throughput when every request slept, 45 to
    // 53% with these looks.
    var looks = 0
    while looks < Self.yieldingLooks, !request.ended.load(ordering: .acquiring) {
      sched_yield()
      looks += 1
    }
    let outcome = fields.withLock(
      waitingOn: condition, while: { _ in request.outcome == nil },
      { _ -> TurnRequest<State>.Outcome in
        let outcome = request.outcome ?? .turn
        if case .turn = outcome { setHolder(.current) }
        return outcome
      })
    return outcome
  }

  /// Records that the calling thread holds the turn it was handed.
  @inlinable
  func claimTurn() {
    setHolder(.current)
  }

  /// Runs work with the turn held, then finishes the turn.
  ///
  /// - Parameter work: The work.
  /// - Returns: The state after the work and its follow-ups, or the work's failure.
  @inlinable
  func runOwnWork(_ work: consuming PendingWork<State>) -> Result<State, DispatchError> {
    finishOwnWork(after: perform(work))
  }

  /// The result of a dispatch, once what middleware asked to run before it returns has run.
  ///
  /// That is `MiddlewareContext.beforeReturning(_:)`'s work, run on the dispatcher's thread or
  /// task with the turn released. A failure there fails a dispatch that succeeded, and is
  /// reported.
  @inlinable
  func settle<Value>(_ result: Result<Value, DispatchError>, _ waits: [ReturnWait])
    -> Result<Value, DispatchError>
  {
    if waits.isEmpty { return result }
    let failure = runReturnWaits(waits)
    if case .success = result, let failure { return .failure(failure) }
    return result
  }

  /// Runs the waits of ``settle(_:_:)``, reporting each failure; returns the first.
  @usableFromInline
  func runReturnWaits(_ waits: [ReturnWait]) -> DispatchError? {
    var first: DispatchError?
    for wait in waits {
      do {
        try wait.body()
      } catch {
        let failure =
          error as? DispatchError
          ?? .middlewareFailed(name: wait.name, action: wait.action, underlying: error)
        report(failure)
        if first == nil { first = failure }
      }
    }
    return first
  }
}
