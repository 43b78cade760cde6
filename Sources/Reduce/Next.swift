public import Synchronization

/// Passes an action on to the rest of a store's chain and then the reducers.
///
/// Call it during `handle`, or keep it and call it later (from a task or a timer): the rest of
/// the chain and the reducers then run serialized with every other dispatch, with the chain the
/// dispatch started with. A `next` kept after its store is deinitialised delivers nothing.
///
/// A kept `next` does not keep its store alive: it holds the store's engine weakly, and of the
/// chain only the middleware after the one it was given to.
public struct Next<State: Sendable>: Sendable {
  // Its calls are always inlined, down to the engine's closure (`pass`). A middleware compiled
  // for any state (a generic one, called through the `Middleware` protocol) that called a method
  // of `Next<State>` would look the struct's generic metadata up at run time for each call:
  // measured on `custom-recorder`, about 370 instructions per action, and as many for a
  // property of `MiddlewareContext`.
  @usableFromInline let flow: Flow<State>

  @inlinable
  init(flow: consuming Flow<State>) {
    self.flow = flow
  }

  /// Passes an action on.
  ///
  /// - Parameter action: The action for the rest of the chain: the one handled, or another.
  /// - Throws: The ``DispatchError`` of the rest of the chain or of the reducers. A call made
  ///   after its dispatch ended runs as a dispatch of its own: its failure is also published on
  ///   ``Store/errors`` and given to the fallback.
  @inlinable @inline(__always)
  public func callAsFunction(_ action: some Action) throws(DispatchError) {
    try pass(action, watch: nil)
  }

  /// Passes on an action known as `any Action`, such as the one `handle` was given.
  ///
  /// - Parameter action: The action for the rest of the chain: the one handled, or another.
  /// - Throws: The ``DispatchError`` of the rest of the chain or of the reducers.
  @inlinable @inline(__always)
  public func callAsFunction(_ action: any Action) throws(DispatchError) {
    try pass(action, watch: nil)
  }

  /// Passes an action on and watches what its reduction does to a value of the state.
  ///
  /// It takes the action as `any Action`, such as the one `handle` was given: a concrete action
  /// is boxed once, as for any `next`.
  ///
  /// When the action (or what a later middleware passes on in its place) reaches the reducers,
  /// the store reads `value` from the state right before they run and right after they commit,
  /// then calls `onReduced` with both. It does so after the store's observers were told, on the
  /// thread that reduced the action, with no lock held; `onReduced` may dispatch (the action is
  /// queued). It is called once per reduction, whenever it happens: now, or later if a
  /// middleware after this one defers the action. It is not called when no handler ran (nothing
  /// was reduced), when a handler threw (the change was rolled back), or when the action is
  /// swallowed or rejected further down the chain. For a ``Batch``, before and after are around
  /// the whole batch.
  ///
  /// `value` runs while the store is reducing, like a reducer: it must not read the store. Only
  /// what it returns is kept, so a middleware that watches one substate keeps no copy of the
  /// rest of the state, and the reducers still change that rest in place.
  ///
  /// ```swift
  /// try next(action, watching: \.document) { change in
  ///   if change.before != change.after { history.append(change.before) }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - action: The action for the rest of the chain.
  ///   - value: Reads the watched value from a state.
  ///   - onReduced: Called with the value before and after the reduction.
  /// - Throws: The ``DispatchError`` of the rest of the chain or of the reducers.
  @inlinable @inline(__always)
  public func callAsFunction<Value: Sendable>(
    _ action: any Action,
    watching value: @escaping @Sendable (State) -> Value,
    onReduced: @escaping @Sendable (Reduction<Value>) -> Void
  ) throws(DispatchError) {
    try pass(
      action, watch: ReductionWatch(value: value, onReduced: onReduced, outer: flow.watches))
  }

  /// Passes an action on and watches what its reduction does to a value of the state, with a
  /// watcher made once (see ``ReductionWatcher``).
  ///
  /// The same as ``callAsFunction(_:watching:onReduced:)`` with the watcher's value and
  /// `onReduced`, without making a watch for this action.
  ///
  /// - Parameters:
  ///   - action: The action for the rest of the chain.
  ///   - watcher: The watch of a value, made once.
  /// - Throws: The ``DispatchError`` of the rest of the chain or of the reducers.
  @inlinable @inline(__always)
  public func callAsFunction(_ action: any Action, watcher: ReductionWatcher<State>)
    throws(DispatchError)
  {
    // Watched by a middleware before this one too: the two are combined for this action.
    try pass(action, watch: nil, watcher: watcher)
  }

  /// Passes an action on and is shown its change once it is decided, before it is made
  /// visible: the place for a write-ahead log.
  ///
  /// When the action (or what a later middleware passes on in its place) reaches the reducers
  /// and its change is decided, the store calls `willCommit` with a ``PendingChange``: the
  /// action and the keys of the mutators that make the change. It is decided once every
  /// `validate:` check of its handlers passed (``Mutator/on(_:validate:reduce:)``), before any
  /// handler changes the state; for a handler whose one closure may throw, once the handlers
  /// ran on the state the store keeps a copy of. Either way no reader, observer or later action
  /// has seen the change yet. If `willCommit` throws, the action fails with
  /// ``DispatchError/middlewareFailed(name:action:underlying:)`` (a ``DispatchError`` it throws
  /// is passed on as it is) and the state stays as it was.
  ///
  /// It is called on the thread reducing the action, holding the store's turn, with no lock
  /// held. Every dispatch waits while it runs, so keep it short (a write to a file, not a
  /// flush; see ``MiddlewareContext/beforeReturning(_:)`` for that); a dispatch from it is
  /// queued, as one from a middleware is, and it should not read the state (the change may or
  /// may not be in it yet). It is called once: for an action no
  /// mutator handles with no mutators (nothing will change); not when a check or handler threw,
  /// nor when the action is swallowed or rejected further down the chain. For a ``Batch``, it
  /// is called once for the whole batch, after each of its actions passed the chain, with the
  /// mutators of all of them. When several middleware ask, the one nearest the reducers is
  /// called first; one that throws stops the rest.
  ///
  /// ```swift
  /// try next(action, willCommit: { change in
  ///   try journal.append(change.action, mutators: change.mutators)
  /// })
  /// ```
  ///
  /// - Parameters:
  ///   - action: The action for the rest of the chain.
  ///   - willCommit: Shown the decided change; throws to refuse it.
  /// - Throws: The ``DispatchError`` of the rest of the chain, of the reducers, or of
  ///   `willCommit`.
  @inlinable @inline(__always)
  public func callAsFunction(
    _ action: any Action,
    willCommit: @escaping @Sendable (PendingChange) throws -> Void
  ) throws(DispatchError) {
    // The middleware that asks is the one this `next` was given to.
    try pass(
      action,
      watch: ReductionWatch(
        middleware: flow.plan.caller, willCommit: willCommit, outer: flow.watches))
  }

  /// Runs the rest of the flow for `action`, watched by `watch` or by `watcher` when given: at
  /// once during the dispatch this `next` belongs to, as a dispatch of its own after it; not at
  /// all once the store's engine is gone.
  ///
  /// The work is the engine's (``StoreCore/pass(_:_:watch:watcher:)``), reached through the
  /// closure made where the store was created, so that it runs compiled for the store's state
  /// even when the middleware calling `next` was compiled for any state.
  @inlinable @inline(__always)
  func pass(
    _ action: any Action, watch: ReductionWatch<State>?, watcher: ReductionWatcher<State>? = nil
  ) throws(DispatchError) {
    // The plan reaches the engine weakly, so that a kept `next` does not keep it alive.
    guard let core = flow.plan.core else { return }
    try core.continueFlow(core, action, flow, watch, watcher)
  }
}

extension StoreCore {
  /// Runs the rest of a flow for an action a middleware passed on, watched by `watch` or by
  /// `watcher` when given.
  ///
  /// An action of the type the flow was planned for goes on to the next middleware of the plan;
  /// one of another type (the middleware passed on a different action) to the next middleware
  /// after this one that handles that type.
  @inlinable
  func pass(
    _ action: any Action, _ flow: Flow<State>, watch: ReductionWatch<State>?,
    watcher: ReductionWatcher<State>?
  ) throws(DispatchError) {
    // A watcher made once joins the watches of the middleware before, for this action.
    let watch =
      watch ?? watcher.map { watcher in flow.watches.map(watcher.inside) ?? watcher.alone }
    let type = action.dispatchedType
    let sameType = ObjectIdentifier(type) == flow.plan.actionType
    guard !sameType || watch != nil else {
      // The flow goes on as it is: no copy of it.
      try proceed(action, flow)
      return
    }
    // Made field by field rather than copied and changed: a copy counts a reference of each
    // field, and the change releases one again.
    let rest = Flow(
      plan: sameType ? flow.plan : flow.plan.remainder(for: type, core: self), item: flow.item,
      thread: flow.thread, watches: watch ?? flow.watches, batch: flow.batch)
    try proceed(action, rest)
  }

  /// Runs the rest of a flow: at once during the dispatch item it belongs to, on its thread; as
  /// a dispatch of its own otherwise.
  @inlinable
  func proceed(_ action: any Action, _ flow: Flow<State>) throws(DispatchError) {
    if activeItem.load(ordering: .acquiring) == flow.item, flow.thread == ThreadID.current {
      try runChain(action, flow)
    } else {
      try resume(action, flow)
    }
  }
}
