import Reduce
import Testing

extension DispatchTests {
  // MARK: Errors and fallback

  @Test("errors receives every failure", .timeLimit(.minutes(1)))
  func errorsReceivesEveryFailure() async throws {
    let rejecter = AnyMiddleware<TestState>(name: "gate") { action, _, next in
      if action is Rename { throw TestError(reason: "no renames") }
      try next(action)
    }
    let store = try makeStore(
      mutators: [counterMutator, throwingItemsMutator], middleware: [rejecter])
    var iterator = store.errors.makeAsyncIterator()
    store.dispatch(Append(value: -1))
    store.dispatch(Increment())
    store.dispatch(Rename(name: "x"))
    store.dispatch(Append(value: -2))
    let first = await iterator.next()
    let second = await iterator.next()
    let third = await iterator.next()
    #expect(first?.failedKey == "\\TestState.items")
    #expect(second?.rejectingMiddleware == "gate")
    #expect((third?.action as? Append)?.value == -2)
  }

  @Test("errors delivers failures to a task iterating it", .timeLimit(.minutes(1)))
  func errorsIteratedByTask() async throws {
    let store = try makeStore(mutators: [counterMutator, throwingItemsMutator])
    let (ready, readyContinuation) = AsyncStream.makeStream(of: Void.self)
    let errors = store.errors
    let collector = Task {
      var iterator = errors.makeAsyncIterator()
      readyContinuation.yield()
      var keys: [MutatorKey?] = []
      while keys.count < 2, let error = await iterator.next() {
        keys.append(error.failedKey)
      }
      return keys
    }
    for await _ in ready { break }
    store.dispatch(Append(value: -1))
    store.dispatch(Append(value: -2))
    #expect(await collector.value == ["\\TestState.items", "\\TestState.items"])
  }

  @Test("the fallback turns a failure into an action dispatched before the dispatch returns")
  func fallbackRecovers() throws {
    let failures = Probe<MutatorKey?>()
    let store = try makeStore(
      mutators: [counterMutator, throwingItemsMutator, nameMutator],
      fallback: { error in
        failures.append(error.failedKey)
        return Rename(name: "recovered")
      })
    let result = store.dispatch(Append(value: -1))
    #expect(result.failure?.failedKey == "\\TestState.items")
    #expect(store.state.name == "recovered")
    #expect(failures.values == ["\\TestState.items"])
  }

  @Test("a failing fallback action is published but not fallen back again", .timeLimit(.minutes(1)))
  func failingFallbackIsNotFallenBack() async throws {
    let calls = Box(0)
    let store = try makeStore(
      mutators: [counterMutator, throwingItemsMutator],
      fallback: { _ in
        calls.value += 1
        return Append(value: -100)
      })
    var iterator = store.errors.makeAsyncIterator()
    store.dispatch(Append(value: -1))
    store.dispatch(Increment())
    #expect(calls.value == 1)
    let original = await iterator.next()
    let fallbackFailure = await iterator.next()
    #expect((original?.action as? Append)?.value == -1)
    #expect((fallbackFailure?.action as? Append)?.value == -100)
    #expect(store.state == TestState(counter: 1))
  }

  @Test("a fallback that returns nil dispatches nothing")
  func fallbackReturningNil() throws {
    let changes = Probe<StateChange<TestState>>()
    let store = try makeStore(
      mutators: [counterMutator, throwingItemsMutator], fallback: { _ in nil })
    let subscription = store.subscribeToChanges { changes.append($0) }
    #expect(store.dispatch(Append(value: -1)).failure != nil)
    #expect(changes.count == 0)
    subscription.cancel()
  }
}
