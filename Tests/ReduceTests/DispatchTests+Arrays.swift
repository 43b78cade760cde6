import Reduce
import Testing

extension DispatchTests {
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
}
