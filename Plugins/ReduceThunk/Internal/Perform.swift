import Reduce

/// `perform`, shared by ``Reduce/Store`` and ``ThunkContext``.
enum Perform {
  /// Dispatches a copy of the thunk that reports its outcome, and waits for that outcome.
  ///
  /// - Parameters:
  ///   - thunk: The thunk.
  ///   - isInstalled: Whether a ``ThunkMiddleware`` serves the store.
  ///   - dispatch: Dispatches the thunk from the top of the store's chain.
  /// - Returns: The body's value.
  /// - Throws: The body's error, `CancellationError`, a ``ThunkError``, or the `DispatchError`
  ///   of a middleware before ``ThunkMiddleware`` that rejected the thunk.
  static func run<State: Sendable, Value: Sendable>(
    _ thunk: Thunk<State, Value>,
    isInstalled: () -> Bool,
    dispatch: (Thunk<State, Value>) -> Result<State, DispatchError>
  ) async throws -> Value {
    try Task.checkCancellation()
    let call = start(thunk, isInstalled: isInstalled, dispatch: dispatch)
    return try await call.value()
  }

  /// Dispatches a copy of the thunk that carries a ticket, and settles at once what cannot run.
  ///
  /// The ticket is released when this returns, so a thunk no middleware kept fails its call.
  private static func start<State: Sendable, Value: Sendable>(
    _ thunk: Thunk<State, Value>,
    isInstalled: () -> Bool,
    dispatch: (Thunk<State, Value>) -> Result<State, DispatchError>
  ) -> ThunkCall<Value> {
    let call = ThunkCall<Value>()
    let ticket = PerformTicket(call)
    withExtendedLifetime(ticket) {
      let tracked = thunk.tracked(by: ticket)
      let outcome = dispatch(tracked)
      guard !call.isStarted else { return }
      switch outcome {
      case .failure(.rejected(_, _, let underlying)) where underlying is CancellationError:
        call.finish(.failure(CancellationError()))
      case .failure(let error):
        call.finish(.failure(error))
      case .success:
        if !isInstalled() { call.finish(.failure(ThunkError.middlewareMissing)) }
      }
    }
    return call
  }
}
