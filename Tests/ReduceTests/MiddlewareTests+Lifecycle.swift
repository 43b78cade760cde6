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

extension MiddlewareTests {
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
