import Reduce

/// The name every ``ThunkMiddleware`` has in a store's chain; `perform` looks for it.
let thunkMiddlewareName = "ThunkMiddleware"

/// What a thunk calls on its store's context: ``MiddlewareContext``, as the generic parameter of
/// ``ThunkEnvironment``.
protocol StoreContext: Sendable {
  associatedtype State: Sendable

  /// The store's current state.
  var state: State { get }

  /// Dispatches an action from the top of the store's chain.
  ///
  /// - Parameter action: The action.
  /// - Returns: The state after the action, or why it failed.
  func dispatch(_ action: some Action) -> Result<State, DispatchError>
}

extension MiddlewareContext: StoreContext {}

/// What a ``ThunkMiddleware`` gives a thunk or a ``CancelThunks`` it handles, besides the store's
/// middleware context, and what a body's ``ThunkContext`` holds besides that context.
///
/// A class, made once per middleware (and once per async run), so that handing it on is a
/// retain rather than a copy of the boxed dependencies.
///
/// Generic over the store's context type, `MiddlewareContext<State>`, which it copies and calls
/// for a thunk: this module's code runs unspecialised, where copying a `MiddlewareContext<State>`
/// or calling one looks its metadata up in the runtime's cache, while here the type is a generic
/// parameter of the instance (thunk-sync: 6,221 -> 5,584 instructions per dispatch).
final class ThunkEnvironment<Base: StoreContext>: Sendable {
  /// The middleware's dependencies, boxed once when it is made rather than for every thunk.
  let dependencies: any Sendable
  /// The same, in the ``DependencyBox`` of their own type that a body's context holds.
  let dependencyBox: AnyObject & Sendable
  let runtime: ThunkRuntime
  /// The run of an async thunk; nil for a synchronous one.
  let run: ThunkRun?

  init<Dependencies: Sendable>(
    dependencies: DependencyBox<Dependencies>, runtime: ThunkRuntime, run: ThunkRun?
  ) {
    self.dependencies = dependencies.value
    self.dependencyBox = dependencies
    self.runtime = runtime
    self.run = run
  }

  private init(_ environment: ThunkEnvironment, run: ThunkRun) {
    dependencies = environment.dependencies
    dependencyBox = environment.dependencyBox
    runtime = environment.runtime
    self.run = run
  }

  /// The environment of an async body: this one plus the body's run.
  func running(_ run: ThunkRun) -> ThunkEnvironment {
    ThunkEnvironment(self, run: run)
  }

  /// A copy of a store's context, for a body's context to keep.
  func copy(_ base: Base) -> Base {
    base
  }

  /// The state of a store's context.
  func state(of base: Base) -> Base.State {
    base.state
  }

  /// Dispatches an action through a store's context.
  func dispatch(_ action: some Action, through base: Base) -> Result<Base.State, DispatchError> {
    base.dispatch(action)
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
