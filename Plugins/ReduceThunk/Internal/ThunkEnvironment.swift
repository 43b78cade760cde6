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
/// middleware context: its dependencies, its runtime, and the run of an async thunk.
///
/// A class, made once per middleware (and once per async run), so that a body's context shares
/// it. Generic over the store's context type, and the one to copy it and dispatch through it, for
/// cost: unspecialised code looks `MiddlewareContext<State>` up in the runtime at each use, a
/// generic parameter comes with the instance (thunk-sync: 6,371 -> 5,740 instructions).
final class ThunkEnvironment<Base: StoreContext>: Sendable {
  /// The dependencies the middleware was given.
  let dependencies: any Sendable
  let runtime: ThunkRuntime
  /// The run of an async thunk; nil for a synchronous one.
  let run: ThunkRun?

  init(dependencies: any Sendable, runtime: ThunkRuntime, run: ThunkRun? = nil) {
    self.dependencies = dependencies
    self.runtime = runtime
    self.run = run
  }

  /// The environment of an async body: this one plus the body's run.
  func running(_ run: ThunkRun) -> ThunkEnvironment {
    ThunkEnvironment(dependencies: dependencies, runtime: runtime, run: run)
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

  /// The middleware's dependencies as the type a body asks for, boxed for its context.
  ///
  /// - Throws: ``ThunkError/dependenciesMismatch(expected:found:)`` when they are not of it.
  func dependencies<Dependencies: Sendable>(as _: Dependencies.Type) throws(ThunkError)
    -> DependencyBox<Dependencies>
  {
    guard let value = dependencies as? Dependencies else {
      throw .dependenciesMismatch(
        expected: String(describing: Dependencies.self),
        found: String(describing: type(of: dependencies)))
    }
    return DependencyBox(value)
  }
}

/// A body's dependencies, in a box of their own (see ``ThunkContext``).
final class DependencyBox<Value: Sendable>: Sendable {
  let value: Value

  init(_ value: Value) {
    self.value = value
  }
}

/// The box of a body that needs no dependencies, shared by all of them.
let noDependencies = DependencyBox(())

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
