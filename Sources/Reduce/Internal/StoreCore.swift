import Observation
import Synchronization

/// A middleware in a store's chain, with the name it was registered under.
struct MiddlewareEntry<State: Sendable>: Sendable {
  let name: String
  let middleware: any Middleware<State>
}

/// Work queued for the thread that holds the dispatch turn.
enum PendingWork<State: Sendable>: Sendable {
  /// An action sent from the top of the chain; a failing fallback action is not fallen back.
  case dispatch(any Action, isFallback: Bool)
  /// A `next` call made after its dispatch ended: the rest of the chain from `index`.
  case resume(any Action, chain: [MiddlewareEntry<State>], index: Int)
}

/// The engine behind a ``Store``: the state, the dispatch turn, the registries and observers.
///
/// Dispatches are serialized by a *turn*: a ticket queue under `lock`, so threads take turns in
/// FIFO order. The lock is held only to decide (take a ticket, swap a snapshot, take the state
/// out, put it back); reducers, middleware and observers run after it is released.
///
/// `@unchecked Sendable`: every mutable property is guarded by `lock`, except those marked
/// "turn holder only", which only the thread holding the dispatch turn reads or writes.
final class StoreCore<State: Sendable>: @unchecked Sendable {
  let lock = Lock()
  private let turnChanged = Condition()
  private let stateCommitted = Condition()

  // Guarded by `lock`.
  /// The state; nil while the turn holder reduces it in place.
  var slot: State?
  var registry = Registry<State>()
  var chain: [MiddlewareEntry<State>] = []
  var observers = Observers<State>()
  var errorSinks: [UInt64: AsyncStream<DispatchError>.Continuation] = [:]
  var closed = false
  private var owner: ThreadID?
  private var nextTicket: UInt64 = 0
  private var nowServing: UInt64 = 0
  private var waitingForTurn = 0
  private var waitingForState = 0
  private var pending: [PendingWork<State>] = []
  private var pendingHead = 0
  private var lastID: UInt64 = 0

  // Turn holder only.
  private var itemCounter: UInt64 = 0

  /// The dispatch item being processed by the turn holder (0 when none), so that a `next` can
  /// tell a call inside its own dispatch from a later one without taking the lock.
  let activeItem = Atomic<UInt64>(0)
  /// Set once anything reads `Store.state`, after which Observation is told of every change.
  let observationEnabled = Atomic<Bool>(false)
  let registrar = ObservationRegistrar()
  /// The public store, for Observation's registrar.
  ///
  /// Set once, right after `init`.
  weak var store: Store<State>?

  let fallback: (@Sendable (DispatchError) -> (any Action)?)?
  /// `==` of the state, when `State` is `Equatable`.
  let isEqual: (@Sendable (State, State) -> Bool)?

  init(initialState: State, fallback: (@Sendable (DispatchError) -> (any Action)?)?) {
    self.slot = initialState
    self.fallback = fallback
    if let equatable = State.self as? any (Equatable & Sendable).Type {
      self.isEqual = Self.equality(of: equatable)
    } else {
      self.isEqual = nil
    }
  }

  private static func equality<E: Equatable & Sendable>(of type: E.Type)
    -> @Sendable (State, State) -> Bool
  {
    // `State` is `E` here: the caller found it by a dynamic cast of `State.self`.
    { unsafeBitCast($0, to: E.self) == unsafeBitCast($1, to: E.self) }
  }

  var identifier: ObjectIdentifier { ObjectIdentifier(self) }

  /// A new identifier for a sink or a stream; the lock must be held.
  func makeIDLocked() -> UInt64 {
    lastID &+= 1
    return lastID
  }

  // MARK: Reading the state

  /// The committed state; waits while another thread reduces it in place.
  func readState() -> State {
    lock.lock()
    defer { lock.unlock() }
    return committedStateLocked()
  }

  private func committedStateLocked() -> State {
    while true {
      if let state = slot { return state }
      precondition(
        owner != ThreadID.current,
        "A reducer read the store's state or dispatched to it. Reducers must be pure functions of their substate and action: dispatch follow-up actions from a middleware or an observer instead."
      )
      waitingForState += 1
      lock.wait(on: stateCommitted)
      waitingForState -= 1
    }
  }

  /// Takes the state out for in-place reduction; the lock must be held by the turn holder.
  func takeStateLocked() -> State {
    guard let state = slot.take() else {
      preconditionFailure("The store's state is already being reduced; reducers must not dispatch.")
    }
    return state
  }

  /// Puts the state back after reduction and wakes readers waiting for it.
  func commit(_ state: consuming State) {
    lock.lock()
    slot = state
    if waitingForState > 0 { stateCommitted.broadcast() }
    lock.unlock()
  }

  // MARK: The dispatch turn

  /// Whether the calling thread holds the turn; the lock must be held.
  private func holdsTurnLocked(_ thread: ThreadID) -> Bool {
    owner == thread
  }

  /// Waits for the calling thread's turn, in FIFO order; the lock must be held.
  private func waitForTurnLocked(_ thread: ThreadID) {
    let ticket = nextTicket
    nextTicket &+= 1
    if ticket != nowServing {
      waitingForTurn += 1
      repeat { lock.wait(on: turnChanged) } while ticket != nowServing
      waitingForTurn -= 1
    }
    owner = thread
  }

  /// Runs queued work until none is left, then gives up the turn.
  ///
  /// - Returns: The state after everything that ran in this turn.
  private func drainAndRelease() -> State {
    while true {
      lock.lock()
      if pendingHead < pending.count {
        let work = pending[pendingHead]
        pendingHead += 1
        lock.unlock()
        perform(work)
        continue
      }
      pending.removeAll(keepingCapacity: pending.count < 64)
      pendingHead = 0
      let state = committedStateLocked()
      owner = nil
      nowServing &+= 1
      if waitingForTurn > 0 { turnChanged.broadcast() }
      lock.unlock()
      return state
    }
  }

  /// Runs `body` holding the turn (at once if this thread already holds it).
  func withTurn<Result>(_ body: () -> Result) -> Result {
    let thread = ThreadID.current
    lock.lock()
    if holdsTurnLocked(thread) {
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
  func dispatch<A: Action>(_ action: A) -> Result<State, DispatchError> {
    let thread = ThreadID.current
    lock.lock()
    if holdsTurnLocked(thread) {
      let state = committedStateLocked()
      pending.append(.dispatch(action, isFallback: false))
      lock.unlock()
      return .success(state)
    }
    waitForTurnLocked(thread)
    let chain = self.chain
    lock.unlock()
    let failure = process(action, chain: chain, from: 0, isFallback: false)
    let state = drainAndRelease()
    return failure.map(Result.failure) ?? .success(state)
  }

  /// Dispatches actions one after another in one turn; stops at the first failure.
  func dispatch(_ actions: [any Action]) -> Result<State, DispatchError> {
    let thread = ThreadID.current
    lock.lock()
    if holdsTurnLocked(thread) {
      let state = committedStateLocked()
      pending.append(contentsOf: actions.map { .dispatch($0, isFallback: false) })
      lock.unlock()
      return .success(state)
    }
    waitForTurnLocked(thread)
    lock.unlock()
    var failure: DispatchError?
    for action in actions {
      let chain = lock.withLock { self.chain }
      failure = process(action, chain: chain, from: 0, isFallback: false)
      if failure != nil { break }
      drainPending()
    }
    let state = drainAndRelease()
    return failure.map(Result.failure) ?? .success(state)
  }

  /// Continues a dispatch whose `next` was called after the dispatch ended.
  func resume<A: Action>(_ action: A, chain: [MiddlewareEntry<State>], from index: Int)
    throws(DispatchError)
  {
    let thread = ThreadID.current
    lock.lock()
    if closed {
      lock.unlock()
      return
    }
    if holdsTurnLocked(thread) {
      _ = committedStateLocked()
      pending.append(.resume(action, chain: chain, index: index))
      lock.unlock()
      return
    }
    waitForTurnLocked(thread)
    lock.unlock()
    let failure = process(action, chain: chain, from: index, isFallback: false)
    _ = drainAndRelease()
    if let failure { throw failure }
  }

  /// Publishes a failure found outside a dispatch and falls back from it.
  func report(_ error: DispatchError) {
    publish(error)
    guard let fallback, let action = fallback(error) else { return }
    let thread = ThreadID.current
    lock.lock()
    if holdsTurnLocked(thread) {
      pending.append(.dispatch(action, isFallback: true))
      lock.unlock()
      return
    }
    waitForTurnLocked(thread)
    let chain = self.chain
    lock.unlock()
    _ = process(action, chain: chain, from: 0, isFallback: true)
    _ = drainAndRelease()
  }

  private func drainPending() {
    while true {
      lock.lock()
      guard pendingHead < pending.count else {
        lock.unlock()
        return
      }
      let work = pending[pendingHead]
      pendingHead += 1
      lock.unlock()
      perform(work)
    }
  }

  private func perform(_ work: PendingWork<State>) {
    switch work {
    case .dispatch(let action, let isFallback):
      let chain = lock.withLock { self.chain }
      _ = process(action, chain: chain, from: 0, isFallback: isFallback)
    case .resume(let action, let chain, let index):
      _ = process(action, chain: chain, from: index, isFallback: false)
    }
  }

  /// Runs one action through the chain from `index` as one dispatch item, holding the turn;
  /// publishes its failure and queues the fallback action.
  private func process<A: Action>(
    _ action: A, chain: [MiddlewareEntry<State>], from index: Int, isFallback: Bool
  ) -> DispatchError? {
    itemCounter &+= 1
    let item = itemCounter
    activeItem.store(item, ordering: .releasing)
    defer { activeItem.store(0, ordering: .releasing) }
    do throws(DispatchError) {
      try runChain(action, chain, from: index, item: item)
      return nil
    } catch {
      publish(error)
      if !isFallback, let fallback, let next = fallback(error) {
        lock.withLock { pending.append(.dispatch(next, isFallback: true)) }
      }
      return error
    }
  }

  /// Passes an action to the middleware at `index`, or to the reducers past the last one.
  func runChain<A: Action>(
    _ action: A, _ chain: [MiddlewareEntry<State>], from index: Int, item: UInt64
  ) throws(DispatchError) {
    guard index < chain.count else {
      try reduce(action)
      return
    }
    let entry = chain[index]
    let next = Next(core: self, chain: chain, index: index + 1, item: item)
    let context = MiddlewareContext(core: self, middlewareName: entry.name, action: action)
    do {
      try entry.middleware.handle(action, context: context, next: next)
    } catch let error as DispatchError {
      throw error
    } catch {
      throw .rejected(by: entry.name, action: action, underlying: error)
    }
  }

  // MARK: Errors

  /// Sends a failure to every iterator of `errors`.
  func publish(_ error: DispatchError) {
    let sinks = lock.withLock { errorSinks }
    for sink in sinks.values { sink.yield(error) }
  }

  /// Closes the store: middleware are detached, sequences end, nothing more is delivered.
  func close() {
    let (chain, observers, errorSinks) = lock.withLock {
      closed = true
      defer {
        self.chain = []
        self.observers = Observers()
        self.errorSinks = [:]
      }
      return (self.chain, self.observers, self.errorSinks)
    }
    for entry in chain { entry.middleware.didDetach(from: identifier) }
    for sink in observers.allSinks {
      _ = sink.flag.cancel()
      sink.finish?()
    }
    for sink in errorSinks.values { sink.finish() }
  }
}
