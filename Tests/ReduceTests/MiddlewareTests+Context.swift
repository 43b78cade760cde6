import Reduce
import Testing

extension MiddlewareTests {
  // MARK: Context

  @Test("context.state is the state before next, and after it once next returned")
  func contextStateAroundNext() throws {
    let seen = Probe<Int>()
    let spy = AnyMiddleware<TestState>(name: "spy") { action, context, next in
      seen.append(context.state.counter)
      try next(action)
      seen.append(context.state.counter)
    }
    let store = try makeStore(middleware: [spy])
    store.dispatch(Increment(by: 5))
    #expect(seen.values == [0, 5])
  }

  @Test("context names its middleware and the action being handled")
  func contextNameAndAction() throws {
    let seen = Probe<String>()
    let spy = AnyMiddleware<TestState>(name: "spy") { action, context, next in
      seen.append("\(context.middlewareName) \(type(of: context.action))")
      try next(action)
    }
    let store = try makeStore(middleware: [spy])
    store.dispatch(Rename(name: "x"))
    #expect(seen.values == ["spy Rename"])
  }

  @Test("context.storeID is the identity given to willAttach")
  func contextStoreID() throws {
    let seen = Probe<ObjectIdentifier>()
    let spy = AnyMiddleware<TestState>(name: "spy") { action, context, next in
      seen.append(context.storeID)
      try next(action)
    }
    let lifecycle = Lifecycle(name: "lifecycle", events: Probe())
    let store = try makeStore(middleware: [lifecycle, spy])
    let other = try makeStore(middleware: [spy])
    store.dispatch(Increment())
    other.dispatch(Increment())
    let ids = seen.values
    #expect(ids.count == 2)
    #expect(ids.first == lifecycle.stores.values.first)
    #expect(ids.first != ids.last)
  }

  @Test("context.dispatch during handle is queued and runs after the current action")
  func contextDispatchQueued() throws {
    let queuedResults = Probe<TestState>()
    let followUp = AnyMiddleware<TestState>(name: "follow-up") { action, context, next in
      if action is Increment {
        queuedResults.append(context.dispatch(Append(value: 1)).success ?? TestState(name: "x"))
        queuedResults.append(context.dispatch([Append(value: 2)]).success ?? TestState(name: "x"))
      }
      try next(action)
    }
    let store = try makeStore(mutators: [counterMutator, itemsMutator], middleware: [followUp])
    let changes = Probe<StateChange<TestState>>()
    let subscription = store.subscribeToChanges { changes.append($0) }
    let state = try store.dispatch(Increment()).get()
    #expect(queuedResults.values == [TestState(), TestState()])
    #expect(actionNames(changes) == ["Increment", "Append", "Append"])
    #expect(state == TestState(counter: 1, items: [1, 2]))
    subscription.cancel()
  }

  @Test("context.dispatch called later from a task dispatches at once and returns the new state")
  func contextDispatchLater() async throws {
    let kept = Box<MiddlewareContext<TestState>?>(nil)
    let keeper = AnyMiddleware<TestState>(name: "keeper") { action, context, next in
      kept.value = context
      try next(action)
    }
    let store = try makeStore(middleware: [keeper])
    store.dispatch(Unhandled())
    let context = try #require(kept.value)
    let result = await Task.detached { context.dispatch(Increment(by: 2)) }.value
    #expect(result.success == TestState(counter: 2))
  }

  @Test(
    "context.report publishes middlewareFailed on errors and passes it to the fallback",
    .timeLimit(.minutes(1)))
  func contextReport() async throws {
    let kept = Box<MiddlewareContext<TestState>?>(nil)
    let thunk = AnyMiddleware<TestState>(name: "thunk") { action, context, next in
      kept.value = context
      try next(action)
    }
    let fallbackSaw = Probe<String?>()
    let store = try makeStore(
      middleware: [thunk],
      fallback: { error in
        fallbackSaw.append(error.reportingMiddleware)
        return Increment(by: 100)
      })
    var errors = store.errors.makeAsyncIterator()
    store.dispatch(Rename(name: "work"))
    let context = try #require(kept.value)
    await Task.detached { context.report(TestError(reason: "async work failed")) }.value
    let error = try #require(await errors.next())
    guard case .middlewareFailed(let name, let action, let underlying) = error else {
      Issue.record("expected middlewareFailed, got \(error)")
      return
    }
    #expect(name == "thunk")
    #expect((action as? Rename)?.name == "work")
    #expect(underlying as? TestError == TestError(reason: "async work failed"))
    #expect(fallbackSaw.values == ["thunk"])
    #expect(store.state.counter == 100)
  }

  @Test("context.report during handle queues the fallback action before the dispatch returns")
  func contextReportDuringHandle() throws {
    let thunk = AnyMiddleware<TestState>(name: "thunk") { action, context, next in
      try next(action)
      if action is Rename { context.report(TestError()) }
    }
    let store = try makeStore(middleware: [thunk], fallback: { _ in Increment(by: 100) })
    #expect(store.dispatch(Rename(name: "x")).success?.counter == 100)
  }

  @Test("context.report(_:for:) reports the error for the given action", .timeLimit(.minutes(1)))
  func contextReportForAction() async throws {
    let thunk = AnyMiddleware<TestState>(name: "thunk") { action, context, next in
      try next(action)
      context.report(TestError(), for: Unhandled())
    }
    let store = try makeStore(middleware: [thunk])
    var errors = store.errors.makeAsyncIterator()
    store.dispatch(Increment())
    let error = await errors.next()
    #expect(error?.reportingMiddleware == "thunk")
    #expect(error?.action is Unhandled)
  }
}
