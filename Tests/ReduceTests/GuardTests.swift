import Reduce
import Testing

/// Refuses an overdraft: an `Increment` that would take the counter below zero.
struct OverdraftError: Error, Equatable {}

/// A guard, as the Writing Middleware guide shows it: it checks every `Increment` it sees
/// against the state the increment would apply to.
func overdraftGuard() -> AnyMiddleware<TestState> {
  AnyMiddleware(name: "guard") { action, context, next in
    if let increment = action as? Increment, context.state.counter + increment.by < 0 {
      throw OverdraftError()
    }
    try next(action)
  }
}

/// Whether a failure is the guard's rejection of an increment.
func isGuardRejection(_ error: DispatchError?) -> Bool {
  guard case .rejected(let name, _, let underlying)? = error else { return false }
  return name == "guard" && underlying is OverdraftError
}

/// No way around a guard: whatever the form of the dispatch, every action of a type the guard
/// handles passes it before it can reach the reducers.
@Suite struct GuardTests {
  func bank(balance: Int, more: [any Middleware<TestState>] = []) throws -> Store<TestState> {
    let store = try makeStore(mutators: [counterMutator], middleware: [overdraftGuard()] + more)
    _ = try store.dispatch(Increment(by: balance)).get()
    return store
  }

  @Test("an action dispatched alone is stopped")
  func alone() throws {
    let store = try bank(balance: 100)
    #expect(isGuardRejection(store.dispatch(Increment(by: -120)).failure))
    #expect(store.state.counter == 100)
  }

  @Test("an array of actions stops at the rejected one, keeping the ones before")
  func array() throws {
    let store = try bank(balance: 100)
    let result = store.dispatch([Increment(by: -60), Increment(by: -60), Increment(by: 1)])
    #expect(isGuardRejection(result.failure))
    #expect(store.state.counter == 40)
  }

  @Test("a batch with one rejected action changes nothing")
  func batch() throws {
    let store = try bank(balance: 100)
    let changes = Probe<Int>()
    let subscription = store.subscribe(to: \.counter) { changes.append($0) }
    let result = store.dispatch(Batch([Increment(by: -60), Increment(by: -60)]))
    #expect(isGuardRejection(result.failure))
    #expect(store.state.counter == 100)
    #expect(changes.values == [100])
    subscription.cancel()
  }

  @Test("the guard sees the batch's changes so far: each action is checked where it applies")
  func batchSeesStagedState() throws {
    let store = try bank(balance: 100)
    let state = try store.dispatch(
      Batch([Increment(by: -60), Increment(by: 50), Increment(by: -80)])
    )
    .get()
    #expect(state.counter == 10)
  }

  @Test("a nested batch with one rejected action changes nothing")
  func nestedBatch() throws {
    let store = try bank(balance: 100)
    let nested = Batch([
      Increment(by: 5), Batch([Increment(by: -60), Batch([Increment(by: -60)])]),
    ])
    #expect(isGuardRejection(store.dispatch(nested).failure))
    #expect(store.state.counter == 100)
  }

  @Test("a batch dispatched from inside a dispatch (queued) is checked too")
  func queuedBatch() throws {
    let store = try bank(balance: 100)
    let subscription = store.subscribe(to: \.counter) { counter in
      if counter == 101 { store.dispatch(Batch([Increment(by: -60), Increment(by: -60)])) }
    }
    _ = try store.dispatch(Increment(by: 1)).get()
    #expect(store.state.counter == 101)
    subscription.cancel()
  }

  @Test("a fallback action is checked")
  func fallback() throws {
    let store = try makeStore(
      mutators: [counterMutator, throwingItemsMutator], middleware: [overdraftGuard()],
      fallback: { _ in Increment(by: -500) })
    #expect(throws: DispatchError.self) { try store.dispatch(Append(value: -1)).get() }
    #expect(store.state.counter == 0)
  }

  @Test("an action a middleware before the guard delivers late passes the guard")
  func lateDelivery() throws {
    let kept = Box<Next<TestState>?>(nil)
    let holder = AnyMiddleware<TestState>(name: "holder") { action, _, next in
      if action is Increment { kept.value = next } else { try next(action) }
    }
    let store = try makeStore(mutators: [counterMutator], middleware: [holder, overdraftGuard()])
    store.dispatch(Increment(by: -5))
    let late = Result { () throws(DispatchError) in try kept.value?(Increment(by: -5)) }
    #expect(isGuardRejection(late.failure))
    #expect(store.state.counter == 0)
  }

  @Test("actions of an async sequence are each checked")
  func asyncSequence() async throws {
    let store = try bank(balance: 10)
    let (actions, continuation) = AsyncStream.makeStream(of: Increment.self)
    for amount in [-5, -20, -5, 3] { continuation.yield(Increment(by: amount)) }
    continuation.finish()
    try await store.dispatch(contentsOf: actions).value
    #expect(store.state.counter == 3)
  }

  @Test("a middleware that records changes sees a batch once, as one commit")
  func batchAsOneCommit() throws {
    let seen = Probe<String>()
    let recorder = CommitSpy(name: "recorder") { commit in
      seen.append("\(type(of: commit.action)) \(commit.before) -> \(commit.after)")
    }
    let store = try bank(balance: 1, more: [recorder])
    store.dispatch(Batch([Increment(by: 1), Increment(by: 2)]))
    #expect(
      seen.values == ["Increment 0 -> 1", "Batch 1 -> 4"], "the opening deposit, then the batch")
    #expect(store.state.counter == 4)
  }
}
