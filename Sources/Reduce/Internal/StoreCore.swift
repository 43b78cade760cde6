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

  /// Whether notifying these observers needs the state from before the action.
  @inlinable
  func needsOldState(stateIsEquatable: Bool) -> Bool {
    observers.needOldState(stateIsEquatable: stateIsEquatable)
  }
}

/// What a store carries actions out with: its mutators, its chain and its observers, each an
/// immutable snapshot.
///
/// The store keeps the current setup under its lock, and the turn holder a copy of its own
/// (`TurnFields.setup`), taken again only when the store's changed: an action then reads its
/// route, plan and observers without taking the lock.
@usableFromInline
struct Setup<State: Sendable>: Sendable {
  /// The mutators and their routes.
  @usableFromInline var registry = Registry<State>()
  /// The middleware chain, and which of its middleware each action type visits.
  @usableFromInline var plans = ChainPlans<State>(chain: [])
  /// The observers; nil when there are none.
  @usableFromInline var observers: ObserverSnapshot<State>?
  /// Whether the store is closed: nothing more is reduced or delivered.
  @usableFromInline var closed = false

  init() {}

  /// Replaces the mutators; the plans made so far keep the routes of the new ones.
  mutating func changeMutators(to registry: Registry<State>) {
    self.registry = registry
    plans = plans.rerouted(in: registry)
  }
}

/// What a store's lock guards.
@usableFromInline
struct CoreFields<State: Sendable> {
  /// The current setup.
  ///
  /// Changed only through `StoreCore.changeSetup(_:_:)`, which tells the turn holder.
  @usableFromInline var setup: Setup<State>
  @usableFromInline var errorSinks: [UInt64: AsyncStream<DispatchError>.Continuation] = [:]
  @usableFromInline var lastID: UInt64 = 0

  // The dispatch turn (see `StoreCore+Turn.swift`).

  /// The requests of other threads and tasks, in arrival order, for the turn holder to carry
  /// out or hand the turn to.
  @usableFromInline var incoming: [TurnRequest<State>] = []
  @usableFromInline var incomingHead = 0
  init(setup: Setup<State>) {
    self.setup = setup
  }
}

/// The state of a store and what the thread holding its turn keeps for itself.
@usableFromInline
struct TurnFields<State: Sendable> {
  /// The state.
  ///
  /// Only the turn holder writes it; other threads read it under the lock, once
  /// `changingState` is clear.
  @usableFromInline var state: State
  /// Turn holder only: its copy of the store's setup, as of `setupGeneration`.
  @usableFromInline var setup: Setup<State>
  /// Turn holder only: the generation of the setup it copied (see `StoreCore.setupGeneration`).
  @usableFromInline var setupGeneration: UInt64 = 0
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
  /// Turn holder only: the watch calls of the actions of the batch being applied, made once it
  /// commits.
  @usableFromInline var stagedWatchCalls: [@Sendable () -> Void] = []
  /// Turn holder only: the mutators of the actions of the batch being applied, for its
  /// `PendingChange`.
  @usableFromInline var stagedMutators: [MutatorKey] = []
  /// Turn holder only: the work it queued for itself (follow-ups), run before the result of the
  /// work that queued it is taken.
  @usableFromInline var pending: [PendingWork<State>] = []
  /// Turn holder only: what middleware asked to run before the current work's dispatch returns
  /// (`MiddlewareContext.beforeReturning(_:)`), handed to its dispatcher with the result.
  @usableFromInline var returnWaits: [ReturnWait] = []

  init(state: State, setup: Setup<State>) {
    self.state = state
    self.setup = setup
  }
}

/// Runs the rest of a flow for an action a middleware passed on: the engine, the action, the
/// flow, and the watch or watcher it is passed on with.
@usableFromInline
typealias ContinueFlow<State: Sendable> =
  @Sendable (
    StoreCore<State>, any Action, Flow<State>, ReductionWatch<State>?, ReductionWatcher<State>?
  ) throws(DispatchError) -> Void

/// The engine behind a ``Store``: the state, the dispatch turn, the registries and observers.
///
/// Dispatches are serialized by a *turn* (`StoreCore+Turn.swift`): one thread at a time runs
/// actions through the chain and the reducers; the others queue their work for it, in arrival
/// order. The lock is held only to decide (queue a request, take one to serve, swap a snapshot);
/// reducers, middleware and observers run after it is released, and an uncontended dispatch
/// does not take it at all: the turn is an atomic (`holder`), and marking the state as changing
/// is too (`changingState`).
/// The path of one dispatch, in order: ``dispatch(_:)`` gets the turn or queues,
/// ``process(_:plan:watches:isFallback:)`` runs the chain (`StoreCore+Chain.swift`), the
/// last step reduces and notifies (`StoreCore+Reduce.swift`), and the turn holder then runs the
/// follow-ups and the requests that arrived meanwhile.
///
/// `@unchecked Sendable`: the fields in `fields` are guarded by its lock. `state` is written
/// only by the thread holding the turn, with `changingState` set while it does; other threads
/// copy it under the lock, counted in `readersCopying`, once `changingState` is clear (see
/// ``readState()``). The fields marked "turn holder only" are touched by the thread holding the
/// turn alone; a thread takes the turn from the one before it through `holder`, whose atomic
/// operations order the one's accesses before the other's.
@usableFromInline
final class StoreCore<State: Sendable>: @unchecked Sendable {
  @usableFromInline let fields: Locked<CoreFields<State>>
  @usableFromInline let stateCommitted = Condition()
  /// The state and the turn holder's own fields: see the class's comment for who may touch
  /// them.
  @usableFromInline let turn: Exclusive<TurnFields<State>>

  /// Counts the changes of the setup (`CoreFields.setup`), made with the lock held: the turn
  /// holder compares it with the generation of its copy before it uses the copy.
  @usableFromInline let setupGeneration = Atomic<UInt64>(0)

  /// Whether the turn holder is changing the state in place.
  ///
  /// Reducers are running, or a `Batch` is being applied: other threads wait to read the state.
  /// Set and cleared without the lock (see ``beginChange()`` and ``endChange()``).
  @usableFromInline let changingState = Atomic<Bool>(false)
  /// How many readers are copying the state (at most one: they copy holding the lock).
  ///
  /// A change that begins waits for them (see ``beginChange()``).
  @usableFromInline let readersCopying = Atomic<Int>(0)
  /// Whether a reader waits for the state to be committed.
  ///
  /// Only then does the end of a change take the lock, to wake it. Set with the lock held.
  @usableFromInline let readersWaiting = Atomic<Bool>(false)

  /// The dispatch item being processed by the turn holder (0 when none), so that a `next` can
  /// tell a call inside its own dispatch from a later one without taking the lock.
  @usableFromInline let activeItem = Atomic<UInt64>(0)
  /// The thread holding the turn (``ThreadID/raw``), ``ThreadID/handedOver`` while a waiting
  /// task is being given it, ``ThreadID/nobody`` when nobody holds it.
  ///
  /// Taken and given up without the lock when nobody waits (`StoreCore+Turn.swift`).
  @usableFromInline let holder = Atomic<UInt>(ThreadID.nobody.raw)
  /// How many requests wait in `incoming`; changed with the lock held, read without it by a
  /// turn holder giving the turn up.
  @usableFromInline let waitingRequests = Atomic<Int>(0)
  /// Set once anything reads `Store.state`, after which Observation is told of every change.
  @usableFromInline let observationEnabled = Atomic<Bool>(false)
  @usableFromInline let registrar = ObservationRegistrar()
  /// The public store, for Observation's registrar; set once, right after `init`.
  @usableFromInline weak var store: Store<State>?

  @usableFromInline let fallback: (@Sendable (DispatchError) -> (any Action)?)?
  /// `==` of the state, when `State` is `Equatable`.
  @usableFromInline let isEqual: (@Sendable (State, State) -> Bool)?
  /// The state the store ended with, set when it closes; shared with the chain's plans, for a
  /// middleware's context kept after this engine is gone.
  @usableFromInline let finalState = Locked<State?>(nil)

  /// Runs the rest of a flow (``pass(_:_:watch:watcher:)``), compiled for `State`.
  ///
  /// A middleware's `next` continues the flow through this closure, made where the store was
  /// created for its concrete state. Called directly from a middleware whose code is compiled
  /// for any state (one whose `handle` is not inlinable, such as `AuditTrail`), the chain and
  /// the reducers would run unspecialised, looking the metadata of their generic types up at
  /// run time: measured, about 10,000 instructions of an audited dispatch's 52,000.
  @usableFromInline let continueFlow: ContinueFlow<State>

  @usableFromInline
  init(
    initialState: State, fallback: (@Sendable (DispatchError) -> (any Action)?)?,
    continueFlow: @escaping ContinueFlow<State>
  ) {
    self.continueFlow = continueFlow
    // One setup for both: the turn holder's copy starts as the store's.
    let setup = Setup<State>()
    fields = Locked(CoreFields(setup: setup))
    turn = Exclusive(TurnFields(state: initialState, setup: setup))
    self.fallback = fallback
    if let equatable = State.self as? any (Equatable & Sendable).Type {
      isEqual = Self.equality(of: equatable)
    } else {
      isEqual = nil
    }
  }

  deinit {
    stateCommitted.destroy()
  }

  private static func equality<E: Equatable & Sendable>(of type: E.Type)
    -> @Sendable (State, State) -> Bool
  {
    // `State` is `E`: the caller found it by a dynamic cast of `State.self`.
    { lhs, rhs in (lhs as? E) == (rhs as? E) }
  }

  @inlinable var identifier: ObjectIdentifier { ObjectIdentifier(self) }

  /// The state and the turn holder's own fields, in place.
  @inlinable var local: UnsafeMutablePointer<TurnFields<State>> { turn.address }

  /// A new identifier for a sink or a stream; the lock must be held.
  func makeID(_ fields: inout CoreFields<State>) -> UInt64 {
    fields.lastID &+= 1
    return fields.lastID
  }

  // MARK: Dispatching

  /// Dispatches one action from the top of the chain.
  ///
  /// A thread that takes the turn runs the action as it is; only an action queued for later, or
  /// for another thread, is wrapped as ``PendingWork``. (Measured: the wrapping, a copy of the
  /// action into it and its destruction, cost about 190 of `counter`'s 878 instructions.)
  @inlinable
  func dispatch(_ action: any Action) -> Result<State, DispatchError> {
    let thread = ThreadID.current
    guard takeTurn(thread) else {
      return carryOut(.dispatch(action, isFallback: false), whileTaken: thread)
    }
    return finishOwnWork(
      after: process(action, plan: plan(for: action), watches: nil, isFallback: false))
  }

  /// Dispatches actions one after another in one turn; stops at the first failure.
  @inlinable
  func dispatch(_ actions: [any Action]) -> Result<State, DispatchError> {
    carryOut(.sequence(actions))
  }

  /// Dispatches actions one after another in one turn, unless `refusal`, asked once this thread
  /// holds the turn (at once when it already holds it), says why not: then nothing runs, and
  /// that error is returned without being published.
  @inlinable
  func dispatch(_ actions: [any Action], unless refusal: () -> DispatchError?)
    -> Result<State, DispatchError>
  {
    guard acquireTurn() else {
      // A re-entrant call: asked now, queued behind the current action.
      if let refused = refusal() { return .failure(refused) }
      return .success(queue(.sequence(actions)))
    }
    if let refused = refusal() { return finishOwnWork(after: refused) }
    return runOwnWork(.sequence(actions))
  }

  /// Runs actions one after another, each with the follow-ups it queues, holding the turn;
  /// stops at the first failure.
  @inlinable
  func runSequence(_ actions: [any Action]) -> DispatchError? {
    for action in actions {
      let mark = local.pointee.pending.count
      let failure = process(action, plan: plan(for: action), watches: nil, isFallback: false)
      runQueued(from: mark)
      if let failure { return failure }
    }
    return nil
  }

  /// Continues a flow whose `next` was called after its dispatch ended, as a dispatch of its own.
  @inlinable
  func resume(_ action: any Action, _ flow: Flow<State>) throws(DispatchError) {
    if fields.withLock({ $0.setup.closed }) { return }
    if case .failure(let failure) = carryOut(.resume(action, flow)) { throw failure }
  }

  /// Runs one piece of work, holding the turn; returns its failure.
  ///
  /// - Parameter work: The work.
  /// - Returns: The work's failure, or nil.
  @inlinable
  func perform(_ work: consuming PendingWork<State>) -> DispatchError? {
    switch consume work {
    case .dispatch(let action, let isFallback):
      process(action, plan: plan(for: action), watches: nil, isFallback: isFallback)
    case .resume(let action, let flow):
      process(action, plan: flow.plan, watches: flow.watches, isFallback: false)
    case .sequence(let actions):
      runSequence(actions)
    }
  }

  // MARK: Errors

  /// Publishes a failure found outside a dispatch and falls back from it, unless it was found
  /// while this thread processes a fallback action (a fallback never falls back again).
  func report(_ error: DispatchError) {
    publish(error)
    guard let fallback else { return }
    if holds(.current) && local.pointee.processingFallback { return }
    guard let action = fallback(error) else { return }
    _ = carryOut(.dispatch(action, isFallback: true))
  }

  /// Publishes a failure of the turn holder's dispatch and queues the fallback action.
  @inlinable
  func handleFailure(_ error: DispatchError, isFallback: Bool) {
    publish(error)
    if !isFallback, let fallback, let next = fallback(error) {
      local.pointee.pending.append(.dispatch(next, isFallback: true))
    }
  }

  /// Sends a failure to every iterator of `errors`.
  @inlinable
  func publish(_ error: DispatchError) {
    let sinks = fields.withLock { $0.errorSinks }
    for sink in sinks.values { sink.yield(error) }
  }

  /// Closes the store: middleware are detached, sequences end, nothing more is delivered.
  func close() {
    let (chain, observers, errorSinks) = fields.withLock { fields in
      let open = (fields.setup.plans.chain, fields.setup.observers, fields.errorSinks)
      fields.errorSinks = [:]
      changeSetup(&fields) { setup in
        setup = Setup()
        setup.closed = true
      }
      return open
    }
    // Closed, the state changes no more: a context that outlives the engine reads this.
    let state = readState()
    finalState.withLock { $0 = state }
    for entry in chain { entry.middleware.didDetach(from: identifier) }
    for sink in observers?.observers.allSinks ?? [] {
      _ = sink.flag.cancel()
      sink.finish?()
    }
    for sink in errorSinks.values { sink.finish() }
  }
}
