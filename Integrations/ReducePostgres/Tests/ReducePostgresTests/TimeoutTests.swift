import Foundation
import Logging
import PostgresNIO
import Reduce
import ReduceLogging
import ReducePostgresCluster
import Testing

@testable import ReducePostgres

@Suite(.timeLimit(.minutes(2))) struct TimeoutTests {
  @Test(
    "a server that stops answering fails the dispatch with a typed timeout, and its entry is committed once it answers again"
  )
  func frozenServer() async throws {
    let cluster = try PostgresCluster()
    defer { cluster.remove() }
    let stream = uniqueStream()
    let sink = try await PostgresLogSink.open(
      configuration: cluster.configuration, stream: stream, writer: "a", timeout: .seconds(1))
    let store = try auditedStore(sink)
    _ = try store.dispatch(Deposit(amount: 1)).get()

    // Freeze the server process that serves the sink (every client backend but the test's own).
    let connection = try await PostgresConnection.connect(
      on: PostgresLogSink.eventLoopGroup.next(), configuration: cluster.configuration, id: 9,
      logger: Logger(label: "tests"))
    var frozen: [Int32] = []
    let rows = try await connection.query(
      """
      SELECT pid FROM pg_stat_activity
        WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()
      """, logger: Logger(label: "tests"))
    for try await pid in rows.decode(Int32.self) { frozen.append(pid) }
    try await connection.close()
    #expect(!frozen.isEmpty)
    for pid in frozen { kill(pid, SIGSTOP) }
    let stalled = store.dispatch(Deposit(amount: 2))
    for pid in frozen { kill(pid, SIGCONT) }
    guard case .failure(.middlewareFailed(_, _, let underlying)) = stalled else {
      Issue.record("the dispatch did not fail: \(stalled)")
      return
    }
    #expect(underlying as? PostgresJournalError == .timedOut(stream: stream, after: .seconds(1)))

    // The next dispatch first commits the kept entry (or finds it committed by the thawed
    // server process), then its own.
    _ = try store.dispatch(Deposit(amount: 3)).get()
    let lines = try await storedLines(stream, in: cluster)
    #expect(try AuditLog.verify(lines.flatMap { $0.1 + [UInt8(ascii: "\n")] }) == 3)
    #expect(store.state.deposits == [1, 2, 3])
  }
}
