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
}
