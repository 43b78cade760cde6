import Foundation
import PostgresNIO
import Reduce
import ReduceLogging
import ReducePostgresCluster
import Testing

@testable import ReducePostgres

/// What each writer thread of the outage test saw.
final class Outcomes: @unchecked Sendable {
  // `@unchecked Sendable`: every property is reached only holding `lock`.
  private let lock = NSLock()
  private var stopping = false
  private var acknowledgedAmounts: [Int] = []
  private var errors: [DispatchError] = []
  private var acknowledgedAfterFailure = 0

  var shouldStop: Bool { lock.withLock { stopping } }
  func stop() { lock.withLock { stopping = true } }

  func record(_ amount: Int, _ result: Result<Account, DispatchError>) {
    lock.withLock {
      switch result {
      case .success:
        acknowledgedAmounts.append(amount)
        if !errors.isEmpty { acknowledgedAfterFailure += 1 }
      case .failure(let error): errors.append(error)
      }
    }
  }

  var acknowledged: [Int] { lock.withLock { acknowledgedAmounts } }
  var failures: [DispatchError] { lock.withLock { errors } }
  var acknowledgedSinceFirstFailure: Int { lock.withLock { acknowledgedAfterFailure } }
}

@Suite(.timeLimit(.minutes(3))) struct OutageTests {
  @Test(
    "PostgreSQL stopped with -m immediate mid-run: dispatches fail with typed errors, nothing acknowledged is lost, and writing resumes after it restarts"
  )
  func immediateStop() async throws {
    let cluster = try PostgresCluster()
    defer { cluster.remove() }
    let stream = uniqueStream()
    let sink = try await PostgresLogSink.open(
      configuration: cluster.configuration, stream: stream, writer: "a", timeout: .seconds(5))
    let store = try auditedStore(sink)
    let outcomes = Outcomes()
    let writers = Task.detached {
      await onThreads(4) { thread in
        var count = 0
        while !outcomes.shouldStop, count < 100_000 {
          count += 1
          let amount = thread * 1_000_000 + count
          let result = store.dispatch(Deposit(amount: amount))
          outcomes.record(amount, result)
          // While PostgreSQL is down each dispatch fails at once: pace the retries.
          if case .failure = result { usleep(20_000) }
        }
      }
    }
    try await Task.sleep(for: .milliseconds(500))
    try cluster.stop(immediately: true)
    try await Task.sleep(for: .milliseconds(500))
    try cluster.start()
    // Writing resumes: dispatches are acknowledged again after the failures.
    let deadline = ContinuousClock.now + .seconds(60)
    while outcomes.acknowledgedSinceFirstFailure < 50, ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(50))
    }
    outcomes.stop()
    await writers.value

    let failures = outcomes.failures
    #expect(!failures.isEmpty)
    #expect(outcomes.acknowledgedSinceFirstFailure >= 50)
    for failure in failures {
      guard case .middlewareFailed(_, _, let underlying) = failure,
        let error = underlying as? PostgresJournalError
      else {
        Issue.record("not a journal error: \(failure)")
        continue
      }
      #expect(!error.isFinal, "\(error)")
    }
    // Nothing acknowledged is lost; the chain verifies; and the journal holds exactly the
    // store's changes, in its order (the changes of the dispatches that failed at their commit
    // were committed again before the next change).
    let lines = try await storedLines(stream, in: cluster)
    #expect(try AuditLog.verify(lines.flatMap { $0.1 + [UInt8(ascii: "\n")] }) == lines.count)
    let journaled = try lines.compactMap { line -> Int? in
      let entry = try AuditLog.Entry(parsing: String(decoding: line.1, as: UTF8.self), line: 0)
      guard entry.succeeded, let payload = entry.payload else { return nil }
      return try JSONDecoder().decode(Deposit.self, from: Data(payload.utf8)).amount
    }
    #expect(Set(outcomes.acknowledged).isSubset(of: Set(journaled)))
    #expect(journaled == store.state.deposits)
  }
}
