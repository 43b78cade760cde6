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

  @Test("after a takeover, the old writer's next dispatch fails and later ones change nothing")
  func takeoverFencesOldWriter() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    let old = try await PostgresLogSink.open(
      configuration: cluster.configuration, stream: stream, writer: "a")
    let store = try auditedStore(old)
    _ = try store.dispatch(Deposit(amount: 1)).get()
    let new = try await PostgresLogSink.open(
      configuration: cluster.configuration, stream: stream, writer: "b", takingOver: true)
    #expect(new.term == old.term + 1)
    #expect(new.openedPosition.sequence == 1)
    // The old writer's entry is refused at its commit (its change was made before the commit:
    // the dispatch fails); every later one is refused before it changes anything.
    let refused = store.dispatch(Deposit(amount: 10))
    guard case .failure(.middlewareFailed(_, _, let underlying)) = refused else {
      Issue.record("the old writer's dispatch succeeded: \(refused)")
      return
    }
    #expect(underlying as? PostgresJournalError == .fenced(stream: stream, holder: "b"))
    let balance = store.state.balance
    #expect(throws: DispatchError.self) { try store.dispatch(Deposit(amount: 100)).get() }
    #expect(store.state.balance == balance)
    // The new writer continues the chain after the old writer's last committed entry.
    _ = try auditedStore(new, initial: Account(balance: 1, deposits: [1]))
      .dispatch(Deposit(amount: 2)).get()
    #expect(try AuditLog.verify(try await storedLog(stream, in: cluster)) == 2)
  }

  @Test("the old writer, restarted after a takeover, is refused")
  func restartedOldWriterRefused() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    _ = try await PostgresLogSink.open(
      configuration: cluster.configuration, stream: stream, writer: "a")
    _ = try await PostgresLogSink.open(
      configuration: cluster.configuration, stream: stream, writer: "b", takingOver: true)
    await #expect(throws: PostgresJournalError.fenced(stream: stream, holder: "b")) {
      _ = try await PostgresLogSink.open(
        configuration: cluster.configuration, stream: stream, writer: "a")
    }
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
