import Reduce
import ReduceThunk
import Testing

@Suite struct ThunkTests {
  @Test("a synchronous body reads the state, and its dispatches run before dispatch returns")
  func synchronousBody() throws {
    let store = try makeStore()
    store.dispatch(CountAction.incremented(by: 1))
    let thunk = Thunk<AppState, Void> { context in
      context.dispatch(CountAction.incremented(by: context.state.count * 10))
    }
    let state = try store.dispatch(thunk).get()
    #expect(state.count == 11)
  }

  @Test(
    "thunks of several types and plain actions, interleaved and repeated, each meet their own handling"
  )
  func handlingByType() async throws {
    let log = ActionLog()
    let store = try makeStore(dependencies: (), after: [log.middleware(named: "Log")])
    let addOne = Thunk<AppState, Void> { context in
      context.dispatch(CountAction.incremented(by: 1))
    }
    let addTen = Thunk<AppState, Int> { context in
      context.dispatch(CountAction.incremented(by: 10))
      return 10
    }
    for _ in 0..<3 {
      store.dispatch(addOne)
      store.dispatch(CountAction.incremented(by: 100))
      #expect(try await store.perform(addTen) == 10)
      store.dispatch(NoteAction.noted("plain"))
    }
    #expect(store.state.count == 3 * 111)
    // Only the plain actions and what the thunks dispatched go past the thunk middleware.
    #expect(log.all.filter { $0.hasPrefix("Thunk") }.isEmpty)
    #expect(log.all.count == 3 * 4)
  }

  @Test("a synchronous body's dispatches are queued, so its state does not include them yet")
  func synchronousDispatchIsQueued() async throws {
    let store = try makeStore()
    let thunk = Thunk<AppState, [Int]> { context in
      let before = context.state.count
      context.dispatch(CountAction.incremented(by: 5))
      return [before, context.state.count]
    }
    #expect(try await store.perform(thunk) == [0, 0])
    #expect(store.state.count == 5)
  }

  @Test("an async body dispatches as it goes and reads the latest state", .timeLimit(.minutes(1)))
  func asyncBody() async throws {
    let store = try makeStore()
    let thunk = Thunk<AppState, [Int]> { context in
      await Task.yield()
      context.dispatch(CountAction.incremented(by: 1))
      let first = context.state.count
      await Task.yield()
      context.dispatch(CountAction.incremented(by: 2))
      return [first, context.state.count]
    }
    #expect(thunk.isAsync)
    #expect(try await store.perform(thunk) == [1, 3])
  }

  @Test("perform returns the body's value", arguments: [false, true])
  func performReturnsValue(isAsync: Bool) async throws {
    let store = try makeStore()
    let thunk =
      isAsync
      ? Thunk<AppState, String> { _ in
        await Task.yield()
        return "async"
      }
      : Thunk<AppState, String> { _ in "sync" }
    #expect(thunk.isAsync == isAsync)
    #expect(try await store.perform(thunk) == (isAsync ? "async" : "sync"))
  }

  @Test(
    "perform rethrows the body's error and does not publish it", .timeLimit(.minutes(1)),
    arguments: [false, true])
  func performRethrows(isAsync: Bool) async throws {
    let store = try makeStore()
    var errors = store.errors.makeAsyncIterator()
    let thunk =
      isAsync
      ? Thunk<AppState, Int> { _ in
        await Task.yield()
        throw Failure(code: 1)
      }
      : Thunk<AppState, Int> { _ in throw Failure(code: 1) }
    await #expect(throws: Failure(code: 1)) { try await store.perform(thunk) }
    // A later fire-and-forget failure is the first error published.
    store.dispatch(Thunk<AppState, Void> { _ in throw Failure(code: 2) })
    let published = try #require(await errors.next())
    #expect(published.underlying as? Failure == Failure(code: 2))
  }

  @Test("the store's dependencies reach the body", arguments: [1, 100])
  func dependencies(scale: Int) async throws {
    let api = CounterAPI(fetch: { scale * 2 })
    let store = try makeStore(dependencies: api)
    let load = Thunk { (context: ThunkContext<AppState, CounterAPI>) in
      let amount = try await context.dependencies.fetch()
      context.dispatch(CountAction.incremented(by: amount))
      return amount
    }
    #expect(try await store.perform(load) == scale * 2)
    #expect(store.state.count == scale * 2)
  }

  @Test("a body may ask for a protocol the dependencies conform to")
  func protocolDependencies() async throws {
    let store = try makeStore(dependencies: Services(greeting: "hello"))
    let greet = Thunk { (context: ThunkContext<AppState, any Greeting>) in
      context.dependencies.greet()
    }
    #expect(try await store.perform(greet) == "hello")
  }

  @Test("a body asking for other dependencies than the store's fails with dependenciesMismatch")
  func dependenciesMismatch() async throws {
    let store = try makeStore(dependencies: CounterAPI(fetch: { 1 }))
    let thunk = Thunk { (context: ThunkContext<AppState, Int>) in context.dependencies }
    await #expect(throws: ThunkError.dependenciesMismatch(expected: "Int", found: "CounterAPI")) {
      try await store.perform(thunk)
    }
    let result = store.dispatch(thunk)
    guard case .failure(.rejected("ThunkMiddleware", _, let underlying)) = result else {
      Issue.record("expected a rejection, got \(result)")
      return
    }
    #expect(
      underlying as? ThunkError == .dependenciesMismatch(expected: "Int", found: "CounterAPI"))
  }

  @Test("a body that needs no dependencies runs with any middleware's")
  func voidDependencies() async throws {
    let store = try makeStore(dependencies: CounterAPI(fetch: { 1 }))
    #expect(try await store.perform(Thunk<AppState, Int> { _ in 7 }) == 7)
  }

  @Test(
    "an async thunk's error, fired and forgotten, is published as middlewareFailed",
    .timeLimit(.minutes(1)))
  func fireAndForgetError() async throws {
    let store = try makeStore()
    var errors = store.errors.makeAsyncIterator()
    let thunk = Thunk<AppState, Void>(id: "load") { _ in
      await Task.yield()
      throw Failure(code: 3)
    }
    let state = try store.dispatch(thunk).get()
    #expect(state.count == 0)
    let error = try #require(await errors.next())
    guard case .middlewareFailed("ThunkMiddleware", let action, let underlying) = error else {
      Issue.record("expected middlewareFailed, got \(error)")
      return
    }
    #expect(underlying as? Failure == Failure(code: 3))
    #expect(String(describing: action) == "Thunk<Void>(async, id: load)")
  }

  @Test("a synchronous thunk's error, fired and forgotten, rejects the dispatch")
  func synchronousFireAndForgetError() throws {
    let store = try makeStore()
    let result = store.dispatch(Thunk<AppState, Void> { _ in throw Failure(code: 4) })
    guard case .failure(.rejected("ThunkMiddleware", _, let underlying)) = result else {
      Issue.record("expected a rejection, got \(result)")
      return
    }
    #expect(underlying as? Failure == Failure(code: 4))
  }

  @Test("thunks and CancelThunks never reach the reducers", .timeLimit(.minutes(1)))
  func neverReachReducers() async throws {
    let store = try makeStore()
    store.dispatch(Thunk<AppState, Void> { context in context.dispatch(NoteAction.noted("sync")) })
    try await store.perform(
      Thunk<AppState, Void> { context in
        await Task.yield()
        context.dispatch(NoteAction.noted("async"))
      })
    store.dispatch(CancelThunks(id: 1))
    store.dispatch(CancelThunks.all)
    #expect(store.state.seen == ["NoteAction", "NoteAction"])
  }

  @Test("perform without a ThunkMiddleware fails at once with middlewareMissing")
  func middlewareMissing() async throws {
    let store = try Store(initialState: AppState(), mutators: makeMutators())
    let thunk = Thunk<AppState, Int> { _ in
      await Task.yield()
      return 1
    }
    await #expect(throws: ThunkError.middlewareMissing) { try await store.perform(thunk) }
  }

  @Test("a middleware before ThunkMiddleware that drops the thunk makes perform throw dropped")
  func droppedByEarlierMiddleware() async throws {
    let dropThunks = AnyMiddleware<AppState>(name: "drop") { action, _, next in
      if String(describing: action).hasPrefix("Thunk") { return }
      try next(action)
    }
    let store = try makeStore(dependencies: (), before: [dropThunks])
    await #expect(throws: ThunkError.dropped) {
      try await store.perform(Thunk<AppState, Int> { _ in 1 })
    }
  }

  @Test("a middleware before ThunkMiddleware that rejects the thunk makes perform throw that")
  func rejectedByEarlierMiddleware() async throws {
    let reject = AnyMiddleware<AppState>(name: "reject") { _, _, _ in throw Failure(code: 5) }
    let store = try makeStore(dependencies: (), before: [reject])
    do {
      _ = try await store.perform(Thunk<AppState, Int> { _ in 1 })
      Issue.record("perform returned")
    } catch DispatchError.rejected("reject", _, let underlying) {
      #expect(underlying as? Failure == Failure(code: 5))
    }
  }

  @Test("a perform rejected by an earlier middleware keeps neither the thunk nor its error alive")
  func rejectedPerformKeepsNothing() async throws {
    let reject = AnyMiddleware<AppState>(name: "reject") { _, _, _ in throw Failure(code: 5) }
    let store = try makeStore(dependencies: (), before: [reject])
    weak var weakProbe: Probe?
    do {
      let probe = Probe()
      weakProbe = probe
      // The body keeps the probe: while the thunk lives, so does the probe.
      let thunk = Thunk<AppState, Int> { _ in probe.value }
      await #expect(throws: DispatchError.self) { try await store.perform(thunk) }
    }
    #expect(weakProbe == nil)
  }

  @Test(
    "a thunk can dispatch another thunk, and perform one for its value", .timeLimit(.minutes(1)))
  func thunkDispatchesThunk() async throws {
    let store = try makeStore()
    let double = Thunk<AppState, Int> { context in
      await Task.yield()
      context.dispatch(CountAction.incremented(by: context.state.count))
      return context.state.count
    }
    let addOne = Thunk<AppState, Void> { context in
      context.dispatch(CountAction.incremented(by: 1))
    }
    let outer = Thunk<AppState, Int> { context in
      context.dispatch(addOne)  // 1
      context.dispatch(addOne)  // 2
      return try await context.perform(double)  // 4
    }
    #expect(try await store.perform(outer) == 4)
    #expect(store.state.count == 4)
  }

  @Test(
    "an async thunk's dispatches go through the whole chain from the top", .timeLimit(.minutes(1)))
  func dispatchesFromTheTop() async throws {
    let outer = ActionLog()
    let inner = ActionLog()
    let store = try makeStore(
      dependencies: (), before: [outer.middleware(named: "outer")],
      after: [inner.middleware(named: "inner")])
    try await store.perform(
      Thunk<AppState, Void> { context in
        await Task.yield()
        context.dispatch(CountAction.incremented(by: 1))
      })
    #expect(outer.all == ["Thunk<Void>(async)", "incremented(by: 1)"])
    #expect(inner.all == ["incremented(by: 1)"])
  }

  @Test("a thunk built for another state type is rejected")
  func stateMismatch() throws {
    let store = try makeStore()
    let result = store.dispatch(Thunk<Int, Void> { _ in })
    guard case .failure(.rejected("ThunkMiddleware", _, let underlying)) = result else {
      Issue.record("expected a rejection, got \(result)")
      return
    }
    #expect(underlying as? ThunkError == .stateMismatch(expected: "Int", found: "AppState"))
  }

  @Test("a thunk in a Batch runs, and what it dispatches is queued behind the batch")
  func batchWithThunk() throws {
    let store = try makeStore()
    let batch = Batch([
      CountAction.incremented(by: 1),
      Thunk<AppState, Void> { context in context.dispatch(CountAction.incremented(by: 10)) },
    ])
    #expect(try store.dispatch(batch).get().count == 11)
    #expect(store.state.seen == ["CountAction", "CountAction"], "the batch's, then the queued one")
  }

  @Test("every ThunkError has a description that says how to fix it")
  func errorDescriptions() {
    let errors: [ThunkError] = [
      .middlewareMissing, .dropped, .dependenciesMismatch(expected: "A", found: "B"),
      .stateMismatch(expected: "A", found: "B"),
    ]
    for error in errors {
      #expect(error.description.hasSuffix("."))
      #expect(error.description.contains(";"))
    }
  }
}

struct CounterAPI: Sendable {
  var fetch: @Sendable () async throws -> Int
}

protocol Greeting: Sendable {
  func greet() -> String
}

struct Services: Greeting {
  var greeting: String
  func greet() -> String { greeting }
}

extension ThunkTests {
  @Test("other actions pass the middleware untouched")
  func passesOtherActions() throws {
    let log = ActionLog()
    let store = try makeStore(dependencies: (), after: [log.middleware(named: "after")])
    store.dispatch(CountAction.incremented(by: 2))
    store.dispatch(Thunk<AppState, Void> { context in context.dispatch(NoteAction.noted("x")) })
    #expect(store.state.count == 2)
    #expect(store.state.seen == ["CountAction", "NoteAction"])
    #expect(log.all.count == 2)
  }
}

/// An object whose lifetime a test watches with a weak reference.
final class Probe: Sendable {
  let value = 1
}
