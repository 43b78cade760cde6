import Reduce
import Testing

/// A pass-through middleware that records its lifecycle and every action it handles.
struct Lifecycle: Middleware {
  let name: String
  let events: Probe<String>
  let stores = Probe<ObjectIdentifier>()

  func willAttach(to store: ObjectIdentifier) throws {
    events.append("attach \(name)")
    stores.append(store)
  }

  func didDetach(from store: ObjectIdentifier) {
    events.append("detach \(name)")
    stores.append(store)
  }

  func handle(_ action: any Action, context: MiddlewareContext<TestState>, next: Next<TestState>)
    throws
  {
    events.append("handle \(name)")
    try next(action)
  }
}

/// A generic middleware, for its default name.
struct Forwarder<S: Sendable>: Middleware {
  func handle(_ action: any Action, context: MiddlewareContext<S>, next: Next<S>) throws {
    try next(action)
  }
}

/// A non-generic middleware that relies on the default name.
struct Passthrough: Middleware {
  func handle(_ action: any Action, context: MiddlewareContext<TestState>, next: Next<TestState>)
    throws
  {
    try next(action)
  }
}

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

  // MARK: Lifecycle

  @Test("removeMiddleware(named:) removes it, returns whether it was there and calls didDetach")
  func removeMiddleware() throws {
    let events = Probe<String>()
    let logger = Lifecycle(name: "logger", events: events)
    let store = try makeStore(middleware: [logger])
    #expect(store.removeMiddleware(named: "logger"))
    #expect(!store.removeMiddleware(named: "logger"))
    #expect(store.middlewareNames.isEmpty)
    store.dispatch(Increment())
    #expect(events.values == ["attach logger", "detach logger"])
    let identifiers = logger.stores.values
    #expect(identifiers.count == 2)
    #expect(identifiers.first == identifiers.last)
  }

  @Test("the store's deinitialisation calls didDetach of every middleware")
  func deinitDetaches() throws {
    let events = Probe<String>()
    var store: Store<TestState>? = try makeStore(
      middleware: [
        Lifecycle(name: "a", events: events), Lifecycle(name: "b", events: events),
      ])
    store?.dispatch(Increment())
    store = nil
    #expect(
      events.values == [
        "attach a", "attach b", "handle a", "handle b", "detach a", "detach b",
      ])
  }

  @Test("middlewareNames lists the chain outermost first, after use and remove")
  func middlewareNames() throws {
    let store = try makeStore(middleware: [passThrough("a"), passThrough("b")])
    try store.use(passThrough("c"))
    store.removeMiddleware(named: "a")
    #expect(store.middlewareNames == ["b", "c"])
  }

  @Test("the default name is the type's name without generic arguments")
  func defaultName() throws {
    #expect(Forwarder<TestState>().name == "Forwarder")
    #expect(Passthrough().name == "Passthrough")
    let store = try makeStore(middleware: [Forwarder<TestState>(), Passthrough()])
    #expect(store.middlewareNames == ["Forwarder", "Passthrough"])
  }

  @Test("a dispatch in progress finishes with the chain it started with")
  func dispatchKeepsItsChain() throws {
    let calls = Probe<String>()
    let store = try makeStore()
    try store.use(
      AnyMiddleware(name: "editor") { [weak store] action, _, next in
        calls.append("editor")
        if let store, store.middlewareNames.contains("inner") {
          store.removeMiddleware(named: "inner")
          try store.use(passThrough("late", calls: calls))
        }
        try next(action)
      })
    try store.use(passThrough("inner", calls: calls))
    store.dispatch(Increment())
    #expect(calls.values == ["editor", "inner"])
    #expect(store.middlewareNames == ["editor", "late"])
    store.dispatch(Increment())
    #expect(calls.values == ["editor", "inner", "editor", "late"])
    #expect(store.state.counter == 2)
  }

  @Test("a deferred next runs the chain its dispatch started with")
  func deferredNextKeepsItsChain() async throws {
    let kept = Box<Next<TestState>?>(nil)
    let calls = Probe<String>()
    let keeper = AnyMiddleware<TestState>(name: "keeper") { _, _, next in kept.value = next }
    let store = try makeStore(middleware: [keeper, passThrough("inner", calls: calls)])
    store.dispatch(Increment())
    store.removeMiddleware(named: "inner")
    let next = try #require(kept.value)
    try await Task.detached { try next(Increment()) }.value
    #expect(calls.values == ["inner"])
    #expect(store.state.counter == 1)
  }
}
