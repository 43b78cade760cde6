public import Reduce

extension Store {
  /// Starts a thunk and waits for the value its body returns.
  ///
  /// The thunk is dispatched from the top of the chain, like any action, and run by the store's
  /// ``ThunkMiddleware``. Its error is thrown here and not published on `Store.errors`.
  /// Cancelling the calling task cancels the thunk; cancelling the thunk (``CancelThunks``, a
  /// newer thunk with `cancelInFlight`, the middleware's removal) makes this throw
  /// `CancellationError` at once, whether or not the body has returned yet.
  ///
  /// ```swift
  /// let count = try await store.perform(loadTodos)
  /// ```
  ///
  /// - Parameter thunk: The thunk.
  /// - Returns: The value its body returned.
  /// - Throws: The body's error; `CancellationError`; ``ThunkError/middlewareMissing`` at once
  ///   when the store has no ``ThunkMiddleware``; ``ThunkError/dependenciesMismatch(expected:found:)``;
  ///   or the `DispatchError` of a middleware before ``ThunkMiddleware`` that rejected the thunk.
  public func perform<Value>(_ thunk: Thunk<State, Value>) async throws -> Value {
    try await Perform.run(
      thunk,
      isInstalled: { middlewareNames.contains(thunkMiddlewareName) },
      dispatch: { dispatch($0) })
  }
}
