import Reduce
import Testing

/// A middleware that records each change it is shown before it commits, and refuses the ones
/// `refuses` names.
func commitRecorder(
  _ seen: Probe<String>, name: String = "journal",
  refuses: @escaping @Sendable (PendingChange) -> Bool = { _ in false }
) -> AnyMiddleware<TestState> {
  AnyMiddleware(name: name) { action, context, next in
    guard context.batch == nil else { return try next(action) }
    try next(
      action,
      willCommit: { change in
        let keys = change.mutators.map(\.description).joined(separator: ",")
        seen.append("\(type(of: change.action)) [\(keys)]\(change.replacesState ? " all" : "")")
        if refuses(change) { throw TestError(reason: "refused") }
      })
  }
}

/// `next(_:willCommit:)`: a middleware is shown each decided change before it is made, and can
/// refuse it.
@Suite struct WillCommitTests {
  @Test("willCommit is shown the action and the mutators that make its change")
  func showsMutators() throws {
    let seen = Probe<String>()
    let store = try makeStore(
      mutators: [counterMutator, itemsMutator], middleware: [commitRecorder(seen)])
    store.dispatch(Increment(by: 2))
    store.dispatch(Append(value: 7))
    store.dispatch(Unhandled())
    store.dispatch(Batch([Increment(by: 1), Append(value: 3)]))
    store.dispatch(ReplaceState(TestState(counter: 40)))
    #expect(
      seen.values == [
        "Increment [\\TestState.counter]", "Append [\\TestState.items]", "Unhandled []",
        "Batch [\\TestState.counter,\\TestState.items]", "ReplaceState<TestState> [] all",
      ])
    #expect(store.state.counter == 40)
  }

  @Test("a refused change leaves the state as it was and fails the dispatch")
  func refusal() throws {
    let seen = Probe<String>()
    let recorder = commitRecorder(seen) { change in
      (change.action as? Increment)?.by == 5 || change.action is Batch
    }
    let store = try makeStore(
      mutators: [counterMutator, throwingItemsMutator], middleware: [recorder])
    store.dispatch(Increment(by: 1))
    let failure = store.dispatch(Increment(by: 5))
    guard case .failure(.middlewareFailed(let name, _, let underlying)) = failure else {
      Issue.record("expected middlewareFailed, got \(failure)")
      return
    }
    #expect(name == "journal")
    #expect(underlying as? TestError == TestError(reason: "refused"))
    #expect(store.state.counter == 1)
    // A route whose handler may throw is decided after its handlers ran on a kept copy.
    store.dispatch(Append(value: 4))
    #expect(store.state.items == [4])
    #expect(throws: DispatchError.self) {
      try store.dispatch(Batch([Increment(by: 1), Append(value: 9)])).get()
    }
    #expect(store.state == TestState(counter: 1, items: [4]))
  }

  @Test("a refused change of a route that may throw is rolled back")
  func refusalAfterThrowingHandlers() throws {
    let seen = Probe<String>()
    let recorder = commitRecorder(seen) { change in (change.action as? Append)?.value == 8 }
    let store = try makeStore(mutators: [throwingItemsMutator], middleware: [recorder])
    store.dispatch(Append(value: 1))
    #expect(throws: DispatchError.self) { try store.dispatch(Append(value: 8)).get() }
    #expect(store.state.items == [1])
  }

  @Test("willCommit is not called when a check or handler threw, or the action was swallowed")
  func notCalledWithoutAChange() throws {
    let seen = Probe<String>()
    let swallow = AnyMiddleware<TestState>(name: "swallow") { action, _, next in
      if action is Rename { return }
      try next(action)
    }
    let store = try makeStore(
      mutators: [counterMutator, throwingItemsMutator, nameMutator],
      middleware: [commitRecorder(seen), swallow])
    #expect(throws: DispatchError.self) { try store.dispatch(Append(value: -1)).get() }
    store.dispatch(Rename(name: "x"))
    #expect(seen.values.isEmpty)
  }

  @Test("the middleware nearest the reducers is shown the change first; a refusal stops the rest")
  func order() throws {
    let seen = Probe<String>()
    let outer = commitRecorder(seen, name: "outer")
    let inner = commitRecorder(seen, name: "inner") { change in
      (change.action as? Increment)?.by == 9
    }
    let tagged = AnyMiddleware<TestState>(name: "tag") { action, _, next in
      seen.append("tag")
      try next(action)
    }
    let store = try makeStore(middleware: [outer, tagged, inner])
    store.dispatch(Increment(by: 1))
    store.dispatch(Increment(by: 9))
    #expect(
      seen.values == [
        "tag", "Increment [\\TestState.counter]", "Increment [\\TestState.counter]",
        "tag", "Increment [\\TestState.counter]",
      ])
    #expect(store.state.counter == 1)
  }
}
