import Reduce
import Testing

/// The commit contract of plugins that record changes: before the commit (may refuse), after it
/// (the watched value before and after), after the turn.
@Suite struct CommitObserverTests {
  struct Refusal: Error {}

  /// Records what its observer is shown, under a name.
  struct Recorder: Middleware {
    let name: String
    let log: Probe<String>
    var refuse: @Sendable (PendingCommit) -> Bool = { _ in false }

    var commitObserver: CommitObserver<TestState>? {
      CommitObserver(
        watching: \.counter,
        willCommit: { [name, log, refuse] change in
          if refuse(change) { throw Refusal() }
          log.append("\(name) will \(type(of: change.action)) \(change.mutators.map(\.rawValue))")
        },
        didCommit: { [name, log] commit in
          log.append("\(name) did \(commit.before)->\(commit.after)")
        },
        afterTurn: { [name, log] in log.append("\(name) after turn") })
    }
  }

  @Test(
    "each commit is shown before (innermost first), after (outermost first), then after the turn")
  func order() throws {
    let log = Probe<String>()
    let store = try makeStore(
      middleware: [Recorder(name: "outer", log: log), Recorder(name: "inner", log: log)])
    log.removeAll()
    store.dispatch(Increment(by: 2))
    #expect(
      log.values == [
        #"inner will Increment ["\\TestState.counter"]"#,
        #"outer will Increment ["\\TestState.counter"]"#,
        "outer did 0->2", "inner did 0->2", "outer after turn", "inner after turn",
      ])
  }

  @Test("a refused change leaves the state as it was and fails the action")
  func refusal() throws {
    let log = Probe<String>()
    let refusing = Recorder(name: "wal", log: log) { change in
      (change.action as? Increment)?.by == 5
    }
    let store = try makeStore(middleware: [refusing])
    let seen = Probe<Int>()
    let subscription = store.subscribe(to: \.counter, initial: false) { seen.append($0) }
    let result = store.dispatch(Increment(by: 5))
    guard case .middlewareFailed(let name, _, let underlying)? = result.failure else {
      Issue.record("expected the refusal, got \(result)")
      return
    }
    #expect(name == "wal" && underlying is Refusal)
    #expect(store.state.counter == 0 && seen.values.isEmpty)
    subscription.cancel()
  }

  @Test("a refusal after a throwing handler ran rolls its change back")
  func refusalRollsBack() throws {
    let mayThrow = Mutator(\TestState.counter) { (counter: inout Int, action: Increment) throws in
      counter += action.by
    }
    let store = try Store(
      initialState: TestState(), mutators: [mayThrow],
      middleware: [Recorder(name: "wal", log: Probe()) { _ in true }])
    #expect(store.dispatch(Increment(by: 3)).failure != nil)
    #expect(store.state.counter == 0)
  }

  @Test("a batch is one commit, with the mutators of all its actions")
  func batch() throws {
    let log = Probe<String>()
    let store = try makeStore(
      mutators: [counterMutator, itemsMutator], middleware: [Recorder(name: "r", log: log)])
    store.dispatch(Batch([Increment(by: 1), Append(value: 1), Increment(by: 1)]))
    #expect(
      log.values == [
        #"r will Batch ["\\TestState.counter", "\\TestState.items", "\\TestState.counter"]"#,
        "r did 0->2", "r after turn",
      ])
  }

  @Test("an action no handler takes is shown before, and not after: nothing changed")
  func noHandler() throws {
    let log = Probe<String>()
    let store = try makeStore(middleware: [Recorder(name: "r", log: log)])
    store.dispatch(Append(value: 1))
    #expect(log.values == ["r will Append []", "r after turn"])
  }

  @Test("an action another middleware delivers late is recorded when it commits")
  func deferred() async throws {
    let log = Probe<String>()
    let kept = Probe<Next<TestState>>()
    let holdBack = AnyMiddleware<TestState>(name: "hold") { action, _, next in kept.append(next) }
    let store = try makeStore(middleware: [Recorder(name: "r", log: log), holdBack])
    store.dispatch(Increment(by: 4))
    #expect(log.values == ["r after turn"], "held back: nothing committed")
    try await Task.detached { try kept.values[0](Increment(by: 4)) }.value
    #expect(
      log.values.suffix(3) == [
        #"r will Increment ["\\TestState.counter"]"#, "r did 0->4", "r after turn",
      ])
  }

  @Test("afterTurn runs once the turn is released, and its failure fails the dispatch")
  func afterTurn() throws {
    struct Flush: Error {}
    let store = try makeStore()
    let seen = Probe<Bool>()
    let flusher = AnyRecorder(
      name: "flusher",
      observer: CommitObserver<TestState>(
        willCommit: { _ in },
        afterTurn: { [weak store] in
          // The turn is free: reading the state from here does not wait for this dispatch.
          seen.append(store?.state.counter == 1)
          throw Flush()
        }))
    try store.use(flusher)
    let result = store.dispatch(Increment(by: 1))
    #expect(seen.values == [true])
    guard case .middlewareFailed("flusher", _, let underlying)? = result.failure else {
      Issue.record("expected the flush's failure, got \(result)")
      return
    }
    #expect(underlying is Flush)
    #expect(store.state.counter == 1, "the change stays made")
  }

  @Test("a commit names the store that made it")
  func storeIdentity() throws {
    let stores = Probe<ObjectIdentifier>()
    let spy = CommitSpy(name: "spy") { stores.append($0.store) }
    let first = try makeStore(middleware: [spy])
    let second = try makeStore(middleware: [spy])
    first.dispatch(Increment())
    second.dispatch(Increment())
    #expect(stores.values.count == 2 && stores.values[0] != stores.values[1])
  }
}

/// A middleware made of a name and a commit observer.
struct AnyRecorder: Middleware {
  let name: String
  let observer: CommitObserver<TestState>
  var commitObserver: CommitObserver<TestState>? { observer }
}
