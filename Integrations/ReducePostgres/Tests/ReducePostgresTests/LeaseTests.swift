import Foundation
import PostgresNIO
import Reduce
import ReduceLogging
import ReducePostgresCluster
import Testing

@testable import ReducePostgres

/// What the old writer's threads saw while its stream was taken over.
final class WriterLog: @unchecked Sendable {
  // `@unchecked Sendable`: every property is reached only holding `lock`.
  private let lock = NSLock()
  private var acknowledgedAmounts: [Int] = []
  private var firstFailures: [DispatchError] = []

  func acknowledged(_ amount: Int) { lock.withLock { acknowledgedAmounts.append(amount) } }
  func failed(_ error: DispatchError) { lock.withLock { firstFailures.append(error) } }
  var acknowledged: [Int] { lock.withLock { acknowledgedAmounts } }
  var failures: [DispatchError] { lock.withLock { firstFailures } }
}

@Suite(.timeLimit(.minutes(2))) struct LeaseTests {
  @Test(
    "a writer taken over while it dispatches from 4 threads: its state is the journal's through its last commit, and every later dispatch is refused and changes nothing"
  )
  func takeoverOfLiveWriter() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    let old = try await openSink(stream, writer: "a", in: cluster)
    let store = try auditedStore(old)
    let log = WriterLog()
    let writers = Task.detached {
      await onThreads(4) { thread in
        let end = ContinuousClock.now + .seconds(60)
        for count in 1...100_000 where ContinuousClock.now < end {
          let amount = thread * 1_000_000 + count
          switch store.dispatch(Deposit(amount: amount)) {
          case .success:
            log.acknowledged(amount)
            // Paced, so as not to starve the suites that run meanwhile (the failover test
            // times its standby) on a 2-core machine.
            usleep(5_000)
          case .failure(let error):
            log.failed(error)
            return
          }
        }
      }
    }
    try await Task.sleep(for: .milliseconds(300))
    let asked = ContinuousClock.now
    let new = try await openSink(stream, writer: "b", in: cluster, takingOver: true)
    let waited = asked.duration(to: .now)
    await writers.value
    #expect(new.term == old.term + 1)
    // The old writer was dispatching, so its lease ran about a full lease from the request on:
    // the takeover waited for it.
    #expect(waited > testLease - testTimeout, "the takeover waited \(waited)")

    // Each thread's first failure refused its change before it was made.
    let failures = log.failures
    #expect(failures.count == 4)
    for failure in failures {
      #expect(journalError(failure) == .fenced(stream: stream, holder: "b"), "\(failure)")
    }
    // Nothing applied unrecorded: the new holder continues after the old writer's last commit,
    // and the old store's state is the journal's through it.
    #expect(old.committedSequence == new.openedPosition.sequence)
    #expect(old.committedSequence == log.acknowledged.count)
    let journal = try await replayed(stream, in: cluster, through: old.committedSequence)
    #expect(journal == store.state)
    #expect(Set(store.state.deposits) == Set(log.acknowledged))

    // Every later dispatch fails with the typed error and changes nothing.
    let state = store.state
    for amount in 1...3 {
      #expect(refusedDeposit(amount, to: store)?.isFinal == true)
    }
    #expect(store.state == state)
    _ = try auditedStore(new, initial: state).dispatch(Deposit(amount: 7)).get()
    #expect(try await verifiedEntries(stream, in: cluster) == state.deposits.count + 1)
  }

  @Test("a takeover of a killed writer waits for its lease, and not longer")
  func takeoverOfKilledWriter() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    guard let acknowledged = try await killedWriter(stream, in: cluster) else { return }
    let (new, remaining, waited) = try await openTimed(
      stream, writer: "b", in: cluster, takingOver: true)
    // It waited for the lease, and not much more (the rest is the statements' time, and the
    // stalls of a loaded 2-core machine: 2 s were seen; the default lease would be 15 s).
    #expect(waited >= remaining - .milliseconds(100), "the takeover waited \(waited)")
    #expect(waited < remaining + .seconds(4), "the takeover waited \(waited) of \(remaining)")
    #expect(new.openedPosition.sequence >= acknowledged)
  }

  /// Starts the crash writer as writer `a` with a 2 s lease, waits for its 20th
  /// acknowledgement, kills it, and returns how many deposits it acknowledged.
  private func killedWriter(_ stream: String, in cluster: PostgresCluster) async throws -> Int? {
    let writer = try ChildProcess(
      "ReducePostgresCrashWriter", arguments: [cluster.socketPath, stream, "a", "25"],
      environment: ["REDUCE_PG_LEASE_SECONDS": "2"])
    guard await offPool({ writer.waitForLine(startingWith: "ack 20", until: Date() + 30) }) != nil
    else {
      await offPool { writer.kill() }
      Issue.record("the writer did not write: \(writer.standardError)")
      return nil
    }
    // Killed, or ended after its 25 deposits without closing its sink: dead either way, its
    // lease left to lapse.
    await offPool { writer.kill() }
    return writer.lines.compactMap { line in
      line.hasPrefix("ack ") ? Int(line.dropFirst("ack ".count)) : nil
    }.last ?? 0
  }

  /// Opens a sink of `writer` on `stream` after ``killedWriter(_:in:)``: returns it, what was
  /// left of the killed writer's lease by PostgreSQL's clock when the opening began, and how
  /// long the opening took.
  private func openTimed(
    _ stream: String, writer: String, in cluster: PostgresCluster, takingOver: Bool = false
  ) async throws -> (sink: PostgresLogSink, remaining: Duration, waited: Duration) {
    // Timed from before the query, whose answer may come late on a loaded machine.
    let start = ContinuousClock.now
    // What is left of the lease (2 s from the writer's last commit, just before the kill).
    // (Nothing is left if the machine stalled this test for longer than that after the kill.)
    let remaining = Duration.milliseconds(
      max(0, Int64(try await leaseRemaining(stream, in: cluster) * 1000)))
    let sink = try await openSink(stream, writer: writer, in: cluster, takingOver: takingOver)
    return (sink, remaining, start.duration(to: .now))
  }

  @Test(
    "the same writer, restarted after a kill, waits for its dead process's lease, and not longer")
  func restartAfterKillWaits() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    guard let acknowledged = try await killedWriter(stream, in: cluster) else { return }
    let (restarted, remaining, waited) = try await openTimed(stream, writer: "a", in: cluster)
    #expect(waited >= remaining - .milliseconds(100), "the restart waited \(waited)")
    #expect(waited < remaining + .seconds(4), "the restart waited \(waited) of \(remaining)")
    #expect(restarted.term == 1)
    #expect(restarted.openedPosition.sequence >= acknowledged)
    _ = try auditedStore(restarted).dispatch(Deposit(amount: 1)).get()
  }

  @Test("the same writer, restarted after a kill ignoring its own lease, opens at once")
  func restartAfterKillIgnoringLease() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    guard let acknowledged = try await killedWriter(stream, in: cluster) else { return }
    // The dead process's lease, made an hour long: a wait for it would show.
    try await execute(
      """
      UPDATE reduce_journal_streams SET lease_until = now() + interval '1 hour'
        WHERE stream = \(stream)
      """, in: cluster)
    let start = ContinuousClock.now
    let restarted = try await openSink(
      stream, writer: "a", in: cluster, ignoringHolderLease: true, takeoverTimeout: .seconds(30))
    #expect(start.duration(to: .now) < testLease - testTimeout)
    #expect(restarted.openedPosition.sequence >= acknowledged)
    _ = try auditedStore(restarted).dispatch(Deposit(amount: 1)).get()
    #expect(
      try await verifiedEntries(stream, in: cluster) == restarted.openedPosition.sequence + 1)
  }

  @Test("a closed holder's lease ends with it: a takeover need not wait")
  func closedHolderReleasesLease() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    let (holder, _) = try await writerWithOneDeposit(stream, in: cluster)
    holder.close()
    let start = ContinuousClock.now
    let new = try await openSink(stream, writer: "b", in: cluster, takingOver: true)
    #expect(start.duration(to: .now) < testLease - testTimeout)
    #expect(new.openedPosition.sequence == 1)
  }

  @Test("a takeover gives up with a typed error when the holder keeps its lease")
  func takeoverTimesOut() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    let holder = try await openSink(stream, writer: "a", in: cluster)
    // A holder that would ignore the request to stop: its lease runs for an hour.
    try await execute(
      """
      UPDATE reduce_journal_streams SET lease_until = now() + interval '1 hour'
        WHERE stream = \(stream)
      """, in: cluster)
    do {
      _ = try await openSink(
        stream, writer: "b", in: cluster, takingOver: true, takeoverTimeout: .milliseconds(500))
      Issue.record("the takeover did not wait for the lease")
    } catch .leaseHeld(let failed, let name, let waited) {
      #expect(failed == stream)
      #expect(name == "a")
      #expect(waited >= .milliseconds(500))
    }
    // The term is unchanged and the request withdrawn: the holder's sink still refuses (it
    // saw the request), and the holder, reopened, holds the stream.
    holder.close()
    let reopened = try await openSink(stream, writer: "a", in: cluster)
    #expect(reopened.term == holder.term)
  }

  @Test("a takeover ignoring the holder's lease takes a stream at once")
  func takeoverIgnoringLease() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    let holder = try await openSink(stream, writer: "a", in: cluster)
    let start = ContinuousClock.now
    let new = try await openSink(
      stream, writer: "b", in: cluster, takingOver: true, ignoringHolderLease: true)
    #expect(start.duration(to: .now) < testLease - testTimeout)
    #expect(new.term == holder.term + 1)
    // The holder learns it at its next commit (its change is then made and not recorded: the
    // risk the operator takes), or at its next renewal.
    let store = try auditedStore(holder)
    #expect(throws: DispatchError.self) { try store.dispatch(Deposit(amount: 1)).get() }
  }

  @Test("an idle writer keeps its lease, and its next dispatch succeeds at once")
  func idleWriterKeepsLease() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    let (sink, store) = try await writerWithOneDeposit(stream, in: cluster)
    let committed = sink.commitCounts.commits
    // Idle for twice the lease: only the background renewal can keep it.
    try await Task.sleep(for: testLease * 2)
    #expect(sink.leaseState.expiry > .now)
    #expect(try await leaseRemaining(stream, in: cluster) > 0)
    #expect(sink.commitCounts.commits == committed)
    let start = ContinuousClock.now
    _ = try store.dispatch(Deposit(amount: 2)).get()
    #expect(start.duration(to: .now) < .seconds(1))
    #expect(store.state.deposits == [1, 2])
  }

  @Test(
    "a writer cut off from PostgreSQL refuses changes once its lease lapses, and accepts them again once it is renewed"
  )
  func cutOffWriterStops() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    // The writer logs in as a role of its own, which the test cuts off: its connections are
    // ended and it may not log in again (cheaper, on a loaded machine, than stopping a cluster
    // of its own).
    let role = "cut_\(UUID().uuidString.prefix(8).lowercased())"
    try await execute(PostgresQuery(unsafeSQL: "CREATE ROLE \(role) LOGIN SUPERUSER"), in: cluster)
    var configuration = cluster.configuration
    configuration.username = role
    let sink = try await PostgresLogSink.open(
      configuration: configuration, stream: stream, writer: "a", lease: testLease,
      timeout: testTimeout)
    let store = try auditedStore(sink)
    _ = try store.dispatch(Deposit(amount: 1)).get()
    try await execute(PostgresQuery(unsafeSQL: "ALTER ROLE \(role) NOLOGIN"), in: cluster)
    try await execute(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = \(role)",
      in: cluster)
    // The writer's lease lapses by its own clock, at the latest `lease - timeout` after the last
    // renewal.
    let lapsed = sink.leaseState.expiry
    #expect(lapsed <= .now + testLease - testTimeout)
    try await Task.sleep(until: lapsed + .milliseconds(50), clock: .continuous)
    for amount in 2...4 {
      #expect(refusedDeposit(amount, to: store) == .leaseExpired(stream: stream))
    }
    #expect(store.state.deposits == [1])

    // Reachable again: the background renewal renews the lease (the term is unchanged).
    try await execute(PostgresQuery(unsafeSQL: "ALTER ROLE \(role) LOGIN"), in: cluster)
    let deadline = ContinuousClock.now + .seconds(30)
    var accepted = false
    while !accepted, ContinuousClock.now < deadline {
      if case .success = store.dispatch(Deposit(amount: 5)) {
        accepted = true
      } else {
        try await Task.sleep(for: .milliseconds(100))
      }
    }
    #expect(accepted)
    #expect(store.state.deposits == [1, 5])
    let lines = try await storedLines(stream, in: cluster)
    #expect(try AuditLog.verify(lines.flatMap { $0.1 + [UInt8(ascii: "\n")] }) == 2)
  }

  @Test("a lease not longer than the commit timeout is refused with a typed error")
  func invalidLease() async throws {
    let cluster = try sharedCluster.get()
    await #expect(
      throws: PostgresJournalError.invalidLease(lease: .seconds(2), timeout: .seconds(2))
    ) {
      _ = try await PostgresLogSink.open(
        configuration: cluster.configuration, stream: uniqueStream(), writer: "a",
        lease: .seconds(2), timeout: .seconds(2))
    }
    await #expect(
      throws: PostgresJournalError.invalidLease(lease: .seconds(2), timeout: .zero)
    ) {
      _ = try await PostgresLogSink.open(
        configuration: cluster.configuration, stream: uniqueStream(), writer: "a",
        lease: .seconds(2), timeout: .zero)
    }
  }

  @Test("a table made before the lease gets its columns when a writer opens a stream")
  func migration() async throws {
    let cluster = try sharedCluster.get()
    // A schema of its own, first on the writer's search path: its tables are the old ones.
    let schema = "old_\(UUID().uuidString.prefix(8).lowercased())"
    try await execute(PostgresQuery(unsafeSQL: "CREATE SCHEMA \(schema)"), in: cluster)
    try await execute(
      PostgresQuery(
        unsafeSQL: """
          CREATE TABLE \(schema).reduce_journal_streams (
            stream text PRIMARY KEY, holder text NOT NULL, term bigint NOT NULL)
          """), in: cluster)
    try await execute(
      PostgresQuery(
        unsafeSQL: "INSERT INTO \(schema).reduce_journal_streams VALUES ('old', 'a', 3)"),
      in: cluster)
    var configuration = cluster.configuration
    configuration.options.additionalStartupParameters = [("search_path", schema)]
    let sink = try await PostgresLogSink.open(
      configuration: configuration, stream: "old", writer: "a", lease: testLease,
      timeout: testTimeout)
    #expect(sink.term == 3)
    _ = try auditedStore(sink).dispatch(Deposit(amount: 1)).get()
    let connection = try await PostgresConnection.connect(
      on: PostgresLogSink.eventLoopGroup.next(), configuration: cluster.configuration, id: 9,
      logger: Logger(label: "tests"))
    var rows: [(Int64, Bool)] = []
    do {
      let result = try await connection.query(
        PostgresQuery(
          unsafeSQL: """
            SELECT (SELECT count(*) FROM \(schema).reduce_journal),
              (SELECT lease_until > now() AND taker IS NULL AND session IS NOT NULL
                FROM \(schema).reduce_journal_streams)
            """), logger: Logger(label: "tests"))
      for try await row in result.decode((Int64, Bool).self) { rows.append(row) }
    } catch {
      try? await connection.close()
      throw error
    }
    try await connection.close()
    #expect(rows.count == 1 && rows[0] == (1, true))
  }
}
