import Reduce
import Testing

extension DispatchTests {
  // MARK: Async sequences of actions

  @Test(
    "dispatch(contentsOf:) dispatches every action of a typed sequence", .timeLimit(.minutes(1)))
  func contentsOfTypedSequence() async throws {
    let store = try makeStore()
    let (actions, continuation) = AsyncStream.makeStream(of: Increment.self)
    let task = store.dispatch(contentsOf: actions)
    continuation.yield(Increment(by: 1))
    continuation.yield(Increment(by: 2))
    continuation.finish()
    try await task.value
    #expect(store.state.counter == 3)
  }

  @Test(
    "dispatch(contentsOf:) dispatches every action of a sequence of any Action",
    .timeLimit(.minutes(1)))
  func contentsOfExistentialSequence() async throws {
    let store = try makeStore(mutators: [counterMutator, itemsMutator])
    let (actions, continuation) = AsyncStream.makeStream(of: (any Action).self)
    let task = store.dispatch(contentsOf: actions)
    continuation.yield(Increment(by: 1))
    continuation.yield(Append(value: 5))
    continuation.finish()
    try await task.value
    #expect(store.state == TestState(counter: 1, items: [5]))
  }

  @Test(
    "dispatch(contentsOf:) publishes a failing action and goes on with the next",
    .timeLimit(.minutes(1)))
  func contentsOfContinuesAfterFailure() async throws {
    let store = try makeStore(mutators: [counterMutator, throwingItemsMutator])
    var errors = store.errors.makeAsyncIterator()
    let (actions, continuation) = AsyncStream.makeStream(of: Append.self)
    let task = store.dispatch(contentsOf: actions)
    continuation.yield(Append(value: -1))
    continuation.yield(Append(value: 2))
    continuation.finish()
    try await task.value
    #expect(store.state.items == [2])
    #expect((await errors.next()?.action as? Append)?.value == -1)
  }

  @Test(
    "the dispatch(contentsOf:) task ends when the store is deinitialised", .timeLimit(.minutes(1)))
  func contentsOfEndsWithStore() async throws {
    var store: Store<TestState>? = try makeStore()
    let (actions, continuation) = AsyncStream.makeStream(of: Increment.self)
    let task = try #require(store).dispatch(contentsOf: actions)
    store = nil
    continuation.yield(Increment())
    try await task.value
    continuation.finish()
  }

  @Test("cancelling the dispatch(contentsOf:) task stops it", .timeLimit(.minutes(1)))
  func contentsOfCancellation() async throws {
    let store = try makeStore()
    let (counts, countContinuation) = AsyncStream.makeStream(of: Int.self)
    let subscription = store.subscribe(to: \.counter) { countContinuation.yield($0) }
    var seen = counts.makeAsyncIterator()
    #expect(await seen.next() == 0)
    let (actions, continuation) = AsyncStream.makeStream(of: Increment.self)
    let task = store.dispatch(contentsOf: actions)
    continuation.yield(Increment())
    #expect(await seen.next() == 1)
    task.cancel()
    _ = await task.result
    continuation.yield(Increment())
    continuation.finish()
    #expect(store.state.counter == 1)
    subscription.cancel()
  }
}
