import Reduce
import Testing

/// The type names of the actions of the changes a store committed, in order.
func actionNames(_ changes: Probe<StateChange<TestState>>) -> [String] {
  changes.values.map { String(describing: type(of: $0.action)) }
}

/// Observers of every state and every committed change of a store, kept until `cancel()`.
struct Listeners {
  /// Every state the whole-state observer was called with, the current one first.
  let states = Probe<TestState>()
  /// Every value the observer of `items` was called with, the current one first.
  let items = Probe<[Int]>()
  /// Every change the store committed.
  let changes = Probe<StateChange<TestState>>()
  private let subscriptions: [Subscription]

  init(_ store: Store<TestState>) {
    subscriptions = [
      store.subscribe { [states] in states.append($0) },
      store.subscribe(to: \.items) { [items] in items.append($0) },
      store.subscribeToChanges { [changes] in changes.append($0) },
    ]
  }

  /// Ends the subscriptions.
  func cancel() {
    for subscription in subscriptions { subscription.cancel() }
  }
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
    let heard = Listeners(store)
    store.dispatch(Append(value: -1))
    #expect(heard.states.count == 1)
    #expect(heard.items.count == 1)
    #expect(heard.changes.count == 0)
    heard.cancel()
  }

  // MARK: ReplaceState

  @Test("ReplaceState replaces the whole state and notifies observers")
  func replaceState() throws {
    let store = try makeStore()
    let heard = Listeners(store)
    let replacement = TestState(counter: 9, items: [1], doc: TestDoc(title: "t"), name: "n")
    #expect(try store.dispatch(ReplaceState(replacement)).get() == replacement)
    #expect(store.state == replacement)
    #expect(heard.states.values == [TestState(), replacement])
    #expect(heard.changes.last?.action is ReplaceState<TestState>)
    #expect(heard.changes.last?.oldState == TestState())
    heard.cancel()
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
    let heard = Listeners(store)
    #expect(store.dispatch(Unhandled()).success == TestState(counter: 1))
    #expect(heard.states.count == 1)
    #expect(heard.changes.count == 0)
    heard.cancel()
  }

  @Test("an Equatable state that a handler left equal notifies no one")
  func equalStateNotifiesNoOne() throws {
    let store = try makeStore()
    let heard = Listeners(store)
    store.dispatch(Increment(by: 0))
    store.dispatch(ReplaceState(TestState()))
    #expect(heard.states.count == 1)
    #expect(heard.changes.count == 0)
    heard.cancel()
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
