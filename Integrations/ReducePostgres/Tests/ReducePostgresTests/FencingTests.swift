import Foundation
import PostgresNIO
import Reduce
import ReduceLogging
import ReducePostgresCluster
import Testing

@testable import ReducePostgres

@Suite(.timeLimit(.minutes(2))) struct FencingTests {
  @Test("a second writer cannot open a stream another writer holds")
  func secondWriterRefused() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    _ = try await PostgresLogSink.open(
      configuration: cluster.configuration, stream: stream, writer: "a")
    await #expect(throws: PostgresJournalError.fenced(stream: stream, holder: "a")) {
      _ = try await PostgresLogSink.open(
        configuration: cluster.configuration, stream: stream, writer: "b")
    }
  }

  @Test(
    "after a takeover, the old writer's next dispatch is refused before it changes anything, and so is every later one"
  )
  func takeoverFencesOldWriter() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    let old = try await PostgresLogSink.open(
      configuration: cluster.configuration, stream: stream, writer: "a", lease: testLease,
      timeout: testTimeout)
    let store = try auditedStore(old)
    _ = try store.dispatch(Deposit(amount: 1)).get()
    let new = try await PostgresLogSink.open(
      configuration: cluster.configuration, stream: stream, writer: "b", takingOver: true,
      lease: testLease, timeout: testTimeout)
    #expect(new.term == old.term + 1)
    #expect(new.openedPosition.sequence == 1)
    // The old writer saw the takeover's request (at a renewal) before its lease lapsed: its
    // entries are refused in the store's turn, before their changes are made.
    for amount in [10, 100] {
      let refused = store.dispatch(Deposit(amount: amount))
      guard case .failure(.middlewareFailed(_, _, let underlying)) = refused else {
        Issue.record("the old writer's dispatch succeeded: \(refused)")
        return
      }
      #expect(underlying as? PostgresJournalError == .fenced(stream: stream, holder: "b"))
    }
    #expect(store.state == Account(balance: 1, deposits: [1]))
    // The new writer continues the chain after the old writer's last committed entry.
    _ = try auditedStore(new, initial: Account(balance: 1, deposits: [1]))
      .dispatch(Deposit(amount: 2)).get()
    #expect(try AuditLog.verify(try await storedLog(stream, in: cluster)) == 2)
  }

  @Test("the old writer, restarted after a takeover, is refused")
  func restartedOldWriterRefused() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    let old = try await PostgresLogSink.open(
      configuration: cluster.configuration, stream: stream, writer: "a", lease: testLease,
      timeout: testTimeout)
    _ = try await PostgresLogSink.open(
      configuration: cluster.configuration, stream: stream, writer: "b", takingOver: true,
      lease: testLease, timeout: testTimeout)
    old.close()
    await #expect(throws: PostgresJournalError.fenced(stream: stream, holder: "b")) {
      _ = try await PostgresLogSink.open(
        configuration: cluster.configuration, stream: stream, writer: "a")
    }
  }

  @Test("a writer cannot reopen its stream while another writer waits to take it over")
  func reopenDuringTakeoverRefused() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    let old = try await PostgresLogSink.open(
      configuration: cluster.configuration, stream: stream, writer: "a", lease: testLease,
      timeout: testTimeout)
    let taking = Task {
      try await PostgresLogSink.open(
        configuration: cluster.configuration, stream: stream, writer: "b", takingOver: true,
        lease: testLease, timeout: testTimeout)
    }
    // Until the takeover raised the term, the request is on the stream's row.
    try await Task.sleep(for: .milliseconds(500))
    await #expect(throws: PostgresJournalError.fenced(stream: stream, holder: "b")) {
      _ = try await PostgresLogSink.open(
        configuration: cluster.configuration, stream: stream, writer: "a", lease: testLease,
        timeout: testTimeout)
    }
    #expect(try await taking.value.term == old.term + 1)
  }

  @Test(
    "a second sink of the same writer is refused at open while the first's lease runs, and nothing changes"
  )
  func secondSessionRefused() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    let first = try await PostgresLogSink.open(
      configuration: cluster.configuration, stream: stream, writer: "a", lease: testLease,
      timeout: testTimeout)
    let firstStore = try auditedStore(first)
    _ = try firstStore.dispatch(Deposit(amount: 1)).get()
    let start = ContinuousClock.now
    do {
      _ = try await PostgresLogSink.open(
        configuration: cluster.configuration, stream: stream, writer: "a",
        takeoverTimeout: .milliseconds(2500), lease: testLease, timeout: testTimeout)
      Issue.record("the second sink of the writer opened while the first held the lease")
    } catch .leaseHeld(let failed, let holder, let waited) {
      #expect(failed == stream)
      #expect(holder == "a (another session of this writer)")
      #expect(waited >= .milliseconds(2500))
    }
    #expect(start.duration(to: .now) >= .milliseconds(2500))
    // The first sink is untouched: same term, its lease runs, its changes are committed.
    #expect(first.stopReason == nil)
    _ = try firstStore.dispatch(Deposit(amount: 2)).get()
    #expect(firstStore.state == Account(balance: 3, deposits: [1, 2]))
    #expect(try await leaseRemaining(stream, in: cluster) > 0)
    let log = try await storedLog(stream, in: cluster)
    #expect(try AuditLog.verify(log) == 2)
    #expect(try await replayed(stream, in: cluster, through: 2) == firstStore.state)
  }

  @Test("after the first sink of a writer is closed, the second opens at once and continues")
  func secondSessionAfterClose() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    let first = try await PostgresLogSink.open(
      configuration: cluster.configuration, stream: stream, writer: "a", lease: testLease,
      timeout: testTimeout)
    _ = try auditedStore(first).dispatch(Deposit(amount: 1)).get()
    first.close()
    let start = ContinuousClock.now
    let second = try await PostgresLogSink.open(
      configuration: cluster.configuration, stream: stream, writer: "a",
      takeoverTimeout: .seconds(30), lease: testLease, timeout: testTimeout)
    #expect(start.duration(to: .now) < testLease - testTimeout)
    #expect(second.term == first.term)
    #expect(second.openedPosition.sequence == 1)
    _ = try auditedStore(second, initial: Account(balance: 1, deposits: [1]))
      .dispatch(Deposit(amount: 2)).get()
    #expect(try AuditLog.verify(try await storedLog(stream, in: cluster)) == 2)
  }

  @Test(
    "a sink whose session another sink of the writer claimed stops at its next renewal, before it changes anything"
  )
  func claimedSessionFencesFirst() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    let first = try await PostgresLogSink.open(
      configuration: cluster.configuration, stream: stream, writer: "a", lease: testLease,
      timeout: testTimeout)
    let firstStore = try auditedStore(first)
    _ = try firstStore.dispatch(Deposit(amount: 1)).get()
    // A supervisor sure the first process is dead (it is not: a paused process, say).
    let second = try await PostgresLogSink.open(
      configuration: cluster.configuration, stream: stream, writer: "a",
      ignoringHolderLease: true, lease: testLease, timeout: testTimeout)
    #expect(second.term == first.term)
    // The first sink's renewal (due every 0.67 s while idle) finds the session taken.
    let fenced = PostgresJournalError.fenced(
      stream: stream, holder: "a (another session of this writer)")
    let deadline = ContinuousClock.now + .seconds(20)
    while first.stopReason == nil, ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(50))
    }
    #expect(first.stopReason == fenced)
    let refused = firstStore.dispatch(Deposit(amount: 10))
    guard case .failure(let error) = refused else {
      Issue.record("the first sink's dispatch succeeded: \(refused)")
      return
    }
    #expect(journalError(error) == fenced)
    #expect(firstStore.state == Account(balance: 1, deposits: [1]))
    _ = try auditedStore(second, initial: Account(balance: 1, deposits: [1]))
      .dispatch(Deposit(amount: 2)).get()
    #expect(try AuditLog.verify(try await storedLog(stream, in: cluster)) == 2)
  }

  @Test("a commit of a sink whose session another sink of the writer claimed is fenced")
  func claimedSessionFencesCommit() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    // The default lease: no renewal of the first sink runs during the test.
    let first = try await PostgresLogSink.open(
      configuration: cluster.configuration, stream: stream, writer: "a")
    let firstStore = try auditedStore(first)
    _ = try firstStore.dispatch(Deposit(amount: 1)).get()
    let second = try await PostgresLogSink.open(
      configuration: cluster.configuration, stream: stream, writer: "a",
      ignoringHolderLease: true)
    let fenced = PostgresJournalError.fenced(
      stream: stream, holder: "a (another session of this writer)")
    let refused = firstStore.dispatch(Deposit(amount: 10))
    guard case .failure(let error) = refused else {
      Issue.record("the first sink's dispatch succeeded: \(refused)")
      return
    }
    // The risk `ignoringHolderLease` takes: the change was made, and is not in the journal.
    #expect(journalError(error) == fenced)
    #expect(first.stopReason == fenced)
    _ = try auditedStore(second, initial: Account(balance: 1, deposits: [1]))
      .dispatch(Deposit(amount: 2)).get()
    let log = try await storedLog(stream, in: cluster)
    #expect(try AuditLog.verify(log) == 2)
    #expect(try await replayed(stream, in: cluster, through: 2).deposits == [1, 2])
  }
}
