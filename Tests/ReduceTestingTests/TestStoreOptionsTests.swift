import Reduce
import ReduceTesting
import Testing

/// After each increment, notes it and pings: two received actions per send.
let followUps = AnyMiddleware<Counter>(name: "followUps") { action, context, next in
  try next(action)
  if case .incremented(let by)? = action as? CounterAction {
    context.dispatch(CounterAction.noted("+\(by)"))
    context.dispatch(Echo.ping)
  }
}

/// `receive` by value, and `exhaustivity: .off`.
@Suite struct TestStoreOptionsTests {
  func makeStore(_ exhaustivity: TestExhaustivity, _ failures: Collector<TestFailure>) throws
    -> TestStore<Counter>
  {
    try TestStore(
      initialState: Counter(), mutators: [counterMutator, logMutator], middleware: [followUps],
      exhaustivity: exhaustivity, reportFailure: { failures.append($0) })
  }

  @Test("receive matches an Equatable action by value, and names the expected one on a miss")
  func receiveByValue() async throws {
    let failures = Collector<TestFailure>()
    let store = try makeStore(.on, failures)
    store.send(CounterAction.incremented(by: 2)) { $0.count = 2 }
    await store.receive(CounterAction.noted("+2")) { $0.log = ["+2"] }
    await store.receive(Echo.ping)
    #expect(failures.values.isEmpty)
    store.send(CounterAction.incremented(by: 1)) { $0.count = 3 }
    await store.receive(CounterAction.noted("+9"))
    let message = try #require(failures.values.first?.message)
    #expect(message.hasPrefix("Expected to receive the action noted(\"+9\"), but received"))
  }

  @Test("not exhaustive: unasserted received actions and changes are let go")
  func notExhaustive() async throws {
    let failures = Collector<TestFailure>()
    let store = try makeStore(.off, failures)
    store.send(CounterAction.incremented(by: 2))
    store.send(CounterAction.incremented(by: 3)) { $0.count = 5 }
    // Skips the note of +2, the ping and the note of +3's... up to the one asked for.
    await store.receive(Echo.ping) { $0.log = ["+2", "+3"] }
    store.finish()
    #expect(failures.values.isEmpty)
  }

  @Test("not exhaustive: an assertion that does not hold still fails")
  func notExhaustiveStillChecks() async throws {
    let failures = Collector<TestFailure>()
    let store = try makeStore(.off, failures)
    store.send(CounterAction.incremented(by: 2)) { $0.count = 3 }
    let message = try #require(failures.values.first?.message)
    #expect(message.contains("  .count\n    − 3\n    + 2"))
  }

  @Test("not exhaustive: an action that never comes fails after the others were skipped")
  func notExhaustiveMissing() async throws {
    let failures = Collector<TestFailure>()
    let store = try makeStore(.off, failures)
    store.send(CounterAction.incremented(by: 2))
    await store.receive(CounterAction.reset, timeout: .milliseconds(50))
    let message = try #require(failures.values.first?.message)
    #expect(message.contains("only 2 other actions were"))
  }
}
