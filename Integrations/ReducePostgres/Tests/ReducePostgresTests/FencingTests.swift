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

  @Test("two sinks of the same writer: the one that appends second fails on the key")
  func conflictOnTheKey() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    let first = try await PostgresLogSink.open(
      configuration: cluster.configuration, stream: stream, writer: "a")
    let second = try await PostgresLogSink.open(
      configuration: cluster.configuration, stream: stream, writer: "a")
    let firstStore = try auditedStore(first)
    let secondStore = try auditedStore(second)
    _ = try firstStore.dispatch(Deposit(amount: 1)).get()
    let refused = secondStore.dispatch(Deposit(amount: 2))
    guard case .failure(.middlewareFailed(_, _, let underlying)) = refused else {
      Issue.record("the second writer's dispatch succeeded: \(refused)")
      return
    }
    #expect(underlying as? PostgresJournalError == .conflict(stream: stream, sequence: 1))
    #expect(throws: DispatchError.self) { try secondStore.dispatch(Deposit(amount: 3)).get() }
    #expect(secondStore.state.balance == 2)
    _ = try firstStore.dispatch(Deposit(amount: 4)).get()
    let log = try await storedLog(stream, in: cluster)
    #expect(try AuditLog.verify(log) == 2)
  }
}
