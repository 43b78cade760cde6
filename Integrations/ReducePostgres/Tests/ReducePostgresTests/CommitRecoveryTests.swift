import Foundation
import Logging
import PostgresNIO
import Reduce
import ReduceLogging
import ReducePostgresCluster
import Testing

@testable import ReducePostgres

/// A commit whose answer was lost is sent again: the rows it did store are recognised by their
/// bytes; another writer's rows are a conflict.
@Suite(.timeLimit(.minutes(2))) struct CommitRecoveryTests {
  func record(_ amount: Int) -> LogRecord {
    LogRecord(
      entry: LogEntry(
        sequence: 0, timestamp: Date(), action: "Deposit", payload: .json("{\"amount\":\(amount)}"),
        outcome: .ok, duration: .zero, changes: nil),
      format: .jsonLines)
  }

  @Test("rows already stored with the same bytes are kept, and the rest inserted")
  func sameBytesAreKept() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    let sink = try await PostgresLogSink.open(
      configuration: cluster.configuration, stream: stream, writer: "a")
    let store = try auditedStore(sink)
    for amount in 1...2 { _ = try store.dispatch(Deposit(amount: amount)).get() }
    let stored = try await storedLines(stream, in: cluster)
    var chain = try JournalChain(
      after: JournalPosition(sequence: 2, hash: AuditLog.hash(ofLine: stored[1].1)))
    let next = chain.append(record(3)).map {
      JournalRow(sequence: $0.sequence, bytes: $0.bytes, isSnapshot: false)
    }
    let again = stored.map { JournalRow(sequence: $0.0, bytes: $0.1, isSnapshot: false) }
    let connection = JournalConnection(
      configuration: cluster.configuration, timeout: .seconds(10), logger: Logger(label: "t"))
    try PostgresLogSink.commit(
      again + next, stream: stream, term: sink.term, lease: sink.leaseState,
      connection: connection)
    let after = try await storedLines(stream, in: cluster)
    #expect(after.map(\.0) == [1, 2, 3])
    #expect(try AuditLog.verify(after.flatMap { $0.1 + [UInt8(ascii: "\n")] }) == 3)

    // Other bytes at a stored `seq`: another writer's entry.
    var fork = try JournalChain(
      after: JournalPosition(sequence: 2, hash: AuditLog.hash(ofLine: stored[1].1)))
    let other = fork.append(record(30)).map {
      JournalRow(sequence: $0.sequence, bytes: $0.bytes, isSnapshot: false)
    }
    #expect(throws: PostgresJournalError.conflict(stream: stream, sequence: 3)) {
      try PostgresLogSink.commit(
        other, stream: stream, term: sink.term, lease: sink.leaseState, connection: connection)
    }
    connection.close()
  }
}
