public import Reduce

/// What a thunk did when it ran on its own (``Thunk/runIsolated(state:dependencies:executor:)``):
/// the value it returned, and the actions it dispatched, in order.
public struct ThunkRecording<Value: Sendable>: Sendable {
  /// What the thunk's body returned.
  public let value: Value
  /// The actions it dispatched, in order, thunks included (recorded, not run).
  public let dispatched: [any Action]
}

extension Thunk {
  /// Runs the thunk on its own, for a test: with a state that does not change and stubbed
  /// dependencies, recording what it dispatches (ReSwift-Thunk's `ExpectThunk`).
  ///
  /// The thunk runs in a store of its own that holds `state` and has no reducers: every action
  /// it dispatches is recorded and goes no further, so `context.state` stays `state` and a thunk
  /// it dispatches is recorded rather than run. It returns once the body has.
  ///
  /// ```swift
  /// let recording = try await loadTodos.runIsolated(
  ///   state: AppState(), dependencies: AppDependencies(api: .stub([Todo(title: "Milk")])))
  /// #expect(recording.dispatched.count == 2)
  /// ```
  ///
  /// - Parameters:
  ///   - state: The state the thunk reads.
  ///   - dependencies: The dependencies its context gets: stubs.
  ///   - executor: The executor an async body's task prefers: the `ManualClock` it sleeps on,
  ///     if any (see ``ThunkMiddleware/init(dependencies:executor:)``).
  /// - Returns: The body's value and the actions it dispatched.
  /// - Throws: What the body throws; ``ThunkError/dependenciesMismatch(expected:found:)`` when
  ///   the body expects other dependencies.
  public func runIsolated<Dependencies: Sendable>(
    state: State, dependencies: Dependencies, executor: (any TaskExecutor)? = nil
  ) async throws -> ThunkRecording<Value> {
    let dispatched = Locked<[any Action]>([])
    let started = Locked(false)
    // First in the chain: lets the thunk under test through to the thunk middleware, and
    // records and stops everything after it.
    let recorder = AnyMiddleware<State>(name: "ThunkRecorder") { action, _, next in
      if started.withLock({ started in
        defer { started = true }
        return !started
      }) {
        return try next(action)
      }
      dispatched.withLock { $0.append(action) }
    }
    let store = try Store(
      initialState: state,
      middleware: [recorder, ThunkMiddleware(dependencies: dependencies, executor: executor)])
    let value = try await store.perform(self)
    return ThunkRecording(value: value, dispatched: dispatched.withLock { $0 })
  }

  /// Runs a thunk that needs no dependencies on its own: see
  /// ``runIsolated(state:dependencies:executor:)``.
  ///
  /// - Parameters:
  ///   - state: The state the thunk reads.
  ///   - executor: The executor an async body's task prefers.
  /// - Returns: The body's value and the actions it dispatched.
  /// - Throws: What the body throws.
  public func runIsolated(state: State, executor: (any TaskExecutor)? = nil) async throws
    -> ThunkRecording<Value>
  {
    try await runIsolated(state: state, dependencies: (), executor: executor)
  }
}
