import Reduce
import ReduceTesting
import Testing

/// Dispatches `Echo.ping` after every `CounterAction.incremented`, and counts pings.
private let echo = AnyMiddleware<Counter>(name: "echo") { action, context, next in
  try next(action)
  if case CounterAction.incremented = action { context.dispatch(Echo.ping) }
}

private let pingMutator = Mutator(\Counter.log, key: "pings") { (log: inout [String], _: Echo) in
  log.append("ping")
}

@Suite struct TestStoreTests {
  @Test("send passes when the expectation matches the state change exactly")
  func sendMatches() throws {
    let store = try TestStore(initialState: Counter(), mutators: [counterMutator, logMutator])
    store.send(CounterAction.incremented(by: 2)) { $0.count = 2 }
    store.send(CounterAction.noted("hi")) { $0.log = ["hi"] }
    store.send(CounterAction.reset) { $0.count = 0 }
    store.finish()
    #expect(store.state == Counter(count: 0, log: ["hi"]))
  }

  @Test("send fails when the action changed the state and no change was asserted")
  func unassertedChangeFails() throws {
    let store = try TestStore(initialState: Counter(), mutators: [counterMutator])
    withKnownIssue {
      store.send(CounterAction.incremented(by: 1))
    }
  }

  @Test("an action that leaves the state unchanged needs no expectation")
  func unchangedNeedsNothing() throws {
    let failures = Collector<TestFailure>()
    let store = try TestStore(
      initialState: Counter(), mutators: [counterMutator], reportFailure: { failures.append($0) })
    store.send(CounterAction.noted("ignored by counterMutator"))
    store.send(CounterAction.reset)
    store.finish()
    #expect(failures.values.isEmpty)
  }

  @Test("a wrong expectation fails with a diff naming the path, the expected and the actual value")
  func wrongExpectationDiff() throws {
    let failures = Collector<TestFailure>()
    let store = try TestStore(
      initialState: Counter(), mutators: [counterMutator, logMutator],
      reportFailure: { failures.append($0) })
    store.send(CounterAction.incremented(by: 3)) { $0.count = 2 }
    store.send(CounterAction.noted("b")) { $0.log = ["a"] }
    let messages = failures.values.map(\.message)
    try #require(messages.count == 2)
    #expect(messages[0].contains("is not as expected (− expected, + actual)"))
    #expect(messages[0].contains("  .count\n    − 2\n    + 3"))
    #expect(messages[1].contains("  .log[0]\n    − \"a\"\n    + \"b\""))
  }

  @Test("an unasserted change names the action and shows the change")
  func unassertedChangeMessage() throws {
    let failures = Collector<TestFailure>()
    let store = try TestStore(
      initialState: Counter(), mutators: [counterMutator], reportFailure: { failures.append($0) })
    store.send(CounterAction.incremented(by: 1))
    let message = try #require(failures.values.first?.message)
    #expect(message.hasPrefix("The state changed after sending "))
    #expect(message.contains("CounterAction.incremented(by: 1)"))
    #expect(message.contains("  .count\n    − 0\n    + 1"))
  }

  @Test("failures are reported at the caller's source location")
  func sourceLocation() async throws {
    let failures = Collector<TestFailure>()
    let store = try TestStore(
      initialState: Counter(), mutators: [counterMutator], reportFailure: { failures.append($0) })
    let sendLine = #line + 1
    store.send(CounterAction.incremented(by: 1))
    let receiveLine = #line + 1
    await store.receive(Echo.self, timeout: Duration.zero)
    let lines = failures.values.map(\.location.line)
    #expect(lines == [sendLine, receiveLine])
    #expect(failures.values.allSatisfy { $0.location.fileID.hasSuffix("TestStoreTests.swift") })
  }

  @Test("actions a middleware dispatched are received, in order, with their own state change")
  func receiveByType() async throws {
    let store = try TestStore(
      initialState: Counter(), mutators: [counterMutator, pingMutator], middleware: [echo])
    store.send(CounterAction.incremented(by: 1)) { $0.count = 1 }
    #expect(store.receivedActions.count == 1)
    await store.receive(Echo.self) { $0.log = ["ping"] }
    store.send(CounterAction.incremented(by: 2)) { $0.count = 3 }
    await store.receive(where: { ($0 as? Echo) == .ping }, assert: { $0.log = ["ping", "ping"] })
    store.finish()
  }

  @Test("finish fails when a received action was not asserted")
  func finishFails() throws {
    let store = try TestStore(
      initialState: Counter(), mutators: [counterMutator, pingMutator], middleware: [echo])
    store.send(CounterAction.incremented(by: 1)) { $0.count = 1 }
    withKnownIssue {
      store.finish()
    }
  }

  @Test("sending while a received action is unasserted fails")
  func sendBeforeReceiveFails() throws {
    let failures = Collector<TestFailure>()
    let store = try TestStore(
      initialState: Counter(), mutators: [counterMutator, pingMutator], middleware: [echo],
      reportFailure: { failures.append($0) })
    store.send(CounterAction.incremented(by: 1)) { $0.count = 1 }
    store.send(CounterAction.reset) { $0.count = 0 }
    #expect(failures.values.count == 1)
    #expect(
      failures.values.first?.message.contains("1 received action(s) were not asserted") == true)
  }

  @Test("receiving the wrong type fails and names what was received")
  func wrongTypeFails() async throws {
    let failures = Collector<TestFailure>()
    let store = try TestStore(
      initialState: Counter(), mutators: [counterMutator, pingMutator], middleware: [echo],
      reportFailure: { failures.append($0) })
    store.send(CounterAction.incremented(by: 1)) { $0.count = 1 }
    await store.receive(CounterAction.self)
    let message = try #require(failures.values.first?.message)
    #expect(message.contains("Expected to receive an action of type CounterAction, but received"))
    #expect(message.contains("Echo.ping"))
  }

  @Test("receive fails when no action arrives within its timeout")
  func receiveTimesOut() async throws {
    let store = try TestStore(initialState: Counter(), mutators: [counterMutator])
    await withKnownIssue {
      await store.receive(Echo.self, timeout: Duration.zero)
    }
  }

  @Test("a received action's unasserted change fails")
  func receivedChangeMustBeAsserted() async throws {
    let store = try TestStore(
      initialState: Counter(), mutators: [counterMutator, pingMutator], middleware: [echo])
    store.send(CounterAction.incremented(by: 1)) { $0.count = 1 }
    await withKnownIssue {
      await store.receive(Echo.self)
    }
  }

  @Test("an expectation that throws is a failure")
  func throwingExpectation() throws {
    struct Oops: Error {}
    let store = try TestStore(initialState: Counter(), mutators: [counterMutator])
    withKnownIssue {
      store.send(CounterAction.incremented(by: 1)) { _ in throw Oops() }
    }
  }

  @Test("send returns the dispatch result, failures included")
  func sendReturnsResult() throws {
    struct Refused: Error {}
    let guardian = AnyMiddleware<Counter>(name: "guard") { action, _, next in
      if case CounterAction.reset = action { throw Refused() }
      try next(action)
    }
    let store = try TestStore(
      initialState: Counter(), mutators: [counterMutator], middleware: [guardian])
    let ok = store.send(CounterAction.incremented(by: 1)) { $0.count = 1 }
    #expect(try ok.get().count == 1)
    let refused = store.send(CounterAction.reset, failsWith: DispatchError.self)
    guard case .rejected(let name, _, _) = refused else {
      Issue.record("expected a rejection, got \(String(describing: refused))")
      return
    }
    #expect(name == "guard")
  }
}

@Suite struct TestStoreMessageTests {
  @Test("the guide's failure message is the one a test store reports")
  func guideMessage() throws {
    let failures = Collector<TestFailure>()
    let resettingVisits = Mutator(\Profile.visits) { (visits: inout Int, action: ProfileAction) in
      switch action {
      case .visited: visits += 1
      case .renamed: visits = 0
      }
    }
    let store = try TestStore(
      initialState: Profile(), mutators: [profileMutators[0], resettingVisits],
      reportFailure: { failures.append($0) })
    store.send(ProfileAction.visited) { $0.visits = 1 }
    store.send(ProfileAction.renamed("Ada")) { $0.name = "Ada" }
    #expect(
      failures.values.map(\.message) == [
        """
        The state after sending ProfileAction.renamed("Ada") is not as expected (− expected, + actual):
          .visits
            − 1
            + 0
        """
      ])
  }

  @Test("dictionary keys, enum cases and optionals are named in the diff path")
  func diffPaths() throws {
    struct Board: Equatable, Sendable {
      enum Phase: Equatable, Sendable {
        case idle
        case playing(round: Int)
      }
      var scores: [String: Int] = [:]
      var phase = Phase.idle
      var winner: String?
    }
    struct Set: Action {
      let board: Board
    }
    let failures = Collector<TestFailure>()
    let store = try TestStore(
      initialState: Board(scores: ["ada": 1], phase: .playing(round: 1)),
      mutators: [
        Mutator(\Board.self, key: "board") { (board: inout Board, set: Set) in board = set.board }
      ],
      reportFailure: { failures.append($0) })
    store.send(Set(board: Board(scores: ["ada": 2], phase: .playing(round: 2), winner: "ada"))) {
      $0.scores["ada"] = 3
      $0.phase = .playing(round: 3)
    }
    let message = try #require(failures.values.first?.message)
    #expect(message.contains("  .scores[\"ada\"]\n    − 3\n    + 2"))
    #expect(message.contains("  .phase.playing.round\n    − 3\n    + 2"))
    #expect(message.contains("  .winner\n    − nil\n    + Optional(\"ada\")"))
  }
}
