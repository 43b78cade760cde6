import Reduce

/// The name every ``ThunkMiddleware`` has in a store's chain; `perform` looks for it.
let thunkMiddlewareName = "ThunkMiddleware"

/// What a ``ThunkMiddleware`` gives a thunk or a ``CancelThunks`` it handles, besides the store's
/// middleware context, and what a body's ``ThunkContext`` holds besides that context.
///
/// Not generic: code that is generic over the store's state runs unspecialised in this module,
/// where each use of a generic type asks the runtime for its metadata, so the pieces that do not
/// depend on the state are kept apart from it. A class, made once per middleware (and once per
/// async run), so that handing it on is a retain rather than a copy of the boxed dependencies.
final class ThunkEnvironment: Sendable {
  /// The middleware's dependencies, boxed once when it is made rather than for every thunk.
  let dependencies: any Sendable
  let runtime: ThunkRuntime
  /// The run of an async thunk; nil for a synchronous one.
  let run: ThunkRun?

  init(dependencies: any Sendable, runtime: ThunkRuntime, run: ThunkRun?) {
    self.dependencies = dependencies
    self.runtime = runtime
    self.run = run
  }

  /// The environment of an async body: this one plus the body's run.
  func running(_ run: ThunkRun) -> ThunkEnvironment {
    ThunkEnvironment(dependencies: dependencies, runtime: runtime, run: run)
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
