public import Reduce

/// The name every ``ThunkMiddleware`` has in a store's chain; `perform` looks for it.
let thunkMiddlewareName = "ThunkMiddleware"

/// What a ``ThunkMiddleware`` gives a thunk or a ``CancelThunks`` it handles.
struct ThunkDriver<State: Sendable>: Sendable {
  let context: MiddlewareContext<State>
  let dependencies: any Sendable
  let runtime: ThunkRuntime

  /// The environment of one body: the driver plus the run of an async thunk.
  func environment(run: ThunkRun?) -> ThunkEnvironment<State> {
    ThunkEnvironment(base: context, dependencies: dependencies, runtime: runtime, run: run)
  }
}

/// What a body's ``ThunkContext`` is made from.
@usableFromInline
struct ThunkEnvironment<State: Sendable>: Sendable {
  @usableFromInline let base: MiddlewareContext<State>
  let dependencies: any Sendable
  let runtime: ThunkRuntime
  /// The run of an async thunk; nil for a synchronous one.
  @usableFromInline let run: ThunkRun?
}

/// An action ``ThunkMiddleware`` handles itself instead of passing it on.
protocol ThunkPluginAction: Action {
  /// Handles the action in a store whose state is `StoreState`.
  ///
  /// - Throws: What rejects the dispatch.
  func handle<StoreState: Sendable>(by driver: ThunkDriver<StoreState>) throws
}

/// A ``Thunk`` of any state and value type.
protocol AnyThunk: ThunkPluginAction {}
