/// What a middleware can do with its store besides passing the action on.
///
/// A context may be kept (by a task the middleware starts, say). It does not keep its store
/// alive: once the store is deinitialised and its dispatches have ended, a kept context reads the
/// state the store ended with, and its dispatches, reports and `beforeReturning` do nothing.
public struct MiddlewareContext<State: Sendable>: Sendable {
  /// The `next` given with this context: the flow past this context's middleware.
  ///
  /// The context holds it, and the store hands the middleware this very value as its `next`:
  /// one copy of the flow per middleware called, not two (measured on `counter+3mw`, about 30
  /// instructions per middleware step). The context reads the flow as `next.flow`, a path of
  /// stored properties: a computed property in between made a middleware compiled for any
  /// state look `Next`'s generic metadata up at each read (about 750 instructions per action
  /// on `custom-recorder`). For the same reason the context's inlinable members are always
  /// inlined (see `Next`).
  @usableFromInline let next: Next<State>
  /// The action being handled.
  public let action: any Action

  @inlinable
  init(next: consuming Next<State>, action: any Action) {
    self.next = next
    self.action = action
  }

  /// The name of the middleware this context was given to.
  public var middlewareName: String { next.flow.plan.caller }

  /// The identity of the store this context belongs to, as given to
  /// ``Middleware/willAttach(to:)`` and ``Middleware/didDetach(from:)``.
  ///
  /// A middleware that keeps per-store data checks it to ignore a kept `next` of a store it has
  /// left.
  @inlinable @inline(__always) public var storeID: ObjectIdentifier { next.flow.plan.storeID }

  /// The store's current state.
  ///
  /// During `handle` it is the state before the action, or after it once `next` returned. For
  /// an action of a ``Batch``, it includes the changes of the batch's actions before it, which
  /// are not committed yet. Once the store is gone, it is the state the store ended with.
  @inlinable @inline(__always) public var state: State {
    guard let core = next.flow.plan.core else { return next.flow.plan.stateAfterClosing() }
    return core.readState()
  }

  /// The ``Batch`` this action is one of, while the store applies that batch; nil for an action
  /// dispatched on its own.
  ///
  /// The store sends a batch through the chain, then each of its actions, so a middleware sees
  /// both. A middleware that treats the batch as one unit (a logger writing one entry, a
  /// recorder making one step) passes the batch's actions on untouched when this is set; a guard
  /// checks them like any other action.
  @inlinable @inline(__always) public var batch: Batch? { next.flow.batch }

  /// Dispatches an action from the top of the chain.
  ///
  /// From inside a dispatch (during `handle`, or an observer) the action is queued and runs
  /// right after the current one; the result is then the state at the time it was queued, and
  /// its own failure goes to ``Store/errors`` and the fallback. Once the store is gone, nothing
  /// is dispatched and the result is the state the store ended with.
  ///
  /// - Parameter action: The action to dispatch.
  /// - Returns: The state after the action, or why it failed.
  @inlinable @inline(__always) @discardableResult
  public func dispatch(_ action: some Action) -> Result<State, DispatchError> {
    guard let core = next.flow.plan.core else {
      return .success(next.flow.plan.stateAfterClosing())
    }
    return core.dispatch(action)
  }

  /// Dispatches actions one after another from the top of the chain.
  ///
  /// - Parameter actions: The actions, in order.
  /// - Returns: The state after the last action, or the first failure.
  @inlinable @inline(__always) @discardableResult
  public func dispatch(_ actions: [any Action]) -> Result<State, DispatchError> {
    guard let core = next.flow.plan.core else {
      return .success(next.flow.plan.stateAfterClosing())
    }
    return core.dispatch(actions)
  }

  /// Dispatches actions one after another from the top of the chain, unless `refusal` gives a
  /// reason not to once this dispatch's turn has come: then none of them runs, and that error
  /// is returned without being published.
  ///
  /// A dispatch from another thread waits for the store's turn; `refusal` is asked when the turn
  /// is taken, before any middleware sees the actions. The thunk plugin uses it to drop the
  /// dispatches of a thunk that was cancelled while they waited.
  ///
  /// - Parameters:
  ///   - actions: The actions, in order.
  ///   - refusal: Asked once, holding the turn but no lock; it must not dispatch.
  /// - Returns: The state after the last action, the first failure, or the refusal.
  @inlinable @inline(__always) @discardableResult
  public func dispatch(_ actions: [any Action], unless refusal: () -> DispatchError?)
    -> Result<State, DispatchError>
  {
    guard let core = next.flow.plan.core else {
      if let refused = refusal() { return .failure(refused) }
      return .success(next.flow.plan.stateAfterClosing())
    }
    return core.dispatch(actions, unless: refusal)
  }

  /// Runs `body` once the store has carried out the dispatch of the action being handled and
  /// released its turn, before that `dispatch` or `send` returns: for work the caller must wait
  /// for that should not hold up other dispatches, such as flushing a log to disk (concurrent
  /// dispatchers then share flushes).
  ///
  /// It runs on the dispatching thread or task (also when the store was busy and another thread
  /// carried the dispatch out for it), with no lock held, while other dispatches go on.
  ///
  /// If `body` throws, the dispatch returns
  /// ``DispatchError/middlewareFailed(name:action:underlying:)`` (a ``DispatchError`` it throws
  /// is returned as it is), unless it failed already, and the error is published on
  /// ``Store/errors`` and given to the fallback. The change the dispatch made stays made: check
  /// what can be checked before it commits (``Next/callAsFunction(_:willCommit:)``).
  ///
  /// "The dispatch" is the one the store is carrying out: a dispatch queued from a middleware
  /// or an observer, a fallback, a `Batch`'s actions and a `next` called late while that
  /// dispatch runs belong to it, and `body` runs before it returns. Called while no dispatch is
  /// being carried out on this thread (from a task the middleware started), it runs `body` at
  /// once. `body` may block the thread it runs on (for a `send`, possibly its task's) while it
  /// runs.
  ///
  /// - Parameter body: The work; throws to fail the dispatch.
  public func beforeReturning(_ body: @escaping @Sendable () throws -> Void) {
    guard let core = next.flow.plan.core else { return }
    core.runBeforeReturning(ReturnWait(name: middlewareName, action: action, body: body), next.flow)
  }

  /// Publishes an error found after the action was handled (an async task failed).
  ///
  /// The error reaches ``Store/errors`` as
  /// ``DispatchError/middlewareFailed(name:action:underlying:)`` for this context's action, and
  /// the store's fallback.
  ///
  /// - Parameter error: What went wrong.
  public func report(_ error: any Error) {
    report(error, for: action)
  }

  /// Publishes an error found while working on another action than this context's.
  ///
  /// - Parameters:
  ///   - error: What went wrong.
  ///   - action: The action the error belongs to.
  public func report(_ error: any Error, for action: any Action) {
    next.flow.plan.core?.report(
      .middlewareFailed(name: middlewareName, action: action, underlying: error))
  }
}
