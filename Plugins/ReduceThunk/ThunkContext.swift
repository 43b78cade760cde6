public import Reduce

/// What a thunk's body works with: the store's state, its dispatch, and the dependencies.
///
/// `Dependencies` is the type the body asks for. The store's ``ThunkMiddleware`` provides a value
/// of it (or of a type that converts to it with `as?`, so a body may ask for a protocol the app's
/// dependencies conform to). `Void` asks for nothing.
public struct ThunkContext<State: Sendable, Dependencies: Sendable>: Sendable {
  /// The store's context, as the middleware was given it.
  let base: MiddlewareContext<State>
  let environment: ThunkEnvironment<MiddlewareContext<State>>
  /// Boxed, so that a context's layout does not depend on `Dependencies`: making one then asks
  /// the runtime for no metadata.
  let box: DependencyBox<Dependencies>

  init(
    _ base: borrowing MiddlewareContext<State>,
    _ environment: ThunkEnvironment<MiddlewareContext<State>>,
    dependencies: DependencyBox<Dependencies>
  ) {
    self.base = environment.copy(base)
    self.environment = environment
    self.box = dependencies
  }

  /// The dependencies given to the store's ``ThunkMiddleware``.
  ///
  /// An API client, a clock, a database handle: swap them in tests.
  public var dependencies: Dependencies { box.value }

  /// The store's current state (redux-thunk's `getState()`).
  ///
  /// In an async body it is the latest state, including everything this body dispatched. In a
  /// synchronous body the body's own dispatches are still queued, so they are not in it yet.
  public var state: State { environment.state(of: base) }

  /// Dispatches an action from the top of the store's chain.
  ///
  /// From an async body the dispatch runs at once, serialized with all others, and the result is
  /// the state after it. From a synchronous body it is queued and runs right after the thunk; the
  /// result is then the state at the time it was queued, and a failure goes to `Store.errors`.
  /// Once an async thunk is cancelled, its dispatches are dropped: they fail with
  /// `DispatchError.rejected(by:action:underlying:)` whose underlying error is
  /// `CancellationError`, and are not published.
  ///
  /// - Parameter action: The action; another thunk is started as if the store dispatched it.
  /// - Returns: The state after the action, or why it failed.
  @discardableResult
  public func dispatch(_ action: some Action) -> Result<State, DispatchError> {
    // A synchronous thunk is never cancelled: no guard, and no array to build.
    guard environment.run != nil else { return environment.dispatch(action, through: base) }
    return guarded([action])
  }

  /// Dispatches actions one after another from the top of the store's chain.
  ///
  /// - Parameter actions: The actions, in order, each reduced and observed on its own.
  /// - Returns: The state after the last action, or the first failure.
  @discardableResult
  public func dispatch(_ actions: [any Action]) -> Result<State, DispatchError> {
    guard !actions.isEmpty else { return .success(state) }
    return guarded(actions)
  }

  /// Starts another thunk and waits for its value, as `Store.perform(_:)` does.
  ///
  /// Cancelling this thunk cancels the one it waits for.
  ///
  /// - Parameter thunk: The thunk.
  /// - Returns: The value its body returned.
  /// - Throws: The body's error; `CancellationError` when either thunk is cancelled.
  public func perform<Value>(_ thunk: Thunk<State, Value>) async throws -> Value {
    try await Perform.run(
      thunk,
      isInstalled: { environment.runtime.isAttached(to: base.storeID) },
      dispatch: { dispatch($0) })
  }

  /// Runs a dispatch, unless this is an async thunk that was cancelled: checked now, and again
  /// once the dispatch holds the store's turn, before any middleware sees it.
  func guarded(_ actions: [any Action]) -> Result<State, DispatchError> {
    guard let run = environment.run, let first = actions.first else {
      return base.dispatch(actions)
    }
    let dropped = DispatchError.rejected(
      by: thunkMiddlewareName, action: first, underlying: CancellationError())
    if run.isCancelled { return .failure(dropped) }
    return base.dispatch(actions) { run.isCancelled ? dropped : nil }
  }
}
