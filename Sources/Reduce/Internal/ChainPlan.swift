/// The middleware of a chain that handle one action type, in chain order.
///
/// The store asks each middleware once per action type whether it handles it
/// (``Middleware/handles(_:)``) and keeps the answer here: an action then visits only the
/// middleware that want it, and an action no middleware wants is reduced as in a store without
/// middleware.
///
/// A plan refers to its store's core, so that a `Next` and a context need only the plan. The
/// store's plans refer to the core in turn; the store breaks that cycle when it closes.
@usableFromInline
final class ChainPlan<State: Sendable>: Sendable {
  /// The engine of the store the plan was made for.
  @usableFromInline let core: StoreCore<State>
  /// The action type planned for.
  @usableFromInline let actionType: ObjectIdentifier
  /// The middleware that handle it, outermost first.
  @usableFromInline let entries: [MiddlewareEntry<State>]
  /// The position of each of `entries` in `chain`.
  let positions: [Int]
  /// The whole chain the plan was made from.
  let chain: [MiddlewareEntry<State>]

  init(
    core: StoreCore<State>, actionType: ObjectIdentifier, entries: [MiddlewareEntry<State>],
    positions: [Int], chain: [MiddlewareEntry<State>]
  ) {
    self.core = core
    self.actionType = actionType
    self.entries = entries
    self.positions = positions
    self.chain = chain
  }

  /// Plans `type` over the part of `chain` from position `start` on, asking each middleware.
  ///
  /// It calls the middleware's ``Middleware/handles(_:)``: not under the store's lock.
  @usableFromInline
  convenience init(
    _ type: any Action.Type, core: StoreCore<State>, chain: [MiddlewareEntry<State>],
    from start: Int = 0
  ) {
    var entries: [MiddlewareEntry<State>] = []
    var positions: [Int] = []
    for position in chain.indices where position >= start {
      guard chain[position].middleware.handles(type) else { continue }
      entries.append(chain[position])
      positions.append(position)
    }
    self.init(
      core: core, actionType: ObjectIdentifier(type), entries: entries, positions: positions,
      chain: chain)
  }

  /// The plan for an action of `type` that the middleware at `index - 1` of this plan passed on
  /// in place of the one it was given: the middleware after it that handle `type`.
  ///
  /// - Parameters:
  ///   - index: The index in `entries` of the middleware that would have come next.
  ///   - type: The type of the action passed on.
  /// - Returns: The plan of the rest of the chain for `type`.
  @usableFromInline
  func remainder(from index: Int, for type: any Action.Type) -> ChainPlan {
    let start = index > 0 ? positions[index - 1] + 1 : 0
    return ChainPlan(type, core: core, chain: chain, from: start)
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
}
