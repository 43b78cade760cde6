public import Synchronization

/// Where an action is on its way through a store's chain: what a `Next` and a
/// `MiddlewareContext` carry.
@usableFromInline
struct Flow<State: Sendable>: Sendable {
  /// The middleware this action still visits (none: the reducers come next).
  @usableFromInline var plan: ChainPlan<State>
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
    plan: ChainPlan<State>, item: UInt64, thread: ThreadID, watches: ReductionWatch<State>?,
    batch: Batch?
  ) {
    self.plan = plan
    self.item = item
    self.thread = thread
    self.watches = watches
    self.batch = batch
  }
}

extension StoreCore {
  /// Runs one action through a plan as one dispatch item, holding the turn; publishes its
  /// failure and queues the fallback action.
  @inlinable
  func process(
    _ action: any Action, plan: consuming ChainPlan<State>,
    watches: consuming ReductionWatch<State>?,
    isFallback: Bool
  ) -> DispatchError? {
    local.pointee.itemCounter &+= 1
    let flow = Flow(
      plan: plan, item: local.pointee.itemCounter, thread: turnHolder, watches: watches, batch: nil)
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

  /// Passes an action to the first middleware of the flow's plan, or to the reducers when it has
  /// none; what a middleware throws becomes the dispatch's failure.
  ///
  /// The middleware's context and `next` carry the flow past it.
  @inlinable
  func runChain(_ action: any Action, _ flow: Flow<State>) throws(DispatchError) {
    guard let entry = flow.plan.entry, let plan = flow.plan.rest else {
      try reduce(action, flow)
      return
    }
    let rest = Flow(
      plan: plan, item: flow.item, thread: flow.thread, watches: flow.watches, batch: flow.batch)
    let context = MiddlewareContext(next: Next(flow: rest), action: action)
    do {
      try entry.middleware.handle(action, context: context, next: context.next)
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

  /// The plan for an action type, looked up or made; turn holder only.
  ///
  /// It is looked up in the turn holder's setup, or made and kept, unless the chain changed in
  /// the meantime. Making one asks the middleware, not under the lock.
  @inlinable
  func plan(for type: any Action.Type) -> ChainPlan<State> {
    refreshSetup()
    if let plan = local.pointee.setup.plans.plan(for: ObjectIdentifier(type)) { return plan }
    return makePlan(for: type)
  }

  /// Makes the plan for an action type, and keeps it in the setup.
  @usableFromInline
  func makePlan(for type: any Action.Type) -> ChainPlan<State> {
    let plans = local.pointee.setup.plans
    let plan = ChainPlan(
      type, core: self, chain: plans.chain, registry: local.pointee.setup.registry)
    fields.withLock { fields in
      if fields.setup.plans === plans { changeSetup(&fields) { $0.plans = plans.adding(plan) } }
    }
    return plan
  }
}
