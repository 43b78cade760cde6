import Reduce
import Testing

extension DispatchTests {
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
}
