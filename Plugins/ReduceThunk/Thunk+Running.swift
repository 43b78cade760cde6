import Reduce

extension Thunk: ThunkPluginAction, RunnableThunk {
  func handler<StoreState: Sendable>(in store: StoreState.Type) -> ThunkHandler<StoreState> {
    if let handler = ThunkHandler<State>.running(Self.self) as? ThunkHandler<StoreState> {
      return handler
    }
    let mismatch = ThunkError.stateMismatch(
      expected: String(describing: State.self), found: String(describing: StoreState.self))
    return ThunkHandler { _, _, _ in throw mismatch }
  }

  /// Runs the thunk: a synchronous body now, during the dispatch of the thunk; an async one in
  /// a task of its own.
  func run(_ context: MiddlewareContext<State>, _ environment: Environment) throws {
    // The common case, run directly for cost: a synchronous body that nobody awaits and that
    // cancels nothing first. Its error rejects the dispatch.
    if case .sync(let body) = definition.work, definition.ticket == nil, !definition.cancelInFlight
    {
      _ = try body(context, environment)
      return
    }
    switch definition.work {
    case .sync(let body): try runSync(body, context, environment)
    case .async(let makeBody): try startAsync(makeBody, context, environment)
    }
  }

  /// The awaiting `perform`, when there is one.
  private var call: ThunkCall<Value>? { definition.ticket?.call }

  /// Runs a synchronous body now, during the dispatch of the thunk.
  ///
  /// Its error goes to the awaiting `perform`; without one, it rejects the dispatch.
  private func runSync(
    _ body: @Sendable (MiddlewareContext<State>, Environment) throws -> Value,
    _ context: MiddlewareContext<State>, _ environment: Environment
  ) throws {
    if cancelInFlight {
      for run in environment.runtime.take(id: cancellationID, in: context.storeID) {
        run.cancel()
      }
    }
    if let call, !call.start(nil) { return }
    do {
      let value = try body(context, environment)
      call?.finish(.success(value))
    } catch {
      guard let call else { throw error }
      call.finish(.failure(error))
    }
  }

  /// Starts an async body in a task of its own, registered for cancellation.
  ///
  /// A dependency mismatch is found before the task starts: it goes to the awaiting `perform`,
  /// or rejects the dispatch.
  private func startAsync(
    _ makeBody:
      @Sendable (MiddlewareContext<State>, Environment) throws
      -> @Sendable () async throws -> Value,
    _ context: MiddlewareContext<State>, _ environment: Environment
  ) throws {
    let call = self.call
    var onCancel: (@Sendable () -> Void)?
    if let call {
      onCancel = { call.finish(.failure(CancellationError())) }
    }
    let run = ThunkRun(onCancel: onCancel)
    let operation: @Sendable () async throws -> Value
    do {
      operation = try makeBody(context, environment.running(run))
    } catch {
      guard let call else { throw error }
      call.finish(.failure(error))
      return
    }
    if let call, !call.start(run) { return }
    guard
      let (key, replaced) = environment.runtime.insert(
        run, in: context.storeID, id: cancellationID, cancelInFlight: cancelInFlight)
    else {
      // The middleware left its store while this dispatch was finishing: nothing runs any more.
      run.cancel()
      return
    }
    for old in replaced { old.cancel() }
    let runtime = environment.runtime
    let task = Task(executorPreference: runtime.executor) {
      let result: Result<Value, any Error>
      do {
        result = .success(try await operation())
      } catch {
        result = .failure(error)
      }
      runtime.remove(key)
      let wasCancelled = run.isCancelled
      run.finish()
      // A cancelled thunk's outcome goes nowhere: its `perform` already threw CancellationError.
      guard !wasCancelled else { return }
      if let call {
        call.finish(result)
      } else if case .failure(let error) = result, !(error is CancellationError) {
        context.report(error)
      }
    }
    run.attach(task)
  }
}
