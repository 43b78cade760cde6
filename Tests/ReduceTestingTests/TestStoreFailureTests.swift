import Reduce
import ReduceTesting
import Testing

/// A failed dispatch of a sent action fails the test, unless the test expects it with
/// `send(_:failsWith:)`.
@Suite struct TestStoreFailureTests {
  struct ResetForbidden: Error, Equatable {}

  struct TooLarge: Error, Equatable {
    var by: Int
  }

  /// Rejects `CounterAction.reset`.
  static let guardian = AnyMiddleware<Counter>(name: "guard") { action, _, next in
    if case CounterAction.reset = action { throw ResetForbidden() }
    try next(action)
  }

  /// Refuses increments past 10.
  static let bounded = Mutator(
    \Counter.count,
    validate: { (count: Int, action: CounterAction) throws(TooLarge) in
      if case .incremented(let n) = action, count + n > 10 { throw TooLarge(by: count + n - 10) }
    },
    reduce: { count, action in
      if case .incremented(let n) = action { count += n }
    })

  func makeStore(
    _ failures: Collector<TestFailure>, exhaustivity: TestExhaustivity = .on
  ) throws -> TestStore<Counter> {
    try TestStore(
      initialState: Counter(), mutators: [Self.bounded], middleware: [Self.guardian],
      exhaustivity: exhaustivity, reportFailure: { failures.append($0) })
  }

  @Test("a middleware's rejection of a sent action is a failure, with no closure given")
  func rejectionFails() throws {
    let store = try TestStore(
      initialState: Counter(), mutators: [Self.bounded], middleware: [Self.guardian])
    withKnownIssue {
      store.send(CounterAction.reset)
    }
  }

  @Test(
    "the failure names the action, the middleware and the error, and says how to expect it",
    arguments: [TestExhaustivity.on, .off])
  func rejectionMessage(exhaustivity: TestExhaustivity) throws {
    let failures = Collector<TestFailure>()
    let store = try makeStore(failures, exhaustivity: exhaustivity)
    store.send(CounterAction.reset)
    let messages = failures.values.map(\.message)
    try #require(messages.count == 1)
    #expect(
      messages[0]
        == """
        Sending CounterAction.reset failed: Middleware 'guard' rejected reset: ResetForbidden()
        If the failure is expected, say so: send(_:failsWith:), such as send(action, failsWith: DispatchError.self).
        """)
  }

  @Test("a reducer's refusal of a sent action is a failure")
  func reducerFailureFails() throws {
    let failures = Collector<TestFailure>()
    let store = try makeStore(failures)
    store.send(CounterAction.incremented(by: 11))
    let message = try #require(failures.values.first?.message)
    #expect(message.hasPrefix("Sending CounterAction.incremented(by: 11) failed: Mutator"))
    #expect(message.contains("TooLarge(by: 1)"))
  }

  @Test("send(_:failsWith:) returns the thrower's own error and records nothing")
  func expectedFailure() throws {
    let failures = Collector<TestFailure>()
    let store = try makeStore(failures)
    store.send(CounterAction.incremented(by: 4)) { $0.count = 4 }
    #expect(
      store.send(CounterAction.incremented(by: 9), failsWith: TooLarge.self) == TooLarge(by: 3))
    #expect(store.send(CounterAction.reset, failsWith: ResetForbidden.self) == ResetForbidden())
    let whole = store.send(CounterAction.reset, failsWith: DispatchError.self)
    #expect(whole?.underlying(as: ResetForbidden.self) == ResetForbidden())
    store.finish()
    #expect(failures.values.isEmpty)
    #expect(store.state.count == 4)
  }

  @Test("send(_:failsWith:) fails when the dispatch succeeds")
  func expectedFailureSucceeded() throws {
    let failures = Collector<TestFailure>()
    let store = try makeStore(failures)
    let error = store.send(CounterAction.incremented(by: 1), failsWith: TooLarge.self) {
      $0.count = 1
    }
    #expect(error == nil)
    #expect(
      failures.values.map(\.message) == [
        "Expected sending CounterAction.incremented(by: 1) to fail with TooLarge, but it succeeded."
      ])
  }

  @Test("send(_:failsWith:) fails when the error is of another type")
  func expectedFailureOtherType() throws {
    let failures = Collector<TestFailure>()
    let store = try makeStore(failures)
    #expect(store.send(CounterAction.reset, failsWith: TooLarge.self) == nil)
    let message = try #require(failures.values.first?.message)
    #expect(
      message.hasPrefix(
        "Expected sending CounterAction.reset to fail with TooLarge, but it failed with ResetForbidden: "
      ))
  }

  @Test("a send(_:failsWith:) that succeeds is recorded as a Swift Testing issue")
  func recordedIssue() throws {
    let store = try TestStore(
      initialState: Counter(), mutators: [Self.bounded], middleware: [Self.guardian])
    withKnownIssue {
      store.send(CounterAction.incremented(by: 1), failsWith: ResetForbidden.self) {
        $0.count = 1
      }
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("but it succeeded") }
    }
  }
}

// The guide example itself (Ledger, balances) is in GuideExampleTests.swift.

@Suite struct FailedDispatchGuideTests {
  @Test("the guide's message for an unexpected failure is the one a test store reports")
  func guideMessage() throws {
    let failures = Collector<TestFailure>()
    let store = try TestStore(
      initialState: Ledger(), mutators: [balances], reportFailure: { failures.append($0) })
    store.send(LedgerAction.withdrew(account: "ada", amount: 150))
    #expect(
      failures.values.map(\.message) == [
        """
        Sending LedgerAction.withdrew(account: "ada", amount: 150) failed: Mutator '\\Ledger.balances' failed to reduce withdrew(account: "ada", amount: 150): InsufficientFunds(account: "ada")
        If the failure is expected, say so: send(_:failsWith:), such as send(action, failsWith: DispatchError.self).
        """
      ])
  }
}
