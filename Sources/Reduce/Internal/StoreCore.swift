public import Observation
public import Synchronization

/// A middleware in a store's chain, with the name it was registered under.
///
/// A class, so that passing it to a context costs one reference count.
@usableFromInline
final class MiddlewareEntry<State: Sendable>: Sendable {
  @usableFromInline let name: String
  @usableFromInline let middleware: any Middleware<State>
  /// The code the middleware runs around every reduction, if it has any.
  let reductionHook: ReductionHook<State>?

  init(name: String, middleware: any Middleware<State>) {
    self.name = name
    self.middleware = middleware
    self.reductionHook = (middleware as? any ReductionHookProviding<State>)?.reductionHook
  }
}

/// Work queued for the thread that holds the dispatch turn.
@usableFromInline
enum PendingWork<State: Sendable>: Sendable {
  /// An action sent from the top of the chain; a failing fallback action is not fallen back.
  case dispatch(any Action, isFallback: Bool)
  /// A `next` call made after its dispatch ended: the rest of the plan from `index`.
  case resume(any Action, plan: ChainPlan<State>, index: Int)
  /// `dispatch([a, b, c])` made inside a dispatch: each action in turn, with the follow-ups it
  /// queues, stopping at the first failure.
  case sequence([any Action])
}

/// The observers of a store, as an immutable snapshot: one reference to copy out per action.
@usableFromInline
final class ObserverSnapshot<State: Sendable>: Sendable {
  @usableFromInline let observers: Observers<State>

  init(_ observers: Observers<State>) {
    self.observers = observers
  }
}

/// The mutable state of a ``StoreCore``.
///
/// It is kept behind a pointer so that accesses cost no dynamic exclusivity check. Every field is guarded by the core's lock, except those marked
/// "turn holder only".
@usableFromInline
struct CoreFields<State: Sendable> {
  @usableFromInline var registry = Registry<State>()
  /// The middleware chain, and which of its middleware each action type visits.
  @usableFromInline var plans = ChainPlans<State>(chain: []) {
    didSet {
      hasMiddleware = !plans.chain.isEmpty
      reductionHooks = plans.reductionHooks
    }
  }
  /// The reduction hooks of the chain's middleware; nil when none has one.
  @usableFromInline var reductionHooks: ReductionHooks<State>?
  /// The hooks the turn holder last reduced with.
  ///
  /// Kept alive here so that the turn holder can call them after releasing the lock without
  /// counting a reference per action; only the turn holder assigns it, under the lock. Typed
  /// `AnyObject` so that code running unspecialised looks up no generic metadata for it when
  /// there are no hooks.
  @usableFromInline var reductionHooksInUse: AnyObject?
  /// Whether the chain has any middleware.
  @usableFromInline var hasMiddleware = false
  /// The observers; nil when there are none.
  @usableFromInline var observers: ObserverSnapshot<State>?
  @usableFromInline var errorSinks: [UInt64: AsyncStream<DispatchError>.Continuation] = [:]
  @usableFromInline var closed = false
  @usableFromInline var owner: ThreadID?
  @usableFromInline var nextTicket: UInt64 = 0
  @usableFromInline var nowServing: UInt64 = 0
  @usableFromInline var waitingForTurn = 0
  @usableFromInline var pending: [PendingWork<State>] = []
  @usableFromInline var pendingHead = 0
  @usableFromInline var lastID: UInt64 = 0

  init() {}
}

/// What the thread holding the dispatch turn is doing; only that thread reads or writes it.
@usableFromInline
struct TurnFields {
  /// The number of dispatch items processed.
  @usableFromInline var itemCounter: UInt64 = 0
  /// Whether the item being processed is a fallback action.
  @usableFromInline var processingFallback = false
  /// How many `MiddlewareContext.withUnsafeState` closures are reading the state in place.
  @usableFromInline var borrowingState = 0

  init() {}
}

/// The engine behind a ``Store``: the state, the dispatch turn, the registries and observers.
///
/// Dispatches are serialized by a *turn*: a ticket queue under `lock`, so threads take turns in
/// FIFO order. The lock is held only to decide (take a ticket, swap a snapshot, take the state
/// out, put it back); reducers, middleware and observers run after it is released.
///
/// `@unchecked Sendable`: every mutable field lives in `fields`, guarded by `lock` (or, where
/// marked, touched only by the thread holding the dispatch turn).
@usableFromInline
final class StoreCore<State: Sendable>: @unchecked Sendable {
  @usableFromInline let lock = Lock()
  @usableFromInline let turnChanged = Condition()
  @usableFromInline let stateCommitted = Condition()
  @usableFromInline let fields: UnsafeMutablePointer<CoreFields<State>>
  /// The state, in an allocation of its own: while `reducing` is set, the turn holder
  /// changes it in place with the lock released and nobody else reads it; otherwise it is read
  /// under the lock, or by the turn holder, who alone may change it.
  @usableFromInline let stateStorage: UnsafeMutablePointer<State>
  /// Whether the turn holder is reducing the state in place.
  ///
  /// Only the turn holder writes it, with the lock held; other threads read it with the lock
  /// held, the turn holder also without (a middleware context reading the state). An atomic, so
  /// that the unlocked read is no race, and so that a commit needs no lock (`commit()`).
  @usableFromInline let reducing = Atomic<Bool>(false)
  /// How many readers wait for an in-place reduction to be committed; changed with the lock
  /// held, read by a commit made without it.
  @usableFromInline let waitingForState = Atomic<Int>(0)
  /// Turn holder only: what the thread holding the turn is doing, in an allocation of its own.
  @usableFromInline let turn: UnsafeMutablePointer<TurnFields>

  /// The dispatch item being processed by the turn holder (0 when none), so that a `next` can
  /// tell a call inside its own dispatch from a later one without taking the lock.
  @usableFromInline let activeItem = Atomic<UInt64>(0)
  /// Set once anything reads `Store.state`, after which Observation is told of every change.
  @usableFromInline let observationEnabled = Atomic<Bool>(false)
  @usableFromInline let registrar = ObservationRegistrar()
  /// The public store, for Observation's registrar.
  ///
  /// Set once, right after `init`.
  @usableFromInline weak var store: Store<State>?

  @usableFromInline let fallback: (@Sendable (DispatchError) -> (any Action)?)?
  /// `==` of the state, when `State` is `Equatable`.
  @usableFromInline let isEqual: (@Sendable (State, State) -> Bool)?
  /// The identity of `ReplaceState<State>`, looked up once.
  @usableFromInline let replaceStateType: ObjectIdentifier

  @usableFromInline
  init(initialState: State, fallback: (@Sendable (DispatchError) -> (any Action)?)?) {
    fields = .allocate(capacity: 1)
    fields.initialize(to: CoreFields())
    stateStorage = .allocate(capacity: 1)
    stateStorage.initialize(to: initialState)
    turn = .allocate(capacity: 1)
    turn.initialize(to: TurnFields())
    self.fallback = fallback
    self.replaceStateType = ObjectIdentifier(ReplaceState<State>.self)
    if let equatable = State.self as? any (Equatable & Sendable).Type {
      self.isEqual = Self.equality(of: equatable)
    } else {
      self.isEqual = nil
    }
  }

  deinit {
    lock.destroy()
    turnChanged.destroy()
    stateCommitted.destroy()
    fields.deinitialize(count: 1)
    fields.deallocate()
    stateStorage.deinitialize(count: 1)
    stateStorage.deallocate()
    turn.deinitialize(count: 1)
    turn.deallocate()
  }

  private static func equality<E: Equatable & Sendable>(of type: E.Type)
    -> @Sendable (State, State) -> Bool
  {
    // `State` is `E` here: the caller found it by a dynamic cast of `State.self`.
    { unsafeBitCast($0, to: E.self) == unsafeBitCast($1, to: E.self) }
  }

  @inlinable var identifier: ObjectIdentifier { ObjectIdentifier(self) }

  /// A new identifier for a sink or a stream; the lock must be held.
  @usableFromInline
  func makeIDLocked() -> UInt64 {
    fields.pointee.lastID &+= 1
    return fields.pointee.lastID
  }

  // MARK: Reading the state

  /// The committed state; waits while another thread reduces it in place.
  @inlinable
  func readState() -> State {
    lock.lock()
    defer { lock.unlock() }
    return committedStateLocked()
  }

  @inlinable
  func committedStateLocked() -> State {
    while true {
      if !reducing.load(ordering: .sequentiallyConsistent) { return stateStorage.pointee }
      precondition(
        fields.pointee.owner != ThreadID.current,
        "A reducer read the store's state or dispatched to it. Reducers must be pure functions of their substate and action: dispatch follow-up actions from a middleware or an observer instead."
      )
      // Announce the wait, then look again: a commit made without the lock either came before
      // this second look, or sees the announcement and broadcasts under the lock, which it can
      // take only once this thread waits (see `commit()`).
      waitingForState.wrappingAdd(1, ordering: .sequentiallyConsistent)
      if reducing.load(ordering: .sequentiallyConsistent) { lock.wait(on: stateCommitted) }
      waitingForState.wrappingSubtract(1, ordering: .sequentiallyConsistent)
    }
  }

  /// Ends an in-place reduction, with the lock held, and wakes readers waiting for it.
  @inlinable
  func commitLocked() {
    reducing.store(false, ordering: .sequentiallyConsistent)
    if waitingForState.load(ordering: .sequentiallyConsistent) > 0 { stateCommitted.broadcast() }
  }

  /// Ends an in-place reduction without the lock, taking it only to wake waiting readers.
  ///
  /// The turn holder alone writes the state; the sequentially consistent flag and count make a
  /// reader either see the commit or be seen waiting (see `committedStateLocked()`).
  @inlinable
  func commit() {
    reducing.store(false, ordering: .sequentiallyConsistent)
    if waitingForState.load(ordering: .sequentiallyConsistent) > 0 {
      lock.lock()
      stateCommitted.broadcast()
      lock.unlock()
    }
  }

  // MARK: The dispatch turn

  /// Waits for the calling thread's turn, in FIFO order; the lock must be held.
  @inlinable
  func waitForTurnLocked(_ thread: ThreadID) {
    let ticket = fields.pointee.nextTicket
    fields.pointee.nextTicket &+= 1
    if ticket != fields.pointee.nowServing {
      fields.pointee.waitingForTurn += 1
      repeat { lock.wait(on: turnChanged) } while ticket != fields.pointee.nowServing
      fields.pointee.waitingForTurn -= 1
    }
    fields.pointee.owner = thread
  }

  /// Gives up the turn; the lock must be held and nothing may be pending.
  @inlinable
  func releaseTurnLocked() {
    fields.pointee.owner = nil
    fields.pointee.nowServing &+= 1
    if fields.pointee.waitingForTurn > 0 { turnChanged.broadcast() }
  }

  /// Whether queued work is waiting; the lock must be held.
  @inlinable
  var hasPendingLocked: Bool { fields.pointee.pendingHead < fields.pointee.pending.count }

  /// Runs queued work until none is left, then gives up the turn.
  ///
  /// - Returns: The state after everything that ran in this turn.
  @inlinable
  func drainAndRelease() -> State {
    while true {
      lock.lock()
      if hasPendingLocked {
        let work = fields.pointee.pending[fields.pointee.pendingHead]
        fields.pointee.pendingHead += 1
        lock.unlock()
        perform(work)
        continue
      }
      // Nothing is left: reset the queue and give the turn up in this same hold of the lock.
      if !fields.pointee.pending.isEmpty {
        fields.pointee.pending.removeAll(keepingCapacity: fields.pointee.pending.count < 64)
        fields.pointee.pendingHead = 0
      }
      // The turn holder is not reducing in place here: the state is committed.
      let state = stateStorage.pointee
      releaseTurnLocked()
      lock.unlock()
      return state
    }
  }

  /// Runs queued work until none is left, holding the turn.
  @inlinable
  func drainPending() {
    while true {
      lock.lock()
      guard hasPendingLocked else {
        fields.pointee.pending.removeAll(keepingCapacity: fields.pointee.pending.count < 64)
        fields.pointee.pendingHead = 0
        lock.unlock()
        return
      }
      let work = fields.pointee.pending[fields.pointee.pendingHead]
      fields.pointee.pendingHead += 1
      lock.unlock()
      perform(work)
    }
  }

  /// Queues work for the turn holder (this thread); the lock must be held and is released.
  ///
  /// - Returns: The committed state at the time of queueing.
  @inlinable
  func enqueueReleasingLock(_ work: PendingWork<State>) -> State {
    let state = committedStateLocked()
    fields.pointee.pending.append(work)
    lock.unlock()
    return state
  }

  /// Runs `body` holding the turn (at once if this thread already holds it).
  @usableFromInline
  func withTurn<Result>(_ body: () -> Result) -> Result {
    let thread = ThreadID.current
    lock.lock()
    if fields.pointee.owner == thread {
      lock.unlock()
      return body()
    }
    waitForTurnLocked(thread)
    lock.unlock()
    let result = body()
    _ = drainAndRelease()
    return result
  }

  // MARK: Dispatching

  /// Dispatches one action from the top of the chain.
  @inlinable
  func dispatch<A: Action>(_ action: A) -> Result<State, DispatchError> {
    let thread = ThreadID.current
    lock.lock()
    if fields.pointee.owner == thread {
      return .success(enqueueReleasingLock(.dispatch(action, isFallback: false)))
    }
    waitForTurnLocked(thread)
    if fields.pointee.hasMiddleware {
      if let plan = fields.pointee.plans.plan(for: ObjectIdentifier(A.self)) {
        if !plan.entries.isEmpty {
          lock.unlock()
          return dispatchThroughChain(action, plan)
        }
      } else {
        let plans = fields.pointee.plans
        lock.unlock()
        return dispatchThroughChain(action, makePlan(for: A.self, plans))
      }
    }
    // No middleware wants the action: as in a store without middleware.
    if let state = reduceSimpleReleasingLock(action) { return .success(state) }
    // No middleware: reduce in this same hold of the lock, and give the turn back in the same
    // hold as the commit when nothing else has to happen in between.
    switch reduceReleasingLock(action, releaseTurnWhenDone: true) {
    case .released(let state):
      return .success(state)
    case .failed(let error):
      handleFailure(error, isFallback: false)
      _ = drainAndRelease()
      return .failure(error)
    case .committed:
      return .success(drainAndRelease())
    }
  }

  /// Runs a typed dispatch through its plan, holding the turn, then gives the turn up.
  @inlinable
  func dispatchThroughChain<A: Action>(_ action: A, _ plan: ChainPlan<State>)
    -> Result<State, DispatchError>
  {
    let failure = process(typed: action, plan: plan)
    let state = drainAndRelease()
    return failure.map(Result.failure) ?? .success(state)
  }

  /// Dispatches actions one after another in one turn; stops at the first failure.
  @inlinable
  func dispatch(_ actions: [any Action]) -> Result<State, DispatchError> {
    dispatch(actions, unless: { nil })
  }

  /// Dispatches actions one after another in one turn, unless `refusal`, asked once this thread
  /// holds the turn (at once when it already holds it), says why not: then nothing runs, and
  /// that error is returned without being published.
  @usableFromInline
  func dispatch(_ actions: [any Action], unless refusal: () -> DispatchError?)
    -> Result<State, DispatchError>
  {
    let thread = ThreadID.current
    lock.lock()
    if fields.pointee.owner == thread {
      lock.unlock()
      if let refused = refusal() { return .failure(refused) }
      lock.lock()
      return .success(enqueueReleasingLock(.sequence(actions)))
    }
    waitForTurnLocked(thread)
    lock.unlock()
    if let refused = refusal() {
      _ = drainAndRelease()
      return .failure(refused)
    }
    var failure: DispatchError?
    for action in actions {
      failure = process(action, plan: plan(for: action), from: 0, isFallback: false)
      if failure != nil { break }
      drainPending()
    }
    let state = drainAndRelease()
    return failure.map(Result.failure) ?? .success(state)
  }

  /// Continues a dispatch whose `next` was called after the dispatch ended.
  @inlinable
  func resume(_ action: any Action, plan: ChainPlan<State>, from index: Int)
    throws(DispatchError)
  {
    let thread = ThreadID.current
    lock.lock()
    if fields.pointee.closed {
      lock.unlock()
      return
    }
    if fields.pointee.owner == thread {
      _ = enqueueReleasingLock(.resume(action, plan: plan, index: index))
      return
    }
    waitForTurnLocked(thread)
    lock.unlock()
    let failure = process(action, plan: plan, from: index, isFallback: false)
    _ = drainAndRelease()
    if let failure { throw failure }
  }

  /// Publishes a failure found outside a dispatch and falls back from it, unless it was found
  /// while this thread processes a fallback action (a fallback never falls back again).
  func report(_ error: DispatchError) {
    publish(error)
    guard let fallback else { return }
    let thread = ThreadID.current
    let holdsTurn = lock.withLock { fields.pointee.owner == thread }
    if holdsTurn && turn.pointee.processingFallback { return }
    guard let action = fallback(error) else { return }
    lock.lock()
    if fields.pointee.owner == thread {
      _ = enqueueReleasingLock(.dispatch(action, isFallback: true))
      return
    }
    waitForTurnLocked(thread)
    lock.unlock()
    _ = process(action, plan: plan(for: action), from: 0, isFallback: true)
    _ = drainAndRelease()
  }

  @usableFromInline
  func perform(_ work: PendingWork<State>) {
    switch work {
    case .dispatch(let action, let isFallback):
      _ = process(action, plan: plan(for: action), from: 0, isFallback: isFallback)
    case .resume(let action, let plan, let index):
      _ = process(action, plan: plan, from: index, isFallback: false)
    case .sequence(let actions):
      for action in actions {
        let mark = lock.withLock { fields.pointee.pending.count }
        let failure = process(action, plan: plan(for: action), from: 0, isFallback: false)
        drainPending(from: mark)
        if failure != nil { return }
      }
    }
  }

  /// Runs, in order, the work queued from position `mark` on (the follow-ups of the action just
  /// processed), before the work queued earlier.
  @usableFromInline
  func drainPending(from mark: Int) {
    while true {
      lock.lock()
      guard fields.pointee.pending.count > mark else {
        lock.unlock()
        return
      }
      let work = fields.pointee.pending.remove(at: mark)
      lock.unlock()
      perform(work)
    }
  }

  /// Runs one action through its plan from `index` as one dispatch item, holding the turn;
  /// publishes its failure and queues the fallback action.
  @inlinable
  func process(
    _ action: any Action, plan: ChainPlan<State>, from index: Int, isFallback: Bool
  ) -> DispatchError? {
    processItem(isFallback: isFallback) { item, thread throws(DispatchError) in
      try runChain(action, plan, from: index, item: item, thread: thread)
    }
  }

  /// Runs an action of a type known here through its whole plan as one dispatch item, as
  /// ``process(_:plan:from:isFallback:)`` does: the first middleware's context holds the action
  /// boxed once, not a copy of a box.
  @inlinable
  func process<A: Action>(typed action: A, plan: ChainPlan<State>) -> DispatchError? {
    processItem(isFallback: false) { item, thread throws(DispatchError) in
      let entries = plan.entries
      guard !entries.isEmpty else {
        try reduceLeavingChain(action, as: plan.actionType)
        return
      }
      try call(
        Unmanaged.passUnretained(entries[0]),
        MiddlewareContext(plan: plan, index: 0, action: action, item: item, thread: thread),
        Next(plan: plan, index: 1, item: item, thread: thread))
    }
  }

  /// Numbers a dispatch item, marks it active while `run` runs it, and publishes its failure.
  @inlinable @inline(__always)
  func processItem(
    isFallback: Bool, _ run: (UInt64, ThreadID) throws(DispatchError) -> Void
  ) -> DispatchError? {
    turn.pointee.itemCounter &+= 1
    let item = turn.pointee.itemCounter
    let outer = turn.pointee.processingFallback
    turn.pointee.processingFallback = isFallback
    activeItem.store(item, ordering: .releasing)
    defer {
      activeItem.store(0, ordering: .releasing)
      turn.pointee.processingFallback = outer
    }
    do throws(DispatchError) {
      try run(item, ThreadID.current)
      return nil
    } catch {
      handleFailure(error, isFallback: isFallback)
      return error
    }
  }

  /// Publishes a failure of the turn holder's dispatch and queues the fallback action.
  @usableFromInline
  func handleFailure(_ error: DispatchError, isFallback: Bool) {
    publish(error)
    if !isFallback, let fallback, let next = fallback(error) {
      lock.withLock { fields.pointee.pending.append(.dispatch(next, isFallback: true)) }
    }
  }

  /// Passes an action to the middleware at `index` of its plan, or to the reducers past the
  /// last one.
  @inlinable
  func runChain(
    _ action: any Action, _ plan: ChainPlan<State>, from index: Int, item: UInt64,
    thread: ThreadID
  ) throws(DispatchError) {
    let entries = plan.entries
    guard index < entries.count else {
      try reduceLeavingChain(action, as: plan.actionType)
      return
    }
    let next = Next(plan: plan, index: index + 1, item: item, thread: thread)
    let context = MiddlewareContext(
      plan: plan, index: index, action: action, item: item, thread: thread)
    try call(Unmanaged.passUnretained(entries[index]), context, next)
  }

  /// Calls one middleware, turning what it throws into the dispatch's failure.
  ///
  /// The entry is passed unretained: the plan keeps its entries alive, so it is used through a
  /// guaranteed reference, with no reference counting.
  @inlinable @inline(__always)
  func call(
    _ entry: Unmanaged<MiddlewareEntry<State>>, _ context: MiddlewareContext<State>,
    _ next: Next<State>
  ) throws(DispatchError) {
    let failure: DispatchError? =
      entry
      ._withUnsafeGuaranteedRef { entry in
        do {
          try entry.middleware.handle(context.action, context: context, next: next)
          return nil
        } catch let error as DispatchError {
          return error
        } catch {
          return .rejected(by: entry.name, action: context.action, underlying: error)
        }
      }
    if let failure { throw failure }
  }

  /// Reduces an action that has left the middleware chain, holding the turn.
  ///
  /// `actionType` is the type of the plan that delivered it, which is the type the action was
  /// dispatched (or passed on) as: a `Next` runs the rest of a plan only for an action of the
  /// plan's type. The route is found by it, as a typed dispatch finds it, with no `type(of:)`.
  @inlinable
  func reduceLeavingChain(_ action: any Action, as actionType: ObjectIdentifier)
    throws(DispatchError)
  {
    precondition(
      turn.pointee.borrowingState == 0,
      "A MiddlewareContext.withUnsafeState closure called next. Call next after it returns.")
    lock.lock()
    if actionType != replaceStateType, actionType != ObjectIdentifier(Batch.self),
      reduceErasedSimpleReleasingLock(action, actionType)
    {
      return
    }
    switch reduceErasedReleasingLock(action, actionType) {
    case .failed(let error): throw error
    case .committed, .released: return
    }
  }

  // MARK: Plans

  /// The plan for an action known only as `any Action`, holding the turn.
  ///
  /// The existential is opened, not asked for its dynamic type: an action is planned and routed
  /// by the type it was dispatched as, as a typed dispatch does.
  @usableFromInline
  func plan(for action: any Action) -> ChainPlan<State> {
    func typeOf<A: Action>(_: A) -> any Action.Type { A.self }
    let type = typeOf(action)
    let plans = lock.withLock { fields.pointee.plans }
    return plans.plan(for: ObjectIdentifier(type)) ?? makePlan(for: type, plans)
  }

  /// Plans an action type over the chain of `plans` and keeps the plan, unless the chain changed
  /// in the meantime; holding the turn, not the lock (the middleware are asked).
  @usableFromInline
  func makePlan(for type: any Action.Type, _ plans: ChainPlans<State>) -> ChainPlan<State> {
    let plan = ChainPlan(type, core: self, chain: plans.chain)
    lock.withLock {
      if fields.pointee.plans === plans { fields.pointee.plans = plans.adding(plan) }
    }
    return plan
  }

  // MARK: Errors

  /// Sends a failure to every iterator of `errors`.
  @usableFromInline
  func publish(_ error: DispatchError) {
    let sinks = lock.withLock { fields.pointee.errorSinks }
    for sink in sinks.values { sink.yield(error) }
  }

  /// Closes the store: middleware are detached, sequences end, nothing more is delivered.
  func close() {
    let (chain, observers, errorSinks) = lock.withLock {
      fields.pointee.closed = true
      defer {
        fields.pointee.plans = ChainPlans(chain: [])
        fields.pointee.observers = nil
        fields.pointee.errorSinks = [:]
      }
      return (fields.pointee.plans.chain, fields.pointee.observers, fields.pointee.errorSinks)
    }
    for entry in chain { entry.middleware.didDetach(from: identifier) }
    for sink in observers?.observers.allSinks ?? [] {
      _ = sink.flag.cancel()
      sink.finish?()
    }
    for sink in errorSinks.values { sink.finish() }
  }
}
