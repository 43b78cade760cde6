import Reduce
import Testing

extension DispatchTests {
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

  @Test("middleware sees the Batch, then each of its actions")
  func middlewareSeesBatch() throws {
    let seen = Probe<String>()
    let spy = AnyMiddleware<TestState>(name: "spy") { action, context, next in
      seen.append("\(type(of: action))")
      try next(action)
    }
    let store = try makeStore(middleware: [spy])
    store.dispatch(Batch([Increment(), Increment()]))
    #expect(seen.values == ["Batch", "Increment", "Increment"])
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
}
