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

  /// Whether `state` was read where Observation tracks it.
  @usableFromInline var isObserved: Bool { isTracked.load(ordering: .relaxed) }

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

  /// Publishes a failure found outside a dispatch, and dispatches the fallback's action.
  func report(_ failure: DispatchError) {
    errors.publish(failure)
    guard let fallback = withTurn({ fallback }), let action = fallback(failure) else { return }
    _ = dispatch(.action(action, isFallback: true), returning: { $0 })
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
