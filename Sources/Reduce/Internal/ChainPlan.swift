/// The middleware of a chain that handle one action type, in chain order, from some point of
/// the chain on: a list of which each element is the plan of the rest.
///
/// The store asks each middleware once per action type whether it handles it
/// (``Middleware/handles(_:)``) and keeps the answer here: an action then visits only the
/// middleware that want it, and an action no middleware wants is reduced as in a store without
/// middleware.
///
/// The `next` (and the context) given to a middleware holds the plan after that middleware: the
/// middleware it still has to visit, never the ones it passed. A middleware that keeps its `next`
/// therefore holds neither itself nor a middleware before it, and no cycle of references goes
/// through the chain. A plan reaches its store's engine weakly, so that a kept `next` or context
/// keeps nothing of the store alive: once the engine is gone, a kept `next` delivers nothing.
@usableFromInline
final class ChainPlan<State: Sendable>: Sendable {
  /// The engine of the store the plan was made for, while it lives.
  ///
  /// Weak: the engine holds its chain's plans, and a middleware of that chain may keep the plan
  /// of its `next`. Read once per `next` call, which costs one weak load.
  @usableFromInline weak let core: StoreCore<State>?
  /// The identity of that engine: the store's identity given to the middleware.
  @usableFromInline let storeID: ObjectIdentifier
  /// The state the store ended with, set when it closes: what a context kept after the engine
  /// is gone reads.
  @usableFromInline let finalState: Locked<State?>
  /// The action type planned for.
  @usableFromInline let actionType: ObjectIdentifier
  /// The first middleware of the plan; nil when the reducers come next.
  @usableFromInline let entry: MiddlewareEntry<State>?
  /// The plan after `entry`; nil when `entry` is.
  @usableFromInline let rest: ChainPlan?
  /// The name of the middleware whose `next` and context hold this plan; empty for the plan of a
  /// whole chain.
  @usableFromInline let caller: String
  /// The part of the chain the plan was made from: all of it, or what follows `caller`.
  let chain: [MiddlewareEntry<State>]
  /// The mutators the plan was made with, when known, and the route of `actionType` among
  /// them: what the reducers run at the end of the plan while the store's mutators are still
  /// those (see ``route(in:)``).
  @usableFromInline let registry: Registry<State>?
  @usableFromInline let route: Route<State>?

  /// Plans `type` over `chain`, asking each middleware once.
  ///
  /// It calls the middleware's ``Middleware/handles(_:)``: not under the store's lock.
  ///
  /// - Parameters:
  ///   - type: The action type.
  ///   - core: The engine of the store.
  ///   - chain: The middleware to plan, outermost first.
  ///   - registry: The store's mutators, when known: the plan keeps the route of `type` among
  ///     them.
  ///   - caller: The middleware before `chain`, whose `next` leads to this plan.
  @usableFromInline
  init(
    _ type: any Action.Type, core: StoreCore<State>, chain: [MiddlewareEntry<State>],
    registry: Registry<State>?, caller: String = ""
  ) {
    self.core = core
    storeID = core.identifier
    finalState = core.finalState
    actionType = ObjectIdentifier(type)
    self.chain = chain
    self.caller = caller
    self.registry = registry
    route = registry?.route(for: actionType)
    guard let position = chain.firstIndex(where: { $0.middleware.handles(type) }) else {
      entry = nil
      rest = nil
      return
    }
    entry = chain[position]
    rest = ChainPlan(
      type, core: core, chain: Array(chain[(position + 1)...]), registry: registry,
      caller: chain[position].name)
  }

  /// A copy of `plan` with the route of its action type among other mutators: the same
  /// middleware, without asking them again.
  ///
  /// - Parameters:
  ///   - plan: The plan to copy.
  ///   - registry: The store's new mutators.
  init(_ plan: ChainPlan, rerouted registry: Registry<State>) {
    core = plan.core
    storeID = plan.storeID
    finalState = plan.finalState
    actionType = plan.actionType
    chain = plan.chain
    caller = plan.caller
    self.registry = registry
    route = registry.route(for: plan.actionType)
    entry = plan.entry
    rest = plan.rest.map { ChainPlan($0, rerouted: registry) }
  }

  /// The handlers that run for the plan's action type among `registry`'s mutators: the route
  /// the plan keeps, when it was made with them, or else one look-up.
  ///
  /// Kept with the plan, the route costs no second look-up by type per action (the plan's is
  /// made anyway): measured, about 20 of `counter`'s 611 instructions.
  @inlinable
  func route(in registry: Registry<State>) -> Route<State> {
    if let route, self.registry === registry { return route }
    return registry.route(for: actionType)
  }

  /// The plan for an action of `type` that `caller` passed on in place of the one it was given:
  /// the middleware after it that handle `type`.
  ///
  /// - Parameters:
  ///   - type: The type of the action passed on.
  ///   - core: The engine of the store.
  /// - Returns: The plan of the rest of the chain for `type`.
  @usableFromInline
  func remainder(for type: any Action.Type, core: StoreCore<State>) -> ChainPlan {
    // Maybe not on the thread holding the turn: the store's mutators are not at hand.
    ChainPlan(type, core: core, chain: chain, registry: nil, caller: caller)
  }

  /// The state the store ended with, for a context kept after the store's engine is gone.
  @usableFromInline
  func stateAfterClosing() -> State {
    guard let state = finalState.withLock({ $0 }) else {
      // `StoreCore.close()` sets it before the store releases its engine.
      preconditionFailure("A store's engine ended without closing.")
    }
    return state
  }
}

/// The chain of a store and the plans made for it so far: an immutable snapshot, replaced as a
/// whole when the chain changes or a plan is added.
///
/// Plans are found by the action type's identity in a ``TypeTable``, as mutators' routes are.
@usableFromInline
final class ChainPlans<State: Sendable>: Sendable {
  /// The middleware, outermost first.
  @usableFromInline let chain: [MiddlewareEntry<State>]
  @usableFromInline let table: TypeTable<ChainPlan<State>?>
  /// The plans in the table, in the order they were made.
  let plans: [ChainPlan<State>]

  /// Creates the snapshot of a chain with the given plans (made for this chain).
  ///
  /// - Parameters:
  ///   - chain: The middleware, outermost first.
  ///   - plans: The plans made for this chain so far.
  init(chain: [MiddlewareEntry<State>], plans: [ChainPlan<State>] = []) {
    self.chain = chain
    self.plans = plans
    table = TypeTable(plans.map { ($0.actionType, $0) }, missing: nil)
  }

  /// The plan made for an action type, if any.
  @inlinable
  func plan(for actionType: ObjectIdentifier) -> ChainPlan<State>? {
    table[actionType]
  }

  /// The snapshot with one more plan.
  @usableFromInline
  func adding(_ plan: ChainPlan<State>) -> ChainPlans {
    ChainPlans(chain: chain, plans: plans + [plan])
  }

  /// The snapshot with the same plans, keeping the routes of `registry`, the store's new
  /// mutators.
  func rerouted(in registry: Registry<State>) -> ChainPlans {
    ChainPlans(chain: chain, plans: plans.map { ChainPlan($0, rerouted: registry) })
  }
}
