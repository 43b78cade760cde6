import Foundation
import PostgresNIO
import Reduce
import ReduceLogging
import ReducePostgresCluster
import Testing

@testable import ReducePostgres

@Suite(.timeLimit(.minutes(2))) struct JournalSourceTests {
  @Test("a snapshot is marked in the table, and a replay starts at the newest one")
  func snapshots() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    let sink = try await PostgresLogSink.open(
      configuration: cluster.configuration, stream: stream, writer: "a")
    let store = try auditedStore(sink)
    for amount in 1...3 { _ = try store.dispatch(Deposit(amount: amount)).get() }
    _ = try store.dispatch(WriteAuditSnapshot()).get()
    for amount in 4...5 { _ = try store.dispatch(Deposit(amount: amount)).get() }
    let source = PostgresJournalSource(configuration: cluster.configuration, stream: stream)
    #expect(try await source.newestSnapshot(through: nil) == 4)
    #expect(try await source.newestSnapshot(through: 3) == nil)
    #expect(try await source.lastSequence() == 6)
    let replayed = try Store(initialState: Account(), mutators: [balance, deposits])
    let position = try await AuditLog.replay(
      from: source, into: replayed, actions: ReplayableActions([Deposit.self]))
    #expect(position.sequence == 6)
    #expect(replayed.state == store.state)
    #expect(try AuditLog.verify(try await storedLog(stream, in: cluster)) == 6)
  }

  @Test("keyed checkpoints verify with the writer's key, and not with another")
  func checkpoints() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    let key = try AuditCheckpoints.Key(Array("the writer's key".utf8))
    let sink = try await PostgresLogSink.open(
      configuration: cluster.configuration, stream: stream, writer: "a",
      checkpoints: try AuditCheckpoints(key: key, every: 3))
    let store = try auditedStore(sink)
    for amount in 1...7 { _ = try store.dispatch(Deposit(amount: amount)).get() }
    let source = PostgresJournalSource(configuration: cluster.configuration, stream: stream)
    var reader = JournalReader(source, from: .beginning, key: key)
    var kinds: [JournalLine.Kind] = []
    while let entry = try await reader.next() { kinds.append(entry.kind) }
    #expect(kinds.filter { $0 == .checkpoint }.count >= 3)
    #expect(kinds.filter { $0 == .entry }.count == 7)
    var wrong = JournalReader(
      source, from: .beginning, key: try AuditCheckpoints.Key(Array("another key".utf8)))
    await #expect(throws: JournalError.self) {
      while try await wrong.next() != nil {}
    }
  }

  @Test("a reader finds an edited row")
  func editedRow() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    let sink = try await PostgresLogSink.open(
      configuration: cluster.configuration, stream: stream, writer: "a")
    let store = try auditedStore(sink)
    for amount in 1...3 { _ = try store.dispatch(Deposit(amount: amount)).get() }
    try await execute(
      """
      UPDATE reduce_journal SET line = convert_to(replace(convert_from(line, 'UTF8'),
        '"amount":2', '"amount":200'), 'UTF8') WHERE stream = \(stream) AND seq = 2
      """, in: cluster)
    var reader = JournalReader(
      PostgresJournalSource(configuration: cluster.configuration, stream: stream),
      from: .beginning)
    await #expect(throws: JournalError.self) {
      while try await reader.next() != nil {}
    }
  }

  @Test("an unknown stream reads as empty, whether or not the tables exist yet")
  func emptyStream() async throws {
    let cluster = try sharedCluster.get()
    let source = PostgresJournalSource(
      configuration: cluster.configuration, stream: uniqueStream())
    #expect(try await source.lines(from: 1, limit: 10).isEmpty)
    #expect(try await source.lastSequence() == 0)
    #expect(try await source.newestSnapshot(through: nil) == nil)
  }
}
