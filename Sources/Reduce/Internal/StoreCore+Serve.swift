public import Synchronization

/// The end of a turn: the turn holder runs its follow-ups, takes its result, then carries out
/// the requests others queued (combining, see `StoreCore+Turn.swift`) and gives the turn up or
/// hands it over.
extension StoreCore {
  /// Ends this thread's own work in its turn: runs its follow-ups, takes the state as its
  /// result, then carries out the requests that arrived meanwhile and gives the turn up (or
  /// hands it over); last, with the turn released, runs what middleware asked to run before
  /// this work's dispatch returns (``settle(_:_:)``).
  ///
  /// - Parameter failure: The work's failure, or nil.
  /// - Returns: The state after this thread's work and its follow-ups, and no other's, or the
  ///   work's failure.
  @inlinable
  func finishOwnWork(after failure: consuming DispatchError?) -> Result<State, DispatchError> {
    runFollowUps()
    guard local.pointee.returnWaits.isEmpty else { return finishOwnWork(waiting: failure) }
    let state = local.pointee.state
    if !giveTurnUp(turnHolder) { serveRequests() }
    // The result is made where it is returned: passed through a variable it would be copied.
    if let failure { return .failure(failure) }
    return .success(state)
  }

  /// ``finishOwnWork(after:)`` when middleware asked for work before the dispatch returns.
  @usableFromInline
  func finishOwnWork(waiting failure: DispatchError?) -> Result<State, DispatchError> {
    let waits = takeReturnWaits()
    let state = local.pointee.state
    if !giveTurnUp(turnHolder) { serveRequests() }
    return settle(failure.map(Result.failure) ?? .success(state), waits)
  }

  /// Runs the work the turn holder queued for itself (follow-ups, a fallback action), in order;
  /// what they queue in turn runs after them.
  ///
  /// Always inlined: it is on every dispatch's path, where a call measured 11 instructions of
  /// `counter`'s 877.
  @inlinable @inline(__always)
  func runFollowUps() {
    while !local.pointee.pending.isEmpty {
      let followUps = local.pointee.pending
      local.pointee.pending = []
      for work in followUps { _ = perform(work) }
    }
  }

  /// Runs, in order, the work queued from position `mark` on (the follow-ups of the action just
  /// processed), before the work queued earlier.
  @inlinable
  func runQueued(from mark: Int) {
    while local.pointee.pending.count > mark {
      _ = perform(local.pointee.pending.remove(at: mark))
    }
  }

  /// Carries out the queued requests of other threads and tasks, then gives the turn up: the
  /// turn holder's last step.
  ///
  /// A request that needs the turn itself, or the first one past ``combiningLimit``, is handed
  /// the turn instead, and serves the rest.
  @inlinable
  func serveRequests() {
    var served = 0
    // The request carried out last, and its failure: it is told its result in the same hold of
    // the lock that takes the next one (one hold per request fewer).
    var current: TurnRequest<State>?
    var failure: DispatchError?
    while true {
      // The follow-ups of the request just carried out run before it is told its result; a
      // reader reads it here, out of the lock.
      if let request = current {
        runFollowUps()
        if failure == nil, let read = request.read {
          read(local.pointee.state)
          // What a reader dispatched, against its documentation, still runs: queued behind.
          runFollowUps()
        }
      }
      var resume:
        (CheckedContinuation<TurnRequest<State>.Outcome, Never>, TurnRequest<State>.Outcome)?
      let step = fields.withLock { fields -> ServeStep<State> in
        if let request = current {
          // The requester runs what its middleware asked to run before it returns, on its own
          // thread: dispatchers that wait for a flush then share it. (Measured, 8 threads on a
          // durable log: running that work here for every request served, and telling them
          // after, gave 2.1 to 2.3 times one thread's durable throughput; this, 2.6 to 3.4.)
          //
          // A request with a reader is not given the state: a result kept until its requester
          // wakes would make the next change here copy what it changes (copy-on-write).
          let outcome: TurnRequest<State>.Outcome =
            request.read == nil
            ? .done(failure.map(Result.failure) ?? .success(local.pointee.state), takeReturnWaits())
            : .read(failure, takeReturnWaits())
          tell(request, outcome)
          if case .task(let continuation) = request.waiter { resume = (continuation, outcome) }
        }
        guard fields.incomingHead < fields.incoming.count else {
          if !fields.incoming.isEmpty {
            fields.incoming.removeAll(keepingCapacity: fields.incoming.count < 1024)
            fields.incomingHead = 0
          }
          setHolder(.nobody)
          return .end
        }
        let request = fields.incoming[fields.incomingHead]
        fields.incomingHead += 1
        waitingRequests.subtract(1, ordering: .sequentiallyConsistent)
        if fields.incomingHead >= 1024, fields.incomingHead * 2 >= fields.incoming.count {
          // Under sustained load the queue never empties: drop the requests already taken.
          fields.incoming.removeFirst(fields.incomingHead)
          fields.incomingHead = 0
        }
        let limit = request.isTask ? Self.taskCombiningLimit : Self.combiningLimit
        guard request.work == nil || served >= limit else { return .carryOut(request) }
        setHolder(.handedOver)
        tell(request, .turn)
        return .handOver(request)
      }
      // A task is resumed outside the lock.
      if let (continuation, outcome) = resume { continuation.resume(returning: outcome) }
      switch step {
      case .carryOut(let request):
        current = request
        failure = request.work.flatMap { perform($0) }
        served += 1
      case .handOver(let request):
        if case .task(let continuation) = request.waiter { continuation.resume(returning: .turn) }
        return
      case .end:
        return
      }
    }
  }

  /// Keeps `wait` to run before the dispatch `flow` belongs to returns; runs it now when this
  /// thread is not carrying that dispatch out.
  func runBeforeReturning(_ wait: ReturnWait, _ flow: Flow<State>) {
    if activeItem.load(ordering: .acquiring) == flow.item, flow.thread == ThreadID.current {
      local.pointee.returnWaits.append(wait)
    } else {
      _ = settle(.success(readState()), [wait])
    }
  }

  /// Takes what middleware asked to run before the current work's dispatch returns.
  @inlinable
  func takeReturnWaits() -> [ReturnWait] {
    if local.pointee.returnWaits.isEmpty { return [] }
    defer { local.pointee.returnWaits = [] }
    return local.pointee.returnWaits
  }

  /// Records how a request ended and wakes a thread waiting for it; the lock must be held.
  @inlinable
  func tell(_ request: TurnRequest<State>, _ outcome: TurnRequest<State>.Outcome) {
    request.outcome = outcome
    request.ended.store(true, ordering: .releasing)
    if case .thread(let condition) = request.waiter { condition.broadcast() }
  }
}

/// What the turn holder does next while it serves the requests of others.
@usableFromInline
enum ServeStep<State: Sendable> {
  /// Carry out this request.
  case carryOut(TurnRequest<State>)
  /// This request holds the turn now: stop.
  case handOver(TurnRequest<State>)
  /// Nothing is left: the turn was given up.
  case end
}
