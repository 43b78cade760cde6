import Reduce
import ReduceThunk
import Synchronization
import Testing

@Suite(.serialized) struct ThunkConcurrencyTests {
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
    let cancelled = await withTaskGroup(of: Bool.self) { group in
      for _ in 0..<500 {
        group.addTask {
          do {
            _ = try await store.perform(thunk)
            return false
          } catch {
            return error is CancellationError
          }
        }
      }
      var starts = 0
      for await _ in started {
        starts += 1
        if starts == 100 { break }
      }
      group.cancelAll()
      var count = 0
      for await wasCancelled in group where wasCancelled { count += 1 }
      return count
    }
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
    try await withThrowingTaskGroup(of: Bool.self) { group in
      for _ in 0..<200 {
        group.addTask {
          do {
            _ = try await store.perform(thunk)
            return false
          } catch {
            return error is CancellationError
          }
        }
      }
      var dispatched = 0
      for await _ in passed {
        dispatched += 1
        if dispatched == 200 { break }
      }
      store.dispatch(CancelThunks(id: "search"))
      var cancelled = 0
      for try await wasCancelled in group where wasCancelled { cancelled += 1 }
      #expect(cancelled == 200)
    }
  }
}
