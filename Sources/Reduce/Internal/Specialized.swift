/// The engine's steps that code compiled for any state calls, made where the store's state is
/// known so that they run compiled for it.
///
/// A middleware is often compiled for any state (a generic one, such as `AnyMiddleware`, the
/// thunk plugin, undo), and so is the engine's code for queued work. There, each generic type
/// the engine touches (`Result<State, _>`, a route, the commit observers) costs a look-up of
/// its metadata at run time: measured, 4,700 instructions a middleware step, and a queued
/// action ran at about ten times the cost of a dispatched one. Through these closures, made by
/// `Store.init` (inlinable, so compiled where the store's state is known), the same steps run
/// specialised.
@usableFromInline
struct Specialized<State: Sendable>: Sendable {
  /// Runs the rest of a chain for a `next`: ``StoreCore/pass(_:to:dispatch:)``.
  @usableFromInline let pass:
    @Sendable (StoreCore<State>, any Action, ChainNode<State>?, UInt64) throws(DispatchError) ->
      Void
  /// Runs an action from the top of the chain as a dispatch of its own; returns its failure.
  @usableFromInline let run: @Sendable (StoreCore<State>, any Action) -> DispatchError?
  /// Dispatches work from a middleware's context: ``StoreCore/dispatch(_:)-(Work)``.
  @usableFromInline let dispatch: @Sendable (StoreCore<State>, Work) -> Result<State, DispatchError>

  @inlinable
  init() {
    pass = { core, action, node, dispatch throws(DispatchError) in
      try core.pass(action, to: node, dispatch: dispatch)
    }
    run = { core, action in
      let plan = core.plan
      return core.run(action, from: plan.chain.first, in: plan)
    }
    dispatch = { core, work in core.dispatch(work) }
  }
}
