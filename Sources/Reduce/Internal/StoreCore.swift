public import Observation
public import Synchronization

/// A middleware in a store's chain, with the name it was registered under.
@usableFromInline
final class MiddlewareEntry<State: Sendable>: Sendable {
  @usableFromInline let name: String
  @usableFromInline let middleware: any Middleware<State>

  init(name: String, middleware: any Middleware<State>) {
    self.name = name
    self.middleware = middleware
  }
}

/// Work queued for the thread that holds the dispatch turn.
@usableFromInline
enum PendingWork<State: Sendable>: Sendable {
  /// An action sent from the top of the chain; a failing fallback action is not fallen back.
  case dispatch(any Action, isFallback: Bool)
  /// A `next` call made after its dispatch ended: the rest of the flow.
  case resume(any Action, Flow<State>)
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

/// What a store's lock guards.
@usableFromInline
struct CoreFields<State: Sendable> {
  /// The mutators and their routes.
  @usableFromInline var registry = Registry<State>()
  /// The middleware chain, and which of its middleware each action type visits.
  @usableFromInline var plans = ChainPlans<State>(chain: [])
  /// The observers; nil when there are none.
  @usableFromInline var observers: ObserverSnapshot<State>?
  @usableFromInline var errorSinks: [UInt64: AsyncStream<DispatchError>.Continuation] = [:]
  @usableFromInline var closed = false
  @usableFromInline var lastID: UInt64 = 0

  // The dispatch turn: a FIFO ticket queue.

  /// The thread holding the turn.
  @usableFromInline var owner: ThreadID?
  @usableFromInline var nextTicket: UInt64 = 0
  @usableFromInline var nowServing: UInt64 = 0
  @usableFromInline var waitingForTurn = 0
  /// Whether the turn holder is changing the state in place (reducers running, or a `Batch`
  /// being applied): other threads wait to read it.
  @usableFromInline var changingState = false
  /// Work the turn holder queued for itself, run before it gives the turn up.
  @usableFromInline var pending: [PendingWork<State>] = []
  @usableFromInline var pendingHead = 0

  init() {}
}

/// The engine behind a ``Store``: the state, the dispatch turn, the registries and observers.
///
/// Dispatches are serialized by a *turn*: a FIFO ticket queue under the lock. The lock is held
/// only to decide (take a ticket, swap a snapshot, mark the state as changing); reducers,
/// middleware and observers run after it is released. The path of one dispatch, in order:
/// ``dispatch(_:)`` takes the turn, ``process(_:plan:from:watches:isFallback:)`` runs the
/// chain (`StoreCore+Chain.swift`), the last step reduces and notifies
/// (`StoreCore+Reduce.swift`), and ``finishTurn()`` runs what was queued meanwhile.
///
/// `@unchecked Sendable`: the fields in `fields` are guarded by its lock. `state` is written
/// only by the thread holding the turn, with `changingState` set under the lock while it does;
/// other threads read it under the lock once `changingState` is clear. The fields marked "turn
/// holder only" are touched by the thread holding the turn alone.
@usableFromInline
final class StoreCore<State: Sendable>: @unchecked Sendable {
  @usableFromInline let fields = Locked(CoreFields<State>())
  @usableFromInline let turnChanged = Condition()
  @usableFromInline let stateCommitted = Condition()
  /// The state; see the class's comment for who may touch it.
  @usableFromInline var state: State

  /// Turn holder only: the number of dispatch items processed.
  @usableFromInline var itemCounter: UInt64 = 0
  /// Turn holder only: whether the item being processed is a fallback action.
  @usableFromInline var processingFallback = false
  /// Turn holder only: whether reducers are running (they may not read the store).
  @usableFromInline var inReducers = false
  /// Turn holder only: the mutators a `Batch` being applied uses for all its actions.
  @usableFromInline var batchRegistry: Registry<State>?
  /// Turn holder only: how many actions inside batches reached a handler.
  @usableFromInline var stagedReductions = 0

  /// The dispatch item being processed by the turn holder (0 when none), so that a `next` can
  /// tell a call inside its own dispatch from a later one without taking the lock.
  @usableFromInline let activeItem = Atomic<UInt64>(0)
  /// Set once anything reads `Store.state`, after which Observation is told of every change.
  @usableFromInline let observationEnabled = Atomic<Bool>(false)
  @usableFromInline let registrar = ObservationRegistrar()
  /// The public store, for Observation's registrar; set once, right after `init`.
  @usableFromInline weak var store: Store<State>?

  @usableFromInline let fallback: (@Sendable (DispatchError) -> (any Action)?)?
  /// `==` of the state, when `State` is `Equatable`.
  @usableFromInline let isEqual: (@Sendable (State, State) -> Bool)?
  /// The identity of `ReplaceState<State>`, looked up once.
  @usableFromInline let replaceStateType = ObjectIdentifier(ReplaceState<State>.self)

  init(initialState: State, fallback: (@Sendable (DispatchError) -> (any Action)?)?) {
    state = initialState
    self.fallback = fallback
    if let equatable = State.self as? any (Equatable & Sendable).Type {
      isEqual = Self.equality(of: equatable)
    } else {
      isEqual = nil
    }
  }

  deinit {
    turnChanged.destroy()
    stateCommitted.destroy()
  }

  private static func equality<E: Equatable & Sendable>(of type: E.Type)
    -> @Sendable (State, State) -> Bool
  {
    // `State` is `E`: the caller found it by a dynamic cast of `State.self`.
    { lhs, rhs in (lhs as? E) == (rhs as? E) }
  }

  @inlinable var identifier: ObjectIdentifier { ObjectIdentifier(self) }

  /// A new identifier for a sink or a stream; the lock must be held.
  func makeID(_ fields: inout CoreFields<State>) -> UInt64 {
    fields.lastID &+= 1
    return fields.lastID
  }

  // MARK: Reading the state

  /// The committed state; waits while another thread changes it in place.
  ///
  /// The turn holder reads it at once: during a `Batch`, a middleware sees the batch's changes
  /// so far. A reducer may not read it.
  @inlinable
  func readState() -> State {
    let thread = ThreadID.current
    return fields.withLock(
      waitingOn: stateCommitted, while: { $0.changingState && $0.owner != thread }
    ) { fields in
      precondition(
        !(fields.changingState && inReducers),
        "A reducer read the store's state or dispatched to it. Reducers must be pure functions of their substate and action: dispatch follow-up actions from a middleware or an observer instead."
      )
      return state
    }
  }

  /// Marks the state as being changed in place by the turn holder; the lock must be held.
  @inlinable
  func beginChange(_ fields: inout CoreFields<State>) {
    fields.changingState = true
  }

  /// Ends an in-place change and wakes the readers waiting for it.
  @inlinable
  func endChange() {
    fields.withLock { fields in
      fields.changingState = false
      stateCommitted.broadcast()
    }
  }

  // MARK: The dispatch turn

  /// Queues `work` when this thread holds the turn already (a re-entrant dispatch), or takes the
  /// turn, waiting for it in FIFO order.
  ///
  /// - Returns: The state at the time `work` was queued, or nil when this thread took the turn
  ///   and must run the work itself, then call ``finishTurn()``.
  @inlinable
  func queueOrTakeTurn(_ work: @autoclosure () -> PendingWork<State>, on thread: ThreadID)
    -> State?
  {
    let (queuedAt, ticket): (State?, UInt64?) = fields.withLock { fields in
      if fields.owner == thread {
        precondition(
          !inReducers,
          "A reducer dispatched to the store. Reducers must be pure functions of their substate and action: dispatch follow-up actions from a middleware or an observer instead."
        )
        fields.pending.append(work())
        return (state, nil)
      }
      let ticket = fields.nextTicket
      fields.nextTicket &+= 1
      if ticket == fields.nowServing {
        fields.owner = thread
        return (nil, nil)
      }
      fields.waitingForTurn += 1
      return (nil, ticket)
    }
    if let ticket {
      fields.withLock(waitingOn: turnChanged, while: { $0.nowServing != ticket }) { fields in
        fields.waitingForTurn -= 1
        fields.owner = thread
      }
    }
    return queuedAt
  }

  /// Whether the calling thread holds the turn.
  @usableFromInline
  func holdsTurn(_ thread: ThreadID) -> Bool {
    fields.withLock { $0.owner == thread }
  }

  /// Runs queued work until none is left, then gives up the turn.
  ///
  /// - Returns: The state after everything that ran in this turn.
  @inlinable
  func finishTurn() -> State {
    while true {
      let (work, final): (PendingWork<State>?, State?) = fields.withLock { fields in
        if fields.pendingHead < fields.pending.count {
          fields.pendingHead += 1
          return (fields.pending[fields.pendingHead - 1], nil)
        }
        if !fields.pending.isEmpty {
          fields.pending.removeAll(keepingCapacity: fields.pending.count < 64)
          fields.pendingHead = 0
        }
        fields.owner = nil
        fields.nowServing &+= 1
        if fields.waitingForTurn > 0 { turnChanged.broadcast() }
        return (nil, state)
      }
      if let work {
        perform(work)
      } else if let final {
        return final
      }
    }
  }

  /// Runs, in order, the work queued from position `mark` on (the follow-ups of the action just
  /// processed), before the work queued earlier.
  @usableFromInline
  func runQueued(from mark: Int) {
    while let work = fields.withLock({ $0.pending.count > mark ? $0.pending.remove(at: mark) : nil })
    {
      perform(work)
    }
  }

  /// Runs `body` holding the turn (at once if this thread already holds it).
  @usableFromInline
  func withTurn<Result>(_ body: () -> Result) -> Result {
    let thread = ThreadID.current
    if holdsTurn(thread) { return body() }
    _ = queueOrTakeTurn(.sequence([]), on: thread)
    let result = body()
    _ = finishTurn()
    return result
  }

  // MARK: Dispatching

  /// Dispatches one action from the top of the chain.
  @inlinable
  func dispatch(_ action: any Action) -> Result<State, DispatchError> {
    if let queuedAt = queueOrTakeTurn(.dispatch(action, isFallback: false), on: .current) {
      return .success(queuedAt)
    }
    let failure = process(action, plan: plan(for: action), from: 0, watches: nil, isFallback: false)
    let state = finishTurn()
    return failure.map(Result.failure) ?? .success(state)
  }

  /// Dispatches actions one after another in one turn, unless `refusal`, asked once this thread
  /// holds the turn (at once when it already holds it), says why not: then nothing runs, and
  /// that error is returned without being published.
  @usableFromInline
  func dispatch(_ actions: [any Action], unless refusal: () -> DispatchError?)
    -> Result<State, DispatchError>
  {
    let thread = ThreadID.current
    if holdsTurn(thread), let refused = refusal() { return .failure(refused) }
    if let queuedAt = queueOrTakeTurn(.sequence(actions), on: thread) { return .success(queuedAt) }
    if let refused = refusal() {
      _ = finishTurn()
      return .failure(refused)
    }
    let failure = runSequence(actions)
    let state = finishTurn()
    return failure.map(Result.failure) ?? .success(state)
  }

  /// Runs actions one after another, each with the follow-ups it queues, holding the turn;
  /// stops at the first failure.
  @usableFromInline
  func runSequence(_ actions: [any Action]) -> DispatchError? {
    for action in actions {
      let mark = fields.withLock { $0.pending.count }
      let failure = process(action, plan: plan(for: action), from: 0, watches: nil, isFallback: false)
      runQueued(from: mark)
      if let failure { return failure }
    }
    return nil
  }

  /// Continues a flow whose `next` was called after its dispatch ended, as a dispatch of its own.
  @usableFromInline
  func resume(_ action: any Action, _ flow: Flow<State>) throws(DispatchError) {
    if fields.withLock({ $0.closed }) { return }
    if queueOrTakeTurn(.resume(action, flow), on: .current) != nil { return }
    let failure = process(
      action, plan: flow.plan, from: flow.index, watches: flow.watches, isFallback: false)
    _ = finishTurn()
    if let failure { throw failure }
  }

  /// Runs one piece of queued work, holding the turn.
  @usableFromInline
  func perform(_ work: PendingWork<State>) {
    switch work {
    case .dispatch(let action, let isFallback):
      _ = process(action, plan: plan(for: action), from: 0, watches: nil, isFallback: isFallback)
    case .resume(let action, let flow):
      _ = process(
        action, plan: flow.plan, from: flow.index, watches: flow.watches, isFallback: false)
    case .sequence(let actions):
      _ = runSequence(actions)
    }
  }

  // MARK: Errors

  /// Publishes a failure found outside a dispatch and falls back from it, unless it was found
  /// while this thread processes a fallback action (a fallback never falls back again).
  func report(_ error: DispatchError) {
    publish(error)
    guard let fallback else { return }
    let thread = ThreadID.current
    if holdsTurn(thread) && processingFallback { return }
    guard let action = fallback(error) else { return }
    if queueOrTakeTurn(.dispatch(action, isFallback: true), on: thread) != nil { return }
    _ = process(action, plan: plan(for: action), from: 0, watches: nil, isFallback: true)
    _ = finishTurn()
  }

  /// Publishes a failure of the turn holder's dispatch and queues the fallback action.
  @usableFromInline
  func handleFailure(_ error: DispatchError, isFallback: Bool) {
    publish(error)
    if !isFallback, let fallback, let next = fallback(error) {
      fields.withLock { $0.pending.append(.dispatch(next, isFallback: true)) }
    }
  }

  /// Sends a failure to every iterator of `errors`.
  @usableFromInline
  func publish(_ error: DispatchError) {
    let sinks = fields.withLock { $0.errorSinks }
    for sink in sinks.values { sink.yield(error) }
  }

  /// Closes the store: middleware are detached, sequences end, nothing more is delivered.
  func close() {
    let (chain, observers, errorSinks) = fields.withLock { fields in
      fields.closed = true
      defer {
        fields.plans = ChainPlans(chain: [])
        fields.observers = nil
        fields.errorSinks = [:]
      }
      return (fields.plans.chain, fields.observers, fields.errorSinks)
    }
    for entry in chain { entry.middleware.didDetach(from: identifier) }
    for sink in observers?.observers.allSinks ?? [] {
      _ = sink.flag.cancel()
      sink.finish?()
    }
    for sink in errorSinks.values { sink.finish() }
  }
}
