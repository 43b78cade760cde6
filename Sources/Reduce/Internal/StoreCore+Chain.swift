public import Synchronization

/// Where an action is on its way through a store's chain: what a `Next` and a
/// `MiddlewareContext` carry.
@usableFromInline
struct Flow<State: Sendable>: Sendable {
  /// The middleware this action's type visits.
  @usableFromInline var plan: ChainPlan<State>
  /// The position in `plan.entries` of the middleware to call next (past the end: the reducers).
  @usableFromInline var index: Int
  /// The dispatch item the flow belongs to, and the thread processing it: a `next` called
  /// during that item, on that thread, runs at once; any other call resumes as a dispatch of
  /// its own.
  @usableFromInline let item: UInt64
  @usableFromInline let thread: ThreadID
  /// The reductions watched by the middleware the action passed, innermost first.
  @usableFromInline var watches: ReductionWatch<State>?
  /// The `Batch` the action is one of, while that batch is being applied.
  @usableFromInline let batch: Batch?

  @inlinable
  init(
    plan: ChainPlan<State>, index: Int, item: UInt64, thread: ThreadID,
    watches: ReductionWatch<State>?, batch: Batch?
  ) {
    self.plan = plan
    self.index = index
    self.item = item
    self.thread = thread
    self.watches = watches
    self.batch = batch
  }

  @inlinable var core: StoreCore<State> { plan.core }
}

extension StoreCore {
  /// Runs one action through its plan from `index` as one dispatch item, holding the turn;
  /// publishes its failure and queues the fallback action.
  @inlinable
  func process(
    _ action: any Action, plan: ChainPlan<State>, from index: Int,
    watches: ReductionWatch<State>?,
    isFallback: Bool
  ) -> DispatchError? {
    local.pointee.itemCounter &+= 1
    let flow = Flow(
      plan: plan, index: index, item: local.pointee.itemCounter, thread: .current, watches: watches,
      batch: nil)
    local.pointee.processingFallback = isFallback
    activeItem.store(flow.item, ordering: .releasing)
    defer {
      activeItem.store(0, ordering: .releasing)
      local.pointee.processingFallback = false
    }
    do throws(DispatchError) {
      try runChain(action, flow)
      return nil
    } catch {
      handleFailure(error, isFallback: isFallback)
      return error
    }
  }

  /// Passes an action to the middleware at the flow's index, or to the reducers past the last
  /// one; what a middleware throws becomes the dispatch's failure.
  @inlinable
  func runChain(_ action: any Action, _ flow: Flow<State>) throws(DispatchError) {
    let entries = flow.plan.entries
    guard flow.index < entries.count else {
      try reduce(action, flow)
      return
    }
    let entry = entries[flow.index]
    var rest = flow
    rest.index += 1
    do {
      try entry.middleware.handle(
        action, context: MiddlewareContext(flow: flow, action: action), next: Next(flow: rest))
    } catch let error as DispatchError {
      throw error
    } catch {
      throw .rejected(by: entry.name, action: action, underlying: error)
    }
  }

  /// The plan for an action, by the type it was dispatched as.
  @inlinable
  func plan(for action: any Action) -> ChainPlan<State> {
    plan(for: action.dispatchedType)
  }

  /// The plan for an action type, looked up or made.
  ///
  /// It is looked up in `known`, the chain's plans the caller has just read, or in the plans
  /// read now; or made and kept, unless the chain changed in the meantime. Making one asks the
  /// middleware, not under the lock.
  @inlinable
  func plan(for type: any Action.Type, in known: ChainPlans<State>? = nil) -> ChainPlan<State> {
    // Not `known ?? ...`, which would copy the reference the caller holds.
    guard let plans = known else { return plan(for: type, in: fields.withLock { $0.plans }) }
    if let plan = plans.plan(for: ObjectIdentifier(type)) { return plan }
    let plan = ChainPlan(type, core: self, chain: plans.chain)
    fields.withLock { fields in
      if fields.plans === plans { fields.plans = plans.adding(plan) }
    }
    return plan
  }
}
