import Reduce
import Testing

extension MiddlewareTests {
  // MARK: Deferred next

  @Test(
    "next called later from a task runs the reducers and notifies observers",
    .timeLimit(.minutes(1)))
  func deferredNext() async throws {
    let failures = Probe<String>()
    let deferrer = AnyMiddleware<TestState>(name: "later") { action, _, next in
      Task {
        do {
          try next(action)
        } catch {
          failures.append(String(describing: error))
        }
      }
    }
    let store = try makeStore(middleware: [deferrer])
    let (counts, continuation) = AsyncStream.makeStream(of: Int.self)
    let subscription = store.subscribe(to: \.counter) { continuation.yield($0) }
    var seen = counts.makeAsyncIterator()
    #expect(await seen.next() == 0)
    #expect(store.dispatch(Increment(by: 2)).success == TestState())
    #expect(await seen.next() == 2)
    #expect(store.state.counter == 2)
    #expect(failures.count == 0)
    subscription.cancel()
  }

  @Test(
    "a deferred next that fails throws the failure and publishes it on errors",
    .timeLimit(.minutes(1)))
  func deferredNextFailure() async throws {
    let kept = Box<Next<TestState>?>(nil)
    let keeper = AnyMiddleware<TestState>(name: "keeper") { _, _, next in kept.value = next }
    let store = try makeStore(
      mutators: [counterMutator, throwingItemsMutator], middleware: [keeper])
    var errors = store.errors.makeAsyncIterator()
    store.dispatch(Append(value: 1))
    let next = try #require(kept.value)
    let thrown = await Task.detached { () -> DispatchError? in
      do throws(DispatchError) {
        try next(Append(value: -1))
        return nil
      } catch {
        return error
      }
    }.value
    #expect(thrown?.failedKey == "\\TestState.items")
    #expect(await errors.next()?.failedKey == "\\TestState.items")
    #expect(store.state.items.isEmpty)
  }

  @Test("a kept next called during another dispatch on the same thread is queued after it")
  func deferredNextQueuedInsideDispatch() throws {
    let kept = Box<Next<TestState>?>(nil)
    let keeper = AnyMiddleware<TestState>(name: "keeper") { action, _, next in
      if action is Increment {
        kept.value = next
      } else {
        try next(action)
      }
    }
    let store = try makeStore(mutators: [counterMutator, nameMutator], middleware: [keeper])
    store.dispatch(Increment())
    let changes = Probe<StateChange<TestState>>()
    let recorder = store.subscribeToChanges { changes.append($0) }
    let caller = store.subscribe(to: \.name) { name in
      guard name == "go", let next = kept.value else { return }
      do {
        try next(Increment(by: 3))
      } catch {
        Issue.record("a queued next does not throw: \(error)")
      }
    }
    let state = try store.dispatch(Rename(name: "go")).get()
    #expect(state == TestState(counter: 3, name: "go"))
    #expect(actionNames(changes) == ["Rename", "Increment"])
    recorder.cancel()
    caller.cancel()
  }

  @Test("a next kept after its store is deinitialised delivers nothing and does not crash")
  func deferredNextAfterDeinit() throws {
    let kept = Box<Next<TestState>?>(nil)
    let reduced = Box(0)
    let innerCalls = Probe<String>()
    let keeper = AnyMiddleware<TestState>(name: "keeper") { _, _, next in kept.value = next }
    let counter = Mutator(\TestState.counter) { (c: inout Int, a: Increment) in
      reduced.value += 1
      c += a.by
    }
    var store: Store<TestState>? = try makeStore(
      mutators: [counter], middleware: [keeper, passThrough("inner", calls: innerCalls)])
    weak let weakStore = store
    store?.dispatch(Increment())
    store = nil
    try #require(weakStore == nil)
    let next = try #require(kept.value)
    try next(Increment())
    #expect(innerCalls.count == 0)
    #expect(reduced.value == 0)
  }
}
