public import Reduce

/// The name every ``ThunkMiddleware`` has in a store's chain; `perform` looks for it.
let thunkMiddlewareName = "ThunkMiddleware"

/// Runs the actions of one thunk type (or ``CancelThunks``) in a store whose state is `State`.
///
/// A class, so that a table of handlers holds each as one reference: a closure kept in a table
/// is converted back each time it is read, at the cost of an allocation.
@usableFromInline
final class ThunkHandler<State: Sendable>: Sendable {
  /// Runs an action, of the handler's type, with the middleware's driver.
  @usableFromInline typealias Body = @Sendable (any Action, ThunkDriver<State>) throws -> Void

  @usableFromInline let body: Body

  @usableFromInline
  init(_ body: @escaping Body) {
    self.body = body
  }
}

/// What a ``ThunkMiddleware`` gives a thunk or a ``CancelThunks`` it handles.
@usableFromInline
struct ThunkDriver<State: Sendable>: Sendable {
  @usableFromInline let context: MiddlewareContext<State>
  @usableFromInline let dependencies: any Sendable
  @usableFromInline let runtime: ThunkRuntime

  @inlinable
  init(context: MiddlewareContext<State>, dependencies: any Sendable, runtime: ThunkRuntime) {
    self.context = context
    self.dependencies = dependencies
    self.runtime = runtime
  }

  /// The environment of one body: the driver plus the run of an async thunk.
  @inlinable
  func environment(run: ThunkRun?) -> ThunkEnvironment<State> {
    ThunkEnvironment(base: context, dependencies: dependencies, runtime: runtime, run: run)
  }
}

/// What a body's ``ThunkContext`` is made from.
@usableFromInline
struct ThunkEnvironment<State: Sendable>: Sendable {
  @usableFromInline let base: MiddlewareContext<State>
  @usableFromInline let dependencies: any Sendable
  @usableFromInline let runtime: ThunkRuntime
  /// The run of an async thunk; nil for a synchronous one.
  @usableFromInline let run: ThunkRun?

  @inlinable
  init(
    base: MiddlewareContext<State>, dependencies: any Sendable, runtime: ThunkRuntime,
    run: ThunkRun?
  ) {
    self.base = base
    self.dependencies = dependencies
    self.runtime = runtime
    self.run = run
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
