import Reduce
import ReduceTesting
import ReduceThunk
import Testing

/// A thunk that sleeps on an injected `ManualClock`, driven by a test with no polling and no
/// real sleeps: the middleware's tasks prefer the clock as their executor, so `advance` first
/// runs the thunk until it waits on the clock.
@Suite struct ThunkClockTests {
  /// Sleeps a second on the clock, then counts.
  static let loadLater = Thunk<AppState, Void> {
    (context: ThunkContext<AppState, ManualClock>) async throws in
    try await context.dependencies.sleep(for: .seconds(1))
    context.dispatch(CountAction.incremented(by: 1))
  }

  @Test("dispatch a sleeping thunk, advance the clock: the action is there, 1,000 times in a row")
  func deterministic() async throws {
    for round in 1...1_000 {
      let clock = ManualClock()
      let store = try Store(
        initialState: AppState(), mutators: makeMutators(),
        middleware: [ThunkMiddleware(dependencies: clock, executor: clock)])
      store.dispatch(Self.loadLater)
      await clock.advance(by: .milliseconds(999))
      #expect(store.state.count == 0, "round \(round): woke early")
      await clock.advance(by: .milliseconds(1))
      #expect(store.state.count == 1, "round \(round)")
      if store.state.count != 1 { break }
    }
  }

  @Test("perform waits for the thunk the clock woke")
  func perform() async throws {
    let clock = ManualClock()
    let store = try Store(
      initialState: AppState(), mutators: makeMutators(),
      middleware: [ThunkMiddleware(dependencies: clock, executor: clock)])
    // On the clock too, so that `advance` knows when the task is waiting (an `async let` on the
    // default executor might not have dispatched the thunk yet when the clock moves).
    let performing = Task(executorPreference: clock) {
      try await store.perform(Self.loadLater)
    }
    await clock.advance(by: .seconds(1))
    try await performing.value
    #expect(store.state.count == 1)
  }
}

/// `Thunk.runIsolated`: a thunk run with a stubbed state and dependencies, its dispatches
/// recorded.
@Suite struct ThunkIsolatedTests {
  struct Stub: Sendable {
    let amount: Int
  }

  static let nested = Thunk<AppState, Void> { _ in }

  static let addFromStub = Thunk<AppState, Int> {
    (context: ThunkContext<AppState, Stub>) async throws -> Int in
    let total = context.state.count + context.dependencies.amount
    context.dispatch(CountAction.incremented(by: context.dependencies.amount))
    context.dispatch(nested)
    context.dispatch(NoteAction.noted("done"))
    return total
  }

  @Test("the thunk reads the stubbed state and dependencies; what it dispatched is recorded")
  func recorded() async throws {
    let recording = try await Self.addFromStub.runIsolated(
      state: AppState(count: 40), dependencies: Stub(amount: 2))
    #expect(recording.value == 42)
    #expect(recording.dispatched.count == 3)
    #expect(recording.dispatched[0] as? CountAction == .incremented(by: 2))
    #expect(recording.dispatched[1] is Thunk<AppState, Void>)
    #expect(recording.dispatched[2] as? NoteAction == .noted("done"))
  }

  @Test("a body that expects other dependencies fails with a typed error")
  func wrongDependencies() async throws {
    await #expect(throws: ThunkError.self) {
      _ = try await Self.addFromStub.runIsolated(state: AppState(), dependencies: "not a stub")
    }
  }
}
