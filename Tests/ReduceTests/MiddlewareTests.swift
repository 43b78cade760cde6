import Reduce
import Testing

@Suite struct MiddlewareTests {
  // MARK: The chain

  @Test("middleware run outermost first, in the order of the middleware: array")
  func orderOutermostFirst() throws {
    let calls = Probe<String>()
    let store = try makeStore(
      middleware: [
        passThrough("a", calls: calls), passThrough("b", calls: calls),
        passThrough("c", calls: calls),
      ])
    store.dispatch(Increment())
    #expect(calls.values == ["a", "b", "c"])
    #expect(store.middlewareNames == ["a", "b", "c"])
    #expect(store.state.counter == 1)
  }

  @Test("use appends a middleware innermost")
  func useAppendsInnermost() throws {
    let calls = Probe<String>()
    let store = try makeStore(middleware: [passThrough("a", calls: calls)])
    try store.use(passThrough("b", calls: calls))
    #expect(store.middlewareNames == ["a", "b"])
    store.dispatch(Increment())
    #expect(calls.values == ["a", "b"])
  }

  @Test("calling next with another action transforms the action")
  func transform() throws {
    let seenByInner = Probe<String>()
    let transformer = AnyMiddleware<TestState>(name: "transformer") { action, _, next in
      if let rename = action as? Rename {
        try next(Increment(by: rename.name.count))
      } else {
        try next(action)
      }
    }
    let inner = AnyMiddleware<TestState>(name: "inner") { action, context, next in
      seenByInner.append(String(describing: type(of: context.action)))
      try next(action)
    }
    let store = try makeStore(middleware: [transformer, inner])
    let changes = Probe<StateChange<TestState>>()
    let subscription = store.subscribeToChanges { changes.append($0) }
    #expect(try store.dispatch(Rename(name: "four")).get() == TestState(counter: 4))
    #expect(seenByInner.values == ["Increment"])
    #expect(actionNames(changes) == ["Increment"])
    subscription.cancel()
  }

  @Test("not calling next swallows the action: the state is unchanged and the dispatch succeeds")
  func swallow() throws {
    let innerCalls = Probe<String>()
    let swallower = AnyMiddleware<TestState>(name: "swallower") { action, _, next in
      if action is Increment { return }
      try next(action)
    }
    let store = try makeStore(middleware: [swallower, passThrough("inner", calls: innerCalls)])
    let states = Probe<TestState>()
    let subscription = store.subscribe { states.append($0) }
    #expect(store.dispatch(Increment()).success == TestState())
    #expect(innerCalls.count == 0)
    #expect(states.count == 1)
    subscription.cancel()
  }

  @Test("throwing from handle rejects the action with rejected(by:action:underlying:)")
  func reject() throws {
    let innerCalls = Probe<String>()
    let gate = AnyMiddleware<TestState>(name: "gate") { _, _, _ in
      throw TestError(reason: "closed")
    }
    let store = try makeStore(middleware: [gate, passThrough("inner", calls: innerCalls)])
    let error = try #require(store.dispatch(Increment()).failure)
    guard case .rejected(let name, let action, let underlying) = error else {
      Issue.record("expected rejected, got \(error)")
      return
    }
    #expect(name == "gate")
    #expect(action is Increment)
    #expect(underlying as? TestError == TestError(reason: "closed"))
    #expect(innerCalls.count == 0)
    #expect(store.state == TestState())
  }

  @Test("a DispatchError from next that a middleware rethrows passes through unchanged")
  func rethrownDispatchErrorUnchanged() throws {
    let caught = Probe<String>()
    let outer = AnyMiddleware<TestState>(name: "outer") { action, _, next in
      do {
        try next(action)
      } catch {
        caught.append(String(describing: error))
        throw error
      }
    }
    let gate = AnyMiddleware<TestState>(name: "gate") { action, _, next in
      if action is Rename { throw TestError() }
      try next(action)
    }
    let store = try makeStore(
      mutators: [counterMutator, throwingItemsMutator], middleware: [outer, gate])
    #expect(store.dispatch(Append(value: -1)).failure?.failedKey == "\\TestState.items")
    #expect(store.dispatch(Rename(name: "x")).failure?.rejectingMiddleware == "gate")
    #expect(caught.count == 2)
  }

  @Test("calling next twice reduces the action twice")
  func nextTwice() throws {
    let doubler = AnyMiddleware<TestState>(name: "doubler") { action, _, next in
      try next(action)
      try next(action)
    }
    let store = try makeStore(middleware: [doubler])
    let changes = Probe<StateChange<TestState>>()
    let subscription = store.subscribeToChanges { changes.append($0) }
    #expect(try store.dispatch(Increment(by: 3)).get().counter == 6)
    #expect(changes.values.map(\.newState.counter) == [3, 6])
    subscription.cancel()
  }
}
