import Reduce
import Testing

/// A middleware that watches the counter around every reduction of the actions it passes on.
func counterWatcher(
  _ seen: Probe<String>, name: String = "watcher", prefix: String = ""
) -> AnyMiddleware<TestState> {
  AnyMiddleware(name: name) { action, context, next in
    guard context.batch == nil else { return try next(action) }
    try next(action, watching: { $0.counter }) { reduction in
      seen.append(
        "\(prefix)\(type(of: reduction.action)) \(reduction.before) -> \(reduction.after)")
    }
  }
}

/// `next(_:watching:onReduced:)`: a middleware sees the state before and after the reduction of
/// an action it passed on.
@Suite struct ReductionWatchTests {
  @Test("a watch sees the value before and after every reduced action, with the action")
  func beforeAndAfter() throws {
    let seen = Probe<String>()
    let store = try makeStore(
      mutators: [counterMutator, itemsMutator], middleware: [counterWatcher(seen)])
    store.dispatch(Increment(by: 2))
    store.dispatch(Append(value: 7))
    store.dispatch(Batch([Increment(by: 1), Increment(by: 3)]))
    store.dispatch(ReplaceState(TestState(counter: 40)))
    #expect(
      seen.values == [
        "Increment 0 -> 2", "Append 2 -> 2", "Batch 2 -> 6", "ReplaceState<TestState> 6 -> 40",
      ])
  }

  @Test("a watch is not called for an action that ran no handler, threw, or was swallowed")
  func noHandlerFailureOrSwallowed() throws {
    let seen = Probe<String>()
    let swallow = AnyMiddleware<TestState>(name: "swallow") { action, _, next in
      if let increment = action as? Increment, increment.by == 100 { return }
      try next(action)
    }
    let store = try makeStore(
      mutators: [counterMutator, throwingItemsMutator],
      middleware: [counterWatcher(seen), swallow])
    store.dispatch(Unhandled())
    #expect(throws: DispatchError.self) { try store.dispatch(Append(value: -1)).get() }
    store.dispatch(Increment(by: 100))
    store.dispatch(Increment(by: 5))
    #expect(seen.values == ["Increment 0 -> 5"])
  }

  @Test("a watch runs after the store's observers")
  func afterObservers() throws {
    let seen = Probe<String>()
    let store = try makeStore(middleware: [counterWatcher(seen)])
    let subscription = store.subscribe(to: \.counter) { seen.append("observer \($0)") }
    store.dispatch(Increment(by: 1))
    #expect(store.removeMiddleware(named: "watcher"))
    store.dispatch(Increment(by: 1))
    #expect(seen.values == ["observer 0", "observer 1", "Increment 0 -> 1", "observer 2"])
    subscription.cancel()
  }

  @Test("a watch follows an action a later middleware transforms, and one it defers")
  func transformedAndDeferred() throws {
    let seen = Probe<String>()
    let kept = Box<Next<TestState>?>(nil)
    let later = AnyMiddleware<TestState>(name: "later") { action, _, next in
      if action is Rename {
        try next(Increment(by: 10))
      } else if let increment = action as? Increment, increment.by == 7 {
        kept.value = next
      } else {
        try next(action)
      }
    }
    let store = try makeStore(
      mutators: [counterMutator, nameMutator], middleware: [counterWatcher(seen), later])
    store.dispatch(Rename(name: "x"))
    store.dispatch(Increment(by: 7))
    #expect(seen.values == ["Increment 0 -> 10"])
    try kept.value?(Increment(by: 7))
    #expect(seen.values == ["Increment 0 -> 10", "Increment 10 -> 17"])
  }

  @Test("watches of several middleware are called outermost first")
  func severalWatches() throws {
    let seen = Probe<String>()
    let store = try makeStore(
      middleware: [
        counterWatcher(seen, name: "outer", prefix: "outer: "),
        counterWatcher(seen, name: "inner", prefix: "inner: "),
      ])
    store.dispatch(Increment(by: 1))
    #expect(seen.values == ["outer: Increment 0 -> 1", "inner: Increment 0 -> 1"])
  }

  @Test("onReduced may dispatch: the action is queued and runs before dispatch returns")
  func onReducedDispatches() throws {
    let seen = Probe<String>()
    let echo = AnyMiddleware<TestState>(name: "echo") { action, context, next in
      try next(action, watching: { $0.counter }) { reduction in
        if reduction.after < 3 { context.dispatch(Increment(by: 1)) }
      }
    }
    let store = try makeStore(middleware: [echo, counterWatcher(seen)])
    let state = try store.dispatch(Increment(by: 1)).get()
    #expect(state.counter == 3)
    #expect(seen.values == ["Increment 0 -> 1", "Increment 1 -> 2", "Increment 2 -> 3"])
  }

  @Test("watches of a batch's actions are told once the batch commits, never when it rolls back")
  func batchActionsWatched() throws {
    let seen = Probe<String>()
    let watcher = AnyMiddleware<TestState>(name: "every") { action, _, next in
      try next(action, watching: { $0.counter }) { reduction in
        seen.append("\(type(of: reduction.action)) \(reduction.before) -> \(reduction.after)")
      }
    }
    let store = try makeStore(middleware: [watcher, overdraftGuard()])
    let subscription = store.subscribe(to: \.counter) { seen.append("observer \($0)") }
    store.dispatch(Batch([Increment(by: 1), Batch([Increment(by: 2)])]))
    #expect(
      seen.values == [
        "observer 0", "observer 3", "Increment 0 -> 1", "Increment 1 -> 3", "Batch 1 -> 3",
        "Batch 0 -> 3",
      ])
    store.dispatch(Batch([Increment(by: 1), Increment(by: -10)]))
    #expect(seen.count == 6, "the rolled-back batch told no watch")
    subscription.cancel()
  }

  @Test("a watcher made once serves every store it is handed to and names each reduction's store")
  func watcherAcrossStores() throws {
    let seen = Probe<String>()
    let reductions = Probe<ObjectIdentifier>()
    let watcher = ReductionWatcher<TestState>(watching: \.counter) { reduction in
      seen.append("\(reduction.before) -> \(reduction.after)")
      reductions.append(reduction.store)
    }
    let identities = Probe<ObjectIdentifier>()
    func watching() -> AnyMiddleware<TestState> {
      AnyMiddleware(name: "watching") { action, context, next in
        identities.append(context.storeID)
        try next(action, watcher: watcher)
      }
    }
    let first = try makeStore(middleware: [watching()])
    let second = try makeStore(middleware: [watching()])
    first.dispatch(Increment(by: 1))
    second.dispatch(Increment(by: 5))
    first.dispatch(Increment(by: 2))
    #expect(seen.values == ["0 -> 1", "0 -> 5", "1 -> 3"])
    #expect(reductions.values == identities.values)
    #expect(reductions.values[0] == reductions.values[2])
    #expect(reductions.values[0] != reductions.values[1])
  }
}
