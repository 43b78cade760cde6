import Reduce
import ReduceThunk
import Synchronization
import Testing

@Suite(.serialized) struct ThunkConcurrencyTests {
  /// Performs `thunk` on `store` from `callers` tasks at once, waits for `cancelAfter` signals
  /// of `signals`, runs `cancel` with the callers' group, and returns how many of the callers'
  /// performs then threw `CancellationError`.
  static func cancellations(
    performing thunk: Thunk<AppState, Int>, on store: Store<AppState>, callers: Int,
    cancelAfter signalCount: Int, of signals: AsyncStream<Void>,
    cancel: (inout TaskGroup<Bool>) -> Void
  ) async -> Int {
    await withTaskGroup(of: Bool.self) { group in
      for _ in 0..<callers {
        group.addTask {
          do {
            _ = try await store.perform(thunk)
            return false
          } catch {
            return error is CancellationError
          }
        }
      }
      var signalled = 0
      for await _ in signals {
        signalled += 1
        if signalled == signalCount { break }
      }
      cancel(&group)
      var cancelled = 0
      for await wasCancelled in group where wasCancelled { cancelled += 1 }
      return cancelled
    }
  }

  @Test(
    "1,000 concurrent async thunks each dispatching 10 actions end with the exact count",
    .timeLimit(.minutes(1)))
  func thousandThunks() async throws {
    let store = try makeStore()
    let thunk = Thunk<AppState, Void> { context in
      for _ in 0..<10 {
        context.dispatch(CountAction.incremented(by: 1))
        await Task.yield()
      }
    }
    try await withThrowingTaskGroup(of: Void.self) { group in
      for _ in 0..<1_000 {
        group.addTask { try await store.perform(thunk) }
      }
      try await group.waitForAll()
    }
    #expect(store.state.count == 10_000)
  }

  @Test(
    "500 callers cancelled at once, many of them mid-thunk, all end with CancellationError",
    .timeLimit(.minutes(1)))
  func cancelManyCallers() async throws {
    let store = try makeStore()
    let (started, startedInput) = AsyncStream<Void>.makeStream()
    let thunk = Thunk<AppState, Int> { _ in
      startedInput.yield()
      try await suspendUntilCancelled()
      return 1
    }
    let cancelled = await Self.cancellations(
      performing: thunk, on: store, callers: 500, cancelAfter: 100, of: started
    ) { callers in callers.cancelAll() }
    #expect(cancelled == 500)
  }

  @Test(
    "200 racing thunks with one id and cancelInFlight all end once that id is cancelled",
    .timeLimit(.minutes(1)))
  func raceCancelInFlight() async throws {
    let (passed, passedInput) = AsyncStream<Void>.makeStream()
    let countThunks = AnyMiddleware<AppState>(name: "count") { action, _, next in
      if action is Thunk<AppState, Int> { passedInput.yield() }
      try next(action)
    }
    let store = try makeStore(dependencies: (), before: [countThunks])
    let thunk = Thunk<AppState, Int>(id: "search", cancelInFlight: true) { _ in
      try await suspendUntilCancelled()
      return 1
    }
    let cancelled = await Self.cancellations(
      performing: thunk, on: store, callers: 200, cancelAfter: 200, of: passed
    ) { _ in store.dispatch(CancelThunks(id: "search")) }
    #expect(cancelled == 200)
  }
}
