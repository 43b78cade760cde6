import Reduce
import Testing

/// The type names of the actions of the changes a store committed, in order.
func actionNames(_ changes: Probe<StateChange<TestState>>) -> [String] {
  changes.values.map { String(describing: type(of: $0.action)) }
}

@Suite struct DispatchTests {
  // MARK: Results

  @Test("dispatch returns .success with the new state")
  func dispatchReturnsNewState() throws {
    let store = try makeStore()
    let state = try store.dispatch(Increment(by: 2)).get()
    #expect(state.counter == 2)
    #expect(store.state == state)
  }

  @Test("a throwing reducer fails the dispatch with reducerFailed naming the failing mutator")
  func reducerFailure() throws {
    let store = try makeStore(mutators: [counterMutator, throwingItemsMutator])
    let error = try #require(store.dispatch(Append(value: -1)).failure)
    guard case .reducerFailed(let key, let action, let underlying) = error else {
      Issue.record("expected reducerFailed, got \(error)")
      return
    }
    #expect(key == "\\TestState.items")
    #expect((action as? Append)?.value == -1)
    #expect(underlying as? TestError == TestError())
  }

  @Test("a throwing reducer rolls back the whole action, including earlier mutators' changes")
  func reducerFailureRollsBack() throws {
    let counter = Mutator(\TestState.counter) { (c: inout Int, a: Append) in c += a.value }
    let rename = Mutator(\TestState.name) { (n: inout String, _: Append) in n = "changed" }
    let store = try makeStore(mutators: [counter, rename, throwingItemsMutator])
    store.dispatch(Append(value: 5))
    let before = store.state
    let result = store.dispatch(Append(value: -1))
    #expect(result.failure?.failedKey == "\\TestState.items")
    #expect(store.state == before)
    #expect(before == TestState(counter: 5, items: [5], name: "changed"))
  }

  @Test("a failed dispatch notifies no observer")
  func reducerFailureNotifiesNoOne() throws {
    let store = try makeStore(mutators: [counterMutator, throwingItemsMutator])
    let states = Probe<TestState>()
    let items = Probe<[Int]>()
    let changes = Probe<StateChange<TestState>>()
    let subscriptions = [
      store.subscribe { states.append($0) },
      store.subscribe(to: \.items) { items.append($0) },
      store.subscribeToChanges { changes.append($0) },
    ]
    store.dispatch(Append(value: -1))
    #expect(states.count == 1)
    #expect(items.count == 1)
    #expect(changes.count == 0)
    for subscription in subscriptions { subscription.cancel() }
  }

  // MARK: Batch

  @Test("a Batch applies all its actions as one step with one notification")
  func batchOneNotification() throws {
    let store = try makeStore(mutators: [counterMutator, itemsMutator])
    let states = Probe<TestState>()
    let subscription = store.subscribe { states.append($0) }
    let state = try store.dispatch(Batch([Increment(by: 2), Append(value: 1), Increment()])).get()
    #expect(state.counter == 3)
    #expect(state.items == [1])
    #expect(states.values.map(\.counter) == [0, 3])
    subscription.cancel()
  }

  @Test("a Batch with a failing action applies none of its actions and notifies no one")
  func batchAllOrNothing() throws {
    let store = try makeStore(mutators: [counterMutator, throwingItemsMutator])
    let states = Probe<TestState>()
    let subscription = store.subscribe { states.append($0) }
    let result = store.dispatch(Batch([Increment(by: 2), Append(value: 1), Append(value: -1)]))
    #expect(result.failure?.failedKey == "\\TestState.items")
    #expect((result.failure?.action as? Append)?.value == -1, "the batch's action that failed")
    #expect(store.state == TestState())
    #expect(states.count == 1)
    subscription.cancel()
  }

  @Test("middleware sees the Batch, then each of its actions, marked as part of it")
  func middlewareSeesBatch() throws {
    let seen = Probe<String>()
    let spy = AnyMiddleware<TestState>(name: "spy") { action, context, next in
      seen.append("\(type(of: action)) in batch: \(context.batch != nil)")
      try next(action)
    }
    let store = try makeStore(middleware: [spy])
    store.dispatch(Batch([Increment(), Increment()]))
    #expect(
      seen.values == [
        "Batch in batch: false", "Increment in batch: true", "Increment in batch: true",
      ])
    #expect(store.state.counter == 2)
  }

  @Test("a nested Batch is applied in order as part of the outer one")
  func nestedBatch() throws {
    let store = try makeStore(mutators: [counterMutator, itemsMutator])
    let changes = Probe<StateChange<TestState>>()
    let subscription = store.subscribeToChanges { changes.append($0) }
    let batch = Batch([Append(value: 1), Batch([Append(value: 2), Increment()]), Append(value: 3)])
    let state = try store.dispatch(batch).get()
    #expect(state.items == [1, 2, 3])
    #expect(state.counter == 1)
    #expect(actionNames(changes) == ["Batch"])
    subscription.cancel()
  }

  @Test("a failure inside a nested Batch rolls back the outer Batch")
  func nestedBatchFailure() throws {
    let store = try makeStore(mutators: [counterMutator, throwingItemsMutator])
    let batch = Batch([Increment(), Batch([Append(value: 2), Append(value: -2)])])
    #expect(store.dispatch(batch).failure?.failedKey == "\\TestState.items")
    #expect(store.state == TestState())
  }

  @Test("a Batch whose actions no mutator handles notifies no one")
  func batchOfUnhandledActions() throws {
    let store = try makeStore()
    let changes = Probe<StateChange<TestState>>()
    let subscription = store.subscribeToChanges { changes.append($0) }
    #expect(store.dispatch(Batch([Unhandled(), Unhandled()])).success == TestState())
    #expect(changes.count == 0)
    subscription.cancel()
  }

  @Test("a Batch may replace the state and go on from the replacement")
  func batchWithReplaceState() throws {
    let store = try makeStore()
    let state = try store.dispatch(Batch([ReplaceState(TestState(counter: 10)), Increment()])).get()
    #expect(state == TestState(counter: 11))
  }

  // MARK: ReplaceState

  @Test("ReplaceState replaces the whole state and notifies observers")
  func replaceState() throws {
    let store = try makeStore()
    let states = Probe<TestState>()
    let changes = Probe<StateChange<TestState>>()
    let subscriptions = [
      store.subscribe { states.append($0) },
      store.subscribeToChanges { changes.append($0) },
    ]
    let replacement = TestState(counter: 9, items: [1], doc: TestDoc(title: "t"), name: "n")
    #expect(try store.dispatch(ReplaceState(replacement)).get() == replacement)
    #expect(store.state == replacement)
    #expect(states.values == [TestState(), replacement])
    #expect(changes.last?.action is ReplaceState<TestState>)
    #expect(changes.last?.oldState == TestState())
    for subscription in subscriptions { subscription.cancel() }
  }

  @Test("ReplaceState passes through the middleware")
  func replaceStateThroughMiddleware() throws {
    let seen = Probe<String>()
    let spy = AnyMiddleware<TestState>(name: "spy") { action, _, next in
      seen.append(String(describing: type(of: action)))
      try next(action)
    }
    let store = try makeStore(middleware: [spy])
    store.dispatch(ReplaceState(TestState(counter: 1)))
    #expect(seen.values == ["ReplaceState<TestState>"])
  }

  // MARK: Arrays of actions

  @Test("dispatch([a, b, c]) reduces and notifies each action on its own")
  func arrayDispatchEachOnItsOwn() throws {
    let store = try makeStore(mutators: [counterMutator, itemsMutator])
    let states = Probe<TestState>()
    let subscription = store.subscribe { states.append($0) }
    let state = try store.dispatch([Increment(), Append(value: 1), Increment()]).get()
    #expect(state == TestState(counter: 2, items: [1]))
    #expect(
      states.values == [
        TestState(), TestState(counter: 1), TestState(counter: 1, items: [1]),
        TestState(counter: 2, items: [1]),
      ])
    subscription.cancel()
  }

  @Test("dispatch([a, b, c]) stops at the first failure and returns it")
  func arrayDispatchStopsAtFailure() throws {
    let store = try makeStore(mutators: [counterMutator, throwingItemsMutator])
    let result = store.dispatch([Increment(), Append(value: -1), Increment(by: 10)])
    #expect(result.failure?.failedKey == "\\TestState.items")
    #expect(store.state == TestState(counter: 1))
  }

  @Test("dispatch([]) succeeds with the current state and notifies no one")
  func emptyArrayDispatch() throws {
    let store = try makeStore()
    let changes = Probe<StateChange<TestState>>()
    let subscription = store.subscribeToChanges { changes.append($0) }
    #expect(store.dispatch([]).success == TestState())
    #expect(changes.count == 0)
    subscription.cancel()
  }

  @Test("the follow-ups of one action of an array run before the next action of the array")
  func arrayFollowUpsRunInBetween() throws {
    let store = try makeStore(mutators: [counterMutator, itemsMutator])
    let changes = Probe<StateChange<TestState>>()
    let follower = store.subscribe(to: \.counter) { [weak store] counter in
      if counter == 1 { store?.dispatch(Append(value: 1)) }
    }
    let recorder = store.subscribeToChanges { changes.append($0) }
    store.dispatch([Increment(), Increment()])
    #expect(actionNames(changes) == ["Increment", "Append", "Increment"])
    follower.cancel()
    recorder.cancel()
  }

  @Test("a queued dispatch([a, b, c]) also stops at the first failure")
  func queuedArrayStopsAtFailure() throws {
    let store = try makeStore(mutators: [counterMutator, throwingItemsMutator, nameMutator])
    let follower = store.subscribe(to: \.name) { [weak store] name in
      if name == "go" { store?.dispatch([Append(value: -1), Increment(by: 10)]) }
    }
    store.dispatch(Rename(name: "go"))
    // The queued array stops at its first failure: `Increment(by: 10)` never runs.
    #expect(store.state.counter == 0)
    #expect(store.state.items.isEmpty)
    follower.cancel()
  }

  // MARK: Who is notified

  @Test("an action no mutator handles leaves the state as it was and notifies no one")
  func unhandledActionNotifiesNoOne() throws {
    let store = try makeStore()
    store.dispatch(Increment())
    let states = Probe<TestState>()
    let changes = Probe<StateChange<TestState>>()
    let subscriptions = [
      store.subscribe { states.append($0) },
      store.subscribeToChanges { changes.append($0) },
    ]
    #expect(store.dispatch(Unhandled()).success == TestState(counter: 1))
    #expect(states.count == 1)
    #expect(changes.count == 0)
    for subscription in subscriptions { subscription.cancel() }
  }

  @Test("an Equatable state that a handler left equal notifies no one")
  func equalStateNotifiesNoOne() throws {
    let store = try makeStore()
    let states = Probe<TestState>()
    let changes = Probe<StateChange<TestState>>()
    let subscriptions = [
      store.subscribe { states.append($0) },
      store.subscribeToChanges { changes.append($0) },
    ]
    store.dispatch(Increment(by: 0))
    store.dispatch(ReplaceState(TestState()))
    #expect(states.count == 1)
    #expect(changes.count == 0)
    for subscription in subscriptions { subscription.cancel() }
  }

  @Test("a non-Equatable state notifies for every action that ran a handler, and no other")
  func nonEquatableStateNotifiesPerHandledAction() throws {
    let counter = Mutator(\PlainState.counter) { (c: inout Int, a: Increment) in c += a.by }
    let store = try Store(initialState: PlainState(), mutators: [counter])
    let states = Probe<Int>()
    let changes = Probe<String>()
    let subscriptions = [
      store.subscribe { states.append($0.counter) },
      store.subscribeToChanges { changes.append(String(describing: type(of: $0.action))) },
    ]
    store.dispatch(Increment(by: 0))
    store.dispatch(Unhandled())
    store.dispatch(Increment(by: 1))
    store.dispatch(ReplaceState(PlainState(counter: 1)))
    #expect(states.values == [0, 0, 1, 1])
    #expect(changes.values == ["Increment", "Increment", "ReplaceState<PlainState>"])
    for subscription in subscriptions { subscription.cancel() }
  }

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

  // MARK: Re-entrant dispatch

  @Test("a dispatch from an observer is queued and returns the state at queue time")
  func reentrantFromObserver() throws {
    let store = try makeStore(mutators: [counterMutator, itemsMutator])
    let queuedResults = Probe<TestState>()
    let itemsSeenByObserver = Probe<[Int]>()
    let subscription = store.subscribe(to: \.counter) { [weak store] counter in
      guard counter == 1, let store else { return }
      let result = store.dispatch(Append(value: 10))
      queuedResults.append(result.success ?? TestState(name: "failed"))
      itemsSeenByObserver.append(store.state.items)
    }
    let state = try store.dispatch(Increment()).get()
    #expect(queuedResults.values == [TestState(counter: 1)])
    #expect(itemsSeenByObserver.values == [[]])
    #expect(state == TestState(counter: 1, items: [10]))
    subscription.cancel()
  }

  @Test("a queued dispatch runs after the current action and before the outer dispatch returns")
  func queuedRunsAfterCurrentAction() throws {
    let store = try makeStore(mutators: [counterMutator, itemsMutator])
    let changes = Probe<StateChange<TestState>>()
    let order = Probe<String>()
    let follower = store.subscribe(to: \.counter) { [weak store] counter in
      guard counter == 1 else { return }
      store?.dispatch(Append(value: 1))
      order.append("observer returned")
    }
    let recorder = store.subscribeToChanges { change in
      changes.append(change)
      order.append("committed \(type(of: change.action))")
    }
    store.dispatch(Increment())
    order.append("dispatch returned")
    #expect(actionNames(changes) == ["Increment", "Append"])
    #expect(
      order.values == [
        "observer returned", "committed Increment", "committed Append", "dispatch returned",
      ])
    follower.cancel()
    recorder.cancel()
  }

  @Test("a dispatch from a middleware is queued and returns the state at queue time")
  func reentrantFromMiddleware() throws {
    let store = try makeStore(mutators: [counterMutator, itemsMutator])
    let queuedResults = Probe<TestState>()
    let changes = Probe<StateChange<TestState>>()
    try store.use(
      AnyMiddleware(name: "follow-up") { [weak store] action, _, next in
        if action is Increment, let store {
          queuedResults.append(store.dispatch(Append(value: 7)).success ?? TestState(name: "x"))
        }
        try next(action)
      })
    let subscription = store.subscribeToChanges { changes.append($0) }
    let state = try store.dispatch(Increment()).get()
    #expect(queuedResults.values == [TestState()])
    #expect(actionNames(changes) == ["Increment", "Append"])
    #expect(state == TestState(counter: 1, items: [7]))
    subscription.cancel()
  }

  @Test("the outer dispatch's result includes the actions it queued")
  func outerResultIncludesFollowUps() throws {
    let store = try makeStore(mutators: [counterMutator, itemsMutator, nameMutator])
    let subscription = store.subscribe(to: \.counter) { [weak store] counter in
      guard counter == 1 else { return }
      store?.dispatch([Append(value: 1), Rename(name: "follow-up")])
    }
    let state = try store.dispatch(Increment()).get()
    #expect(state == TestState(counter: 1, items: [1], name: "follow-up"))
    subscription.cancel()
  }

  @Test(
    "a queued action's failure goes to errors and the fallback, the outer dispatch succeeds",
    .timeLimit(.minutes(1)))
  func queuedFailure() async throws {
    let fallbacks = Box(0)
    let store = try makeStore(
      mutators: [counterMutator, throwingItemsMutator],
      fallback: { _ in
        fallbacks.value += 1
        return nil
      })
    var iterator = store.errors.makeAsyncIterator()
    let subscription = store.subscribe(to: \.counter) { [weak store] counter in
      if counter == 1 { store?.dispatch(Append(value: -1)) }
    }
    #expect(store.dispatch(Increment()).success == TestState(counter: 1))
    #expect(fallbacks.value == 1)
    #expect(await iterator.next()?.failedKey == "\\TestState.items")
    subscription.cancel()
  }

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
