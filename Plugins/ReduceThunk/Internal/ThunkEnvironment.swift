import Reduce

/// The name every ``ThunkMiddleware`` has in a store's chain; `perform` looks for it.
let thunkMiddlewareName = "ThunkMiddleware"

/// What a ``ThunkMiddleware`` gives a thunk or a ``CancelThunks`` it handles, and what a body's
/// ``ThunkContext`` is made from.
///
/// One type for both, so that the middleware's context in it is copied once per thunk rather
/// than once per step (thunk-sync: 4,931 -> 4,564 instructions per dispatch; taking it
/// `consuming` made it 5,349).
struct ThunkEnvironment<State: Sendable>: Sendable {
  let base: MiddlewareContext<State>
  let dependencies: any Sendable
  let runtime: ThunkRuntime
  /// The run of an async thunk; nil for a synchronous one.
  let run: ThunkRun?

  /// The environment of an async body: this one plus the body's run.
  func running(_ run: ThunkRun) -> ThunkEnvironment {
    ThunkEnvironment(base: base, dependencies: dependencies, runtime: runtime, run: run)
  }
}

/// An action ``ThunkMiddleware`` handles itself instead of passing it on.
protocol ThunkPluginAction: Action {
  /// The handler of this action's type in a store whose state is `StoreState`.
  ///
  /// The middleware asks once per type and keeps the answer (``ThunkHandlers``).
  ///
  /// - Parameter store: The store's state type.
  /// - Returns: The handler; for a thunk of another state type, one that throws
  ///   ``ThunkError/stateMismatch(expected:found:)``.
  func handler<StoreState: Sendable>(in store: StoreState.Type) -> ThunkHandler<StoreState>
}
