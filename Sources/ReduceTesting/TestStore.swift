public import Reduce

/// A store for tests: send an action, then assert exactly how the state changed.
///
/// A test store is exhaustive by default. ``send(_:sourceLocation:assert:)`` fails when the state after
/// the action differs from the expectation, including when the action changed the state and the
/// test asserted no change. Actions that reach the reducers without being sent (dispatched by a
/// middleware or an observer, delivered late by a throttle, sent by a thunk) are *received*:
/// each must be asserted, in order, with `receive(_:timeout:sourceLocation:assert:)` (by type or by value) or
/// ``receive(where:timeout:sourceLocation:assert:)``, and ``finish(sourceLocation:)`` fails if
/// any is left. A sent action whose dispatch fails (a middleware rejects it, a reducer throws)
/// is a failure too, in both modes, unless the test expects it with
/// ``send(_:failsWith:sourceLocation:assert:)``.
///
/// ```swift
/// let store = try TestStore(initialState: Counter(), mutators: [counter])
/// store.send(CounterAction.incremented(by: 2)) { $0.count = 2 }
/// store.send(CounterAction.reset) { $0.count = 0 }
/// store.finish()
/// ```
///
/// With `exhaustivity: .off`, for integration tests that care about some effects only: a
/// received action need not be asserted (``receive(where:timeout:sourceLocation:assert:)``
/// skips the ones that do not match, ``send(_:sourceLocation:assert:)`` and
/// ``finish(sourceLocation:)`` let unasserted ones go), and an assertion checks only what it
/// sets: the closure is applied to the actual state after, which must not change by it.
///
/// Failures go to the store's failure reporter, with the location of the failing assertion. The
/// default reporter records a Swift Testing issue; XCTest suites pass their own (see
/// ``TestFailure``). The store's chain is the given middleware between two of the test store's
/// own: an outermost one that marks the sent action and an innermost one that records every
/// action reaching the reducers.
public final class TestStore<State: Equatable & Sendable>: Sendable {
  /// The store under test, for code that takes a store (views, thunks, observers).
  public let store: Store<State>
  /// Whether every received action and every state change must be asserted.
  public let exhaustivity: TestExhaustivity
  let log: TestStoreLog<State>
  let reportFailure: @Sendable (TestFailure) -> Void

  /// Creates a test store and the store it tests.
  ///
  /// - Parameters:
  ///   - initialState: The state before any action.
  ///   - mutators: The reducers of the substates.
  ///   - middleware: The chain under test, outermost first.
  ///   - fallback: The store's fallback, as in `Store.init(initialState:mutators:middleware:fallback:)`.
  ///   - exhaustivity: Whether every received action and every state change must be asserted
  ///     (``TestExhaustivity/on``, the default) or only those a test asserts.
  ///   - reportFailure: Reports each failed assertion; records a Swift Testing issue by default.
  /// - Throws: The store's `RegistrationError`.
  public init(
    initialState: State,
    mutators: [Mutator<State>] = [],
    middleware: [any Middleware<State>] = [],
    fallback: (@Sendable (DispatchError) -> (any Action)?)? = nil,
    exhaustivity: TestExhaustivity = .on,
    reportFailure: @escaping @Sendable (TestFailure) -> Void = TestFailure.recordIssue
  ) throws(RegistrationError) {
    self.exhaustivity = exhaustivity
    let log = TestStoreLog<State>()
    self.log = log
    self.reportFailure = reportFailure
    self.store = try Store(
      initialState: initialState, mutators: mutators,
      middleware: [SendMarker(log: log)] + middleware + [ReductionRecorder(log: log)],
      fallback: fallback)
  }

  /// The store's current state.
  public var state: State {
    store.state
  }

  /// The actions received and not yet asserted, oldest first.
  public var receivedActions: [any Action] {
    log.received.map(\.action)
  }

  // MARK: Assertions

  /// Sends an action; a failed dispatch is a test failure unless `expectedFailure` is given.
  ///
  /// With `expectedFailure`, the dispatch must fail and its error match: the check takes the
  /// error and returns whether it is the expected one.
  func send(
    _ action: some Action, at location: TestFailure.Location,
    expectedFailure: (type: String, matches: (DispatchError) -> Bool)? = nil,
    assert expectedChange: ((inout State) throws -> Void)?
  ) -> Result<State, DispatchError> {
    let unasserted = log.takeReceived()
    if !unasserted.isEmpty, exhaustivity == .on {
      fail(
        "Before sending \(describe(action)), \(unasserted.count) received action(s) were not asserted:\n"
          + list(unasserted.map(\.action)),
        at: location)
    }
    let before = store.state
    let result = store.dispatch(SentAction(action: action))
    let sent = log.takeSent()
    let from = sent.before ?? before
    let actual = sent.reduced.last?.after ?? from
    switch (result, expectedFailure) {
    case (.success, nil):
      break
    case (.failure(let error), nil):
      fail(
        "Sending \(describe(action)) failed: \(error)\n"
          + "If the failure is expected, say so: send(_:failsWith:), such as "
          + "send(action, failsWith: DispatchError.self).",
        at: location)
    case (.success, let expected?):
      fail(
        "Expected sending \(describe(action)) to fail with \(expected.type), but it succeeded.",
        at: location)
    case (.failure(let error), let expected?):
      if !expected.matches(error) {
        fail(
          "Expected sending \(describe(action)) to fail with \(expected.type), but it failed "
            + "with \(type(of: error.underlying)): \(error)",
          at: location)
      }
    }
    check(
      from: from, to: actual, expectedChange, at: location,
      what: "sending \(describe(action))")
    return result
  }

  func receive(
    matching predicate: (any Action) -> Bool, expecting description: String,
    timeout: Duration, at location: TestFailure.Location,
    assert expectedChange: ((inout State) throws -> Void)?
  ) async {
    var skipped = 0
    var received: ReducedAction<State>
    while true {
      if log.received.isEmpty {
        guard await log.waitForReceived(timeout: timeout) else {
          let others =
            skipped == 0 ? "no action was received" : "only \(skipped) other actions were"
          fail(
            "Expected to receive \(description), but \(others) within \(timeout).",
            at: location)
          return
        }
      }
      guard let next = log.takeFirstReceived() else { return }
      if predicate(next.action) {
        received = next
        break
      }
      if exhaustivity == .on {
        fail(
          "Expected to receive \(description), but received \(describe(next.action)).",
          at: location)
        return
      }
      // Not exhaustive: the actions before the expected one need no assertion.
      skipped += 1
    }
    check(
      from: received.before, to: received.after, expectedChange, at: location,
      what: "receiving \(describe(received.action))")
  }

  func finish(at location: TestFailure.Location) {
    let unasserted = log.takeReceived()
    guard !unasserted.isEmpty, exhaustivity == .on else { return }
    fail(
      "\(unasserted.count) received action(s) were not asserted:\n"
        + list(unasserted.map(\.action)),
      at: location)
  }

  /// Compares the state an action produced with the expectation built from the state before it.
  private func check(
    from before: State, to actual: State, _ expectedChange: ((inout State) throws -> Void)?,
    at location: TestFailure.Location, what: String
  ) {
    // Not exhaustive: the assertion is checked against the actual state, so that it tests only
    // what it sets.
    var expected = exhaustivity == .on ? before : actual
    if exhaustivity == .off, expectedChange == nil { return }
    do {
      try expectedChange?(&expected)
    } catch {
      fail("The expectation for \(what) threw: \(error)", at: location)
      return
    }
    guard expected != actual else { return }
    let headline =
      expectedChange == nil && actual != before
      ? "The state changed after \(what), but no change was asserted"
      : "The state after \(what) is not as expected"
    var lines = StateDiff.lines(expected: expected, actual: actual)
    if lines.isEmpty {
      lines = ["    − \(StateDiff.describe(expected))", "    + \(StateDiff.describe(actual))"]
    }
    fail(headline + " (− expected, + actual):\n" + lines.joined(separator: "\n"), at: location)
  }

  /// Sends an action that must fail with an error of type `E`, and returns that error.
  func send<E: Error>(
    _ action: some Action, failsWith type: E.Type, at location: TestFailure.Location,
    assert expectedChange: ((inout State) throws -> Void)?
  ) -> E? {
    let result = send(
      action, at: location,
      expectedFailure: ("\(type)", { Self.error($0, as: type) != nil }),
      assert: expectedChange)
    guard case .failure(let error) = result else { return nil }
    return Self.error(error, as: type)
  }

  /// The failure itself when `E` is `DispatchError`, else its cause as an `E`.
  private static func error<E: Error>(_ error: DispatchError, as type: E.Type) -> E? {
    Result<Void, DispatchError>.failure(error).failure(as: type)
  }

  private func fail(_ message: String, at location: TestFailure.Location) {
    reportFailure(TestFailure(message: message, location: location))
  }

  /// An action as messages show it: `CounterAction.incremented(by: 1)`.
  private func describe(_ action: any Action) -> String {
    let typeName = String(describing: type(of: action))
    let value = String(describing: action)
    return value.hasPrefix(typeName) ? value : "\(typeName).\(value)"
  }

  private func list(_ actions: [any Action]) -> String {
    actions.map { "  " + describe($0) }.joined(separator: "\n")
  }
}

/// Whether a ``TestStore`` requires every received action and every state change to be
/// asserted.
public enum TestExhaustivity: Sendable, Hashable {
  /// Every received action must be asserted in order, and an assertion describes the whole
  /// change: for unit tests of a feature.
  case on
  /// Received actions that are not asserted are let go, and an assertion checks only what it
  /// sets: for integration tests that follow a few effects of a larger system.
  case off
}
