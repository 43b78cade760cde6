import Observation
import Reduce
import Synchronization
import Testing

@Suite struct ObservationTests {
  // MARK: Whole-state and key-path observers

  @Test("subscribe calls the observer at once with the current state, then after each change")
  func subscribeWholeState() throws {
    let store = try makeStore()
    store.dispatch(Increment(by: 5))
    let seen = Probe<Int>()
    let subscription = store.subscribe { seen.append($0.counter) }
    #expect(seen.values == [5])
    store.dispatch(Increment())
    store.dispatch(Increment(by: 2))
    #expect(seen.values == [5, 6, 8])
    subscription.cancel()
  }

  @Test("a key-path observer is called at once, then only when its value changed")
  func subscribeKeyPath() throws {
    let store = try makeStore(mutators: [counterMutator, itemsMutator])
    let counters = Probe<Int>()
    let subscription = store.subscribe(to: \.counter) { counters.append($0) }
    #expect(counters.values == [0])
    store.dispatch(Append(value: 1))
    store.dispatch(Increment(by: 0))
    store.dispatch(Increment())
    store.dispatch(Append(value: 2))
    #expect(counters.values == [0, 1])
    subscription.cancel()
  }

  @Test("a later observer of an observed key path starts with the current value")
  func secondKeyPathObserverStartsWithCurrentValue() throws {
    let store = try makeStore()
    let first = Probe<Int>()
    let second = Probe<Int>()
    let one = store.subscribe(to: \.counter) { first.append($0) }
    store.dispatch(Increment())
    let two = store.subscribe(to: \.counter) { second.append($0) }
    store.dispatch(Increment())
    #expect(first.values == [0, 1, 2])
    #expect(second.values == [1, 2])
    one.cancel()
    two.cancel()
  }

  @Test("observers are called in dispatch order")
  func dispatchOrder() throws {
    let store = try makeStore(mutators: [counterMutator, itemsMutator])
    let seen = Probe<TestState>()
    let subscription = store.subscribe { seen.append($0) }
    store.dispatch(Increment())
    store.dispatch(Append(value: 9))
    #expect(
      seen.values == [
        TestState(), TestState(counter: 1), TestState(counter: 1, items: [9]),
      ])
    subscription.cancel()
  }

  @Test("observers of every kind are called in subscription order")
  func subscriptionOrderAcrossKinds() throws {
    let store = try makeStore()
    let order = Probe<String>()
    let subscriptions = [
      store.subscribeToChanges { _ in order.append("changes 1") },
      store.subscribe(to: \.counter) { _ in order.append("counter 1") },
      store.subscribe { _ in order.append("state 1") },
      store.subscribe(to: \.counter) { _ in order.append("counter 2") },
      store.subscribeToChanges { _ in order.append("changes 2") },
      store.subscribe { _ in order.append("state 2") },
    ]
    let initialCalls = order.count
    store.dispatch(Increment())
    #expect(
      order.values.dropFirst(initialCalls) == [
        "changes 1", "counter 1", "state 1", "counter 2", "changes 2", "state 2",
      ])
    for subscription in subscriptions { subscription.cancel() }
  }

  @Test("an observer subscribed from an observer starts with the current state")
  func subscribeFromObserver() throws {
    let store = try makeStore()
    let inner = Probe<Int>()
    let kept = Box<Subscription?>(nil)
    let outer = store.subscribe(to: \.counter) { [weak store] counter in
      guard counter == 1, let store else { return }
      kept.value = store.subscribe(to: \.counter) { inner.append($0) }
    }
    store.dispatch(Increment())
    store.dispatch(Increment())
    #expect(inner.values == [1, 2])
    outer.cancel()
    kept.value?.cancel()
  }

  // MARK: Changes

  @Test("subscribeToChanges gets the action, the old state and the new state of every change")
  func changes() throws {
    let store = try makeStore(mutators: [counterMutator, itemsMutator])
    let changes = Probe<StateChange<TestState>>()
    let subscription = store.subscribeToChanges { changes.append($0) }
    #expect(changes.count == 0)
    store.dispatch(Increment(by: 2))
    store.dispatch(Append(value: 4))
    let recorded = changes.values
    #expect(recorded.count == 2)
    #expect((recorded.first?.action as? Increment)?.by == 2)
    #expect(recorded.first?.oldState == TestState())
    #expect(recorded.first?.newState == TestState(counter: 2))
    #expect((recorded.last?.action as? Append)?.value == 4)
    #expect(recorded.last?.oldState == TestState(counter: 2))
    #expect(recorded.last?.newState == TestState(counter: 2, items: [4]))
    subscription.cancel()
  }

  @Test("a Batch reaches change observers as the Batch, with the states around all of it")
  func changesOfBatch() throws {
    let store = try makeStore(mutators: [counterMutator, itemsMutator])
    let changes = Probe<StateChange<TestState>>()
    let subscription = store.subscribeToChanges { changes.append($0) }
    store.dispatch(Batch([Increment(), Append(value: 1)]))
    let change = try #require(changes.values.first)
    #expect(changes.count == 1)
    #expect((change.action as? Batch)?.actions.count == 2)
    #expect(change.oldState == TestState())
    #expect(change.newState == TestState(counter: 1, items: [1]))
    subscription.cancel()
  }

  @Test("StateChange keeps what it was made with")
  func stateChangeInit() {
    let change = StateChange(
      action: Increment(by: 3), oldState: TestState(), newState: TestState(counter: 3))
    #expect((change.action as? Increment)?.by == 3)
    #expect(change.oldState == TestState())
    #expect(change.newState.counter == 3)
  }

  // MARK: Cancelling

  @Test("cancel stops every kind of observer")
  func cancelStops() throws {
    let store = try makeStore()
    let calls = Probe<String>()
    let subscriptions = [
      store.subscribe { _ in calls.append("state") },
      store.subscribe(to: \.counter) { _ in calls.append("counter") },
      store.subscribeToChanges { _ in calls.append("changes") },
    ]
    for subscription in subscriptions {
      #expect(!subscription.isCancelled)
      subscription.cancel()
      #expect(subscription.isCancelled)
    }
    store.dispatch(Increment())
    #expect(calls.values == ["state", "counter"])
  }

  @Test(
    "observers of one key path: called in order with the new value; one cancelled by an earlier one is not called, and cancelling oneself is safe"
  )
  func oneKeyPathGroup() throws {
    let store = try makeStore()
    let calls = Probe<String>()
    let later = Mutex<Subscription?>(nil)
    let own = Mutex<Subscription?>(nil)
    let first = store.subscribe(to: \.counter) { value in
      calls.append("first \(value)")
      if value == 2 { later.withLock { $0 }?.cancel() }
    }
    let second = store.subscribe(to: \.counter) { value in
      calls.append("second \(value)")
      if value == 1 { own.withLock { $0 }?.cancel() }
    }
    own.withLock { $0 = second }
    let third = store.subscribe(to: \.counter) { value in calls.append("third \(value)") }
    later.withLock { $0 = third }
    store.dispatch(Increment())
    store.dispatch(Increment())
    store.dispatch(Increment())
    #expect(
      calls.values == [
        "first 0", "second 0", "third 0",
        "first 1", "second 1", "third 1",
        "first 2",
        "first 3",
      ])
    withExtendedLifetime(first) {}
  }

  @Test("observers of two key paths that one action changed are called in subscription order")
  func twoKeyPathGroupsInterleaved() throws {
    let store = try makeStore(mutators: [counterMutator, itemsMutator])
    let order = Probe<String>()
    let subscriptions = [
      store.subscribe(to: \.items, initial: false) { _ in order.append("items 1") },
      store.subscribe(to: \.counter, initial: false) { _ in order.append("counter 1") },
      store.subscribe(to: \.items, initial: false) { _ in order.append("items 2") },
      store.subscribe(to: \.counter, initial: false) { _ in order.append("counter 2") },
    ]
    store.dispatch(Batch([Increment(), Append(value: 1)]))
    store.dispatch(Increment())
    #expect(
      order.values == [
        "items 1", "counter 1", "items 2", "counter 2",
        "counter 1", "counter 2",
      ])
    for subscription in subscriptions { subscription.cancel() }
  }

  @Test("a key path's observers, cancelled and joined between changes, are the live ones in order")
  func keyPathGroupAfterChanges() throws {
    let store = try makeStore()
    let calls = Probe<String>()
    func observe(_ name: String) -> Subscription {
      store.subscribe(to: \.counter, initial: false) { calls.append("\(name) \($0)") }
    }
    let first = observe("first")
    let second = observe("second")
    store.dispatch(Increment())
    first.cancel()
    store.dispatch(Increment())
    let third = observe("third")
    store.dispatch(Increment())
    second.cancel()
    let fourth = observe("fourth")
    store.dispatch(Increment())
    #expect(
      calls.values == [
        "first 1", "second 1",
        "second 2",
        "second 3", "third 3",
        "third 4", "fourth 4",
      ])
    third.cancel()
    fourth.cancel()
  }

  @Test("cancelling twice does nothing more")
  func cancelTwice() throws {
    let store = try makeStore()
    let first = Probe<Int>()
    let second = Probe<Int>()
    let one = store.subscribe(to: \.counter) { first.append($0) }
    let two = store.subscribe(to: \.counter) { second.append($0) }
    one.cancel()
    one.cancel()
    store.dispatch(Increment())
    #expect(first.values == [0])
    #expect(second.values == [0, 1])
    two.cancel()
  }

  @Test("a subscription's deinitialisation stops its observer")
  func deinitStops() throws {
    let store = try makeStore()
    let calls = Probe<Int>()
    var subscription: Subscription? = store.subscribe { calls.append($0.counter) }
    #expect(subscription?.isCancelled == false)
    subscription = nil
    store.dispatch(Increment())
    #expect(calls.values == [0])
  }

  @Test("store(in:) keeps a subscription alive as long as the set holds it")
  func storeInSet() throws {
    let store = try makeStore()
    let calls = Probe<Int>()
    var subscriptions = Set<Subscription>()
    store.subscribe(to: \.counter) { calls.append($0) }.store(in: &subscriptions)
    store.dispatch(Increment())
    subscriptions.removeAll()
    store.dispatch(Increment())
    #expect(calls.values == [0, 1])
  }

  @Test("subscriptions are equal only to themselves")
  func subscriptionIdentity() throws {
    let store = try makeStore()
    let one = store.subscribe { _ in }
    let two = store.subscribe { _ in }
    #expect(one == one)
    #expect(one != two)
    #expect(Set([one, two, one]).count == 2)
  }

  @Test("observers hold no strong reference to the store")
  func observersDoNotRetainStore() throws {
    var store: Store<TestState>? = try makeStore()
    weak let weakStore = store
    let subscriptions = [
      store?.subscribe { _ in },
      store?.subscribe(to: \.counter) { _ in },
      store?.subscribeToChanges { _ in },
    ]
    store = nil
    #expect(weakStore == nil)
    #expect(subscriptions.allSatisfy { $0?.isCancelled == true })
    for subscription in subscriptions { subscription?.cancel() }
  }

  // MARK: Observation

  /// Starts `withObservationTracking` on `store.state` and returns how many times it fired.
  static func trackState(of store: Store<TestState>) -> Box<Int> {
    let fired = Box(0)
    withObservationTracking {
      _ = store.state
    } onChange: {
      fired.value += 1
    }
    return fired
  }

  @Test("withObservationTracking on store.state fires when a dispatch changed the state")
  func observationTracking() throws {
    let store = try makeStore()
    let fired = Self.trackState(of: store)
    store.dispatch(Increment())
    #expect(fired.value == 1)
  }

  @Test("withObservationTracking does not fire for an action no mutator handles")
  func observationTrackingIgnoresUnhandled() throws {
    let store = try makeStore()
    let fired = Self.trackState(of: store)
    store.dispatch(Unhandled())
    #expect(fired.value == 0)
    store.dispatch(Increment())
    #expect(fired.value == 1)
  }
}
