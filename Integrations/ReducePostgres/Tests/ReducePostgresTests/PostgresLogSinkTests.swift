import Foundation
import PostgresNIO
import Reduce
import ReduceLogging
import ReducePostgresCluster
import Testing

@testable import ReducePostgres

@Suite(.timeLimit(.minutes(2))) struct PostgresLogSinkTests {
  @Test("the stored lines, joined with newlines, verify as a chained log byte for byte")
  func linesVerify() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    let sink = try await PostgresLogSink.open(
      configuration: cluster.configuration, stream: stream, writer: "a")
    let store = try auditedStore(sink)
    for amount in 1...20 { _ = try store.dispatch(Deposit(amount: amount)).get() }
    let log = try await storedLog(stream, in: cluster)
    #expect(try AuditLog.verify(log) == 20)
    let lines = try await storedLines(stream, in: cluster)
    #expect(lines.map(\.0) == Array(1...20))
    let first = try AuditLog.Entry(
      parsing: String(decoding: lines[0].1, as: UTF8.self), line: 1)
    #expect(first.previousHash == AuditLog.genesisHash)
    #expect(first.action == "Deposit")
    #expect(first.payload == #"{"amount":1}"#)
    #expect(sink.committedSequence == 20)
  }

  @Test("a refused action is recorded as failed and changes nothing")
  func failedOutcome() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    let sink = try await PostgresLogSink.open(
      configuration: cluster.configuration, stream: stream, writer: "a")
    let store = try Store(initialState: Account(), mutators: [balance, deposits, overdraw])
    try store.use(AuditTrail<Account>(sink: sink))
    _ = try store.dispatch(Deposit(amount: 5)).get()
    #expect(throws: DispatchError.self) { try store.dispatch(Overdraw()).get() }
    #expect(store.state.balance == 5)
    let lines = try await storedLines(stream, in: cluster)
    #expect(lines.count == 2)
    let second = try AuditLog.Entry(parsing: String(decoding: lines[1].1, as: UTF8.self), line: 2)
    #expect(second.succeeded == false)
    #expect(try AuditLog.verify(try await storedLog(stream, in: cluster)) == 2)
  }

  @Test("a writer that opens the stream again continues its chain")
  func reopenContinues() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    let first = try await PostgresLogSink.open(
      configuration: cluster.configuration, stream: stream, writer: "a")
    _ = try auditedStore(first).dispatch(Deposit(amount: 1)).get()
    first.close()
    let second = try await PostgresLogSink.open(
      configuration: cluster.configuration, stream: stream, writer: "a")
    #expect(second.openedPosition.sequence == 1)
    _ = try auditedStore(second).dispatch(Deposit(amount: 2)).get()
    #expect(try AuditLog.verify(try await storedLog(stream, in: cluster)) == 2)
  }

  @Test("concurrent dispatchers share commits, and their lines verify")
  func groupCommit() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    let sink = try await PostgresLogSink.open(
      configuration: cluster.configuration, stream: stream, writer: "a")
    let store = try auditedStore(sink)
    await onThreads(8) { _ in
      for _ in 0..<25 { _ = store.dispatch(Deposit(amount: 1)) }
    }
    #expect(store.state.balance == 200)
    let counts = sink.commitCounts
    #expect(counts.entries == 200)
    // Each commit took every line queued meanwhile: fewer commits than entries.
    #expect(counts.commits < 200)
    #expect(try AuditLog.verify(try await storedLog(stream, in: cluster)) == 200)
  }

  @Test("a text format is refused with a typed error")
  func textFormatRefused() async throws {
    let cluster = try sharedCluster.get()
    let sink = try await PostgresLogSink.open(
      configuration: cluster.configuration, stream: uniqueStream(), writer: "a")
    let entry = LogEntry(
      sequence: 1, timestamp: Date(), action: "Deposit", payload: nil, outcome: .ok,
      duration: .zero, changes: nil)
    #expect(throws: PostgresJournalError.notJSONLines(stream: sink.stream)) {
      try sink.append(LogRecord(entry: entry, format: .text(style: .compact)))
    }
  }

  @Test("an empty stream or writer name is refused")
  func emptyNames() async throws {
    let cluster = try sharedCluster.get()
    await #expect(throws: PostgresJournalError.invalidName("stream name")) {
      _ = try await PostgresLogSink.open(
        configuration: cluster.configuration, stream: "", writer: "a")
    }
    await #expect(throws: PostgresJournalError.invalidName("writer name")) {
      _ = try await PostgresLogSink.open(
        configuration: cluster.configuration, stream: "s", writer: "")
    }
  }

  @Test("a stream whose last line was edited by hand is not continued")
  func editedLastLine() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    let sink = try await PostgresLogSink.open(
      configuration: cluster.configuration, stream: stream, writer: "a")
    _ = try auditedStore(sink).dispatch(Deposit(amount: 1)).get()
    sink.close()
    try await execute(
      "UPDATE reduce_journal SET line = 'not json'::bytea WHERE stream = \(stream)", in: cluster)
    await #expect(throws: PostgresJournalError.self) {
      _ = try await PostgresLogSink.open(
        configuration: cluster.configuration, stream: stream, writer: "a")
    }
  }

  @Test("a closed sink refuses further changes, which are then not made")
  func closedSink() async throws {
    let cluster = try sharedCluster.get()
    let sink = try await PostgresLogSink.open(
      configuration: cluster.configuration, stream: uniqueStream(), writer: "a")
    let store = try auditedStore(sink)
    _ = try store.dispatch(Deposit(amount: 1)).get()
    sink.close()
    let result = store.dispatch(Deposit(amount: 2))
    guard case .failure(.middlewareFailed(_, _, let underlying)) = result else {
      Issue.record("the dispatch was not refused: \(result)")
      return
    }
    #expect(underlying as? PostgresJournalError == .closed(stream: sink.stream))
    #expect(store.state.balance == 1)
  }
}
