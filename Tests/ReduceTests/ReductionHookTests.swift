import Reduce
import Testing

/// A middleware that only watches reductions: it notes the counter before and after each one.
final class ReductionWatcher: ReductionHookProviding {
  let name: String
  let seen = Probe<String>()

  init(name: String = "watcher") {
    self.name = name
  }

  func handle(_ action: any Action, context: MiddlewareContext<TestState>, next: Next<TestState>)
    throws
  {
    try next(action)
  }

  /// Declines every action type: the hook alone sees them.
  func handles(_ type: any Action.Type) -> Bool { false }

  var reductionHook: ReductionHook<TestState> {
    let seen = seen
    return ReductionHook(
      makeSlot: {
        let slot = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        slot.initialize(to: -1)
        return UnsafeMutableRawPointer(slot)
      },
      freeSlot: { $0.assumingMemoryBound(to: Int.self).deallocate() },
      willReduce: { state, slot, _ in
        slot.assumingMemoryBound(to: Int.self).pointee = state.pointee.counter
      },
      didReduce: { state, slot, action, _ in
        let before = slot.assumingMemoryBound(to: Int.self).pointee
        seen.append("\(type(of: action())) \(before) -> \(state.pointee.counter)")
      })
  }
}

/// The package-level reduction hooks the undo plugin records with.
@Suite struct ReductionHookTests {
  @Test("a hook sees the state before and after every reduced action, with the action")
  func beforeAndAfter() throws {
    let watcher = ReductionWatcher()
    let store = try makeStore(mutators: [counterMutator, itemsMutator], middleware: [watcher])
    store.dispatch(Increment(by: 2))
    store.dispatch(Append(value: 7))
    store.dispatch(Batch([Increment(by: 1), Increment(by: 3)]))
    store.dispatch(ReplaceState(TestState(counter: 40)))
    #expect(
      watcher.seen.values == [
        "Increment 0 -> 2", "Append 2 -> 2", "Batch 2 -> 6", "ReplaceState<TestState> 6 -> 40",
      ])
  }

  @Test("a hook is not told of an action that ran no handler or whose reducer threw")
  func noHandlerOrFailure() throws {
    let watcher = ReductionWatcher()
    let store = try makeStore(
      mutators: [counterMutator, throwingItemsMutator], middleware: [watcher])
    store.dispatch(Unhandled())
    #expect(throws: DispatchError.self) { try store.dispatch(Append(value: -1)).get() }
    store.dispatch(Increment(by: 5))
    #expect(watcher.seen.values == ["Increment 0 -> 5"])
  }

  @Test("a hook runs with observers, after them, and stops when its middleware leaves")
  func withObserversAndRemoval() throws {
    let watcher = ReductionWatcher()
    let store = try makeStore(middleware: [watcher])
    let subscription = store.subscribe(to: \.counter) { watcher.seen.append("observer \($0)") }
    store.dispatch(Increment(by: 1))
    #expect(store.removeMiddleware(named: watcher.name))
    store.dispatch(Increment(by: 1))
    #expect(
      watcher.seen.values == ["observer 0", "observer 1", "Increment 0 -> 1", "observer 2"])
    subscription.cancel()
  }
}
