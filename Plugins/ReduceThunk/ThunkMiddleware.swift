public import Reduce

/// The middleware that runs thunks: put it first in the chain.
///
/// It runs every ``Thunk`` it sees with its `dependencies` (redux-thunk's extra argument) and
/// passes it no further, handles ``CancelThunks``, and passes every other action on untouched.
/// Removing it from a store, or the store's deinitialisation, cancels every thunk in flight
/// there. One middleware may serve several stores: cancellation ids are per store.
///
/// ```swift
/// let store = try Store(
///   initialState: AppState(),
///   mutators: [todos],
///   middleware: [ThunkMiddleware(dependencies: AppDependencies.live)])
/// ```
///
/// First in the chain, it lets the middleware after it (throttle, logging, undo) see the actions
/// thunks dispatch, and never the thunks themselves.
public struct ThunkMiddleware<State: Sendable, Dependencies: Sendable>: Middleware {
  /// The dependencies every thunk's body gets in its context.
  public let dependencies: Dependencies
  let runtime: ThunkRuntime
  let handlers: ThunkHandlers<ThunkHandler<State>>
  /// What every thunk's handler gets besides the store's context.
  let environment: ThunkEnvironment<MiddlewareContext<State>>

  /// Creates a middleware that runs thunks with dependencies.
  ///
  /// - Parameters:
  ///   - dependencies: Any `Sendable` value: a struct of clients, a protocol existential.
  ///   - executor: The executor the tasks of asynchronous thunks prefer; nil for the default.
  ///     In tests, pass the `ManualClock` the thunks sleep on (ReduceTesting): its `advance` then
  ///     runs the thunks that are ready until they wait on the clock before it moves time, so a
  ///     test that dispatches a sleeping thunk and advances the clock is deterministic.
  public init(dependencies: Dependencies, executor: (any TaskExecutor)? = nil) {
    self.dependencies = dependencies
    runtime = ThunkRuntime(executor: executor)
    handlers = ThunkHandlers { action in
      (action as? any ThunkPluginAction)?.handler(in: State.self)
    }
    environment = ThunkEnvironment(dependencies: dependencies, runtime: runtime)
  }

  /// `ThunkMiddleware`, whatever the generic arguments; `Store.perform(_:)` looks for it.
  public var name: String { thunkMiddlewareName }

  /// Runs a thunk, cancels thunks for ``CancelThunks``, and passes other actions on.
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - context: The store's state, dispatch and error reporting.
  ///   - next: Passes other actions on.
  /// - Throws: The error of a synchronous thunk nobody awaits; a ``ThunkError`` for a thunk of
  ///   another state type, or a body whose dependencies do not match.
  public func handle(_ action: any Action, context: MiddlewareContext<State>, next: Next<State>)
    throws
  {
    // Thunks and `CancelThunks` have a handler; every other action is passed on untouched.
    guard let handler = handlers.handler(for: action) else {
      return try next(action)
    }
    try handler.body(action, context, environment)
  }

  /// Starts serving a store.
  ///
  /// - Parameter store: The store's identity.
  public func willAttach(to store: ObjectIdentifier) {
    runtime.attach(to: store)
  }

  /// Cancels every thunk in flight in the store and stops serving it.
  ///
  /// - Parameter store: The store's identity.
  public func didDetach(from store: ObjectIdentifier) {
    for run in runtime.detach(from: store) { run.cancel() }
  }
}

extension ThunkMiddleware where Dependencies == Void {
  /// Creates a middleware that runs thunks that need no dependencies.
  ///
  /// - Parameter executor: The executor the tasks of asynchronous thunks prefer; nil for the
  ///   default (see ``init(dependencies:executor:)``).
  public init(executor: (any TaskExecutor)? = nil) {
    self.init(dependencies: (), executor: executor)
  }
}
