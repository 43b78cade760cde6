import Foundation
import NIOCore
import PostgresNIO
import Reduce
import ReduceLogging
import ReducePostgresCluster
import Testing

@testable import ReducePostgres

/// The cluster the tests share, made on first use and removed when the test process exits.
///
/// Each test works on a stream of its own; tests that stop PostgreSQL make a cluster of their
/// own.
let sharedCluster: Result<PostgresCluster, PostgresCluster.Failure> = {
  do {
    let cluster = try PostgresCluster()
    atexit { try? sharedCluster.get().remove() }
    return .success(cluster)
  } catch let failure as PostgresCluster.Failure {
    return .failure(failure)
  } catch {
    return .failure(PostgresCluster.Failure(description: "\(error)"))
  }
}()

/// A stream name no other test uses.
func uniqueStream(_ label: String = #function) -> String {
  let name = label.prefix { $0.isLetter || $0.isNumber }
  return "\(name)-\(UUID().uuidString.prefix(8))"
}

/// A ledger of one account, the state the tests audit.
struct Account: Codable, Equatable, Sendable {
  var balance = 0
  var deposits: [Int] = []
  var refusals = 0
}

/// A deposit into the account.
struct Deposit: Action, Codable, Equatable {
  var amount: Int
}

/// A deposit the account refuses (its mutator throws).
struct Overdraw: Action, Codable, Equatable {}

struct Refused: Error {}

let balance = Mutator(\Account.balance) { (balance: inout Int, action: Deposit) in
  balance += action.amount
}
let deposits = Mutator(\Account.deposits) { (deposits: inout [Int], action: Deposit) in
  deposits.append(action.amount)
}
let overdraw = Mutator(\Account.refusals) { (_: inout Int, _: Overdraw) throws in
  throw Refused()
}

/// Makes a store audited by `sink`.
func auditedStore(_ sink: PostgresLogSink, initial: Account = Account()) throws -> Store<Account> {
  let store = try Store(initialState: initial, mutators: [balance, deposits])
  try store.use(AuditTrail<Account>(sink: sink))
  return store
}

/// The short lease of these tests: 4 s, of which the commit timeout (2 s) is the margin, so a
/// lease runs 2 s on the writer's clock after each renewal.
let testLease = Duration.seconds(4)
let testTimeout = Duration.seconds(2)

/// Opens a sink of `writer` on `stream`, with the tests' short lease unless told otherwise, and
/// `PostgresLogSink.open`'s default `takeoverTimeout` (60 s).
func openSink(
  _ stream: String, writer: String, in cluster: PostgresCluster, takingOver: Bool = false,
  ignoringHolderLease: Bool = false, takeoverTimeout: Duration = .seconds(60),
  lease: Duration = testLease, timeout: Duration = testTimeout
) async throws(PostgresJournalError) -> PostgresLogSink {
  try await PostgresLogSink.open(
    configuration: cluster.configuration, stream: stream, writer: writer,
    takingOver: takingOver, ignoringHolderLease: ignoringHolderLease,
    takeoverTimeout: takeoverTimeout, lease: lease, timeout: timeout)
}

/// Opens a sink of `writer` on `stream` (the short lease unless told otherwise) and a store it
/// audits, and commits a deposit of 1 through them: the state is then ``afterOneDeposit``.
func writerWithOneDeposit(
  _ stream: String, writer: String = "a", in cluster: PostgresCluster,
  lease: Duration = testLease, timeout: Duration = testTimeout
) async throws -> (sink: PostgresLogSink, store: Store<Account>) {
  let sink = try await openSink(
    stream, writer: writer, in: cluster, lease: lease, timeout: timeout)
  let store = try auditedStore(sink)
  _ = try store.dispatch(Deposit(amount: 1)).get()
  return (sink, store)
}

/// The state of a store after ``writerWithOneDeposit(_:writer:in:lease:timeout:)``.
let afterOneDeposit = Account(balance: 1, deposits: [1])

/// Continues a stream after its first deposit with `sink` (its next holder, or its holder's
/// next session): commits a deposit of 2 through a store it audits, which starts from
/// ``afterOneDeposit``, and returns how many entries the stream's lines then verify to.
func continueAfterOneDeposit(
  with sink: PostgresLogSink, in cluster: PostgresCluster
) async throws -> Int {
  _ = try auditedStore(sink, initial: afterOneDeposit).dispatch(Deposit(amount: 2)).get()
  return try await verifiedEntries(sink.stream, in: cluster)
}

/// How many entries a stream's lines, joined as a log, verify to (`AuditLog.verify(_:)`).
func verifiedEntries(_ stream: String, in cluster: PostgresCluster) async throws -> Int {
  try AuditLog.verify(try await storedLog(stream, in: cluster))
}

/// Reads a stream's lines, in `seq` order, straight from the table.
func storedLines(_ stream: String, in cluster: PostgresCluster) async throws -> [(Int, [UInt8])] {
  let connection = try await PostgresConnection.connect(
    on: PostgresLogSink.eventLoopGroup.next(), configuration: cluster.configuration, id: 9,
    logger: Logger(label: "tests"))
  var lines: [(Int, [UInt8])] = []
  do {
    let rows = try await connection.query(
      "SELECT seq, line FROM reduce_journal WHERE stream = \(stream) ORDER BY seq",
      logger: Logger(label: "tests"))
    for try await (seq, line) in rows.decode((Int64, ByteBuffer).self) {
      lines.append((Int(seq), Array(buffer: line)))
    }
  } catch {
    try? await connection.close()
    throw error
  }
  try await connection.close()
  return lines
}

/// A stream's lines joined with newlines, as a log file would hold them.
func storedLog(_ stream: String, in cluster: PostgresCluster) async throws -> [UInt8] {
  try await storedLines(stream, in: cluster).flatMap { $0.1 + [UInt8(ascii: "\n")] }
}

/// Runs one statement on the cluster.
func execute(_ query: PostgresQuery, in cluster: PostgresCluster) async throws {
  let connection = try await PostgresConnection.connect(
    on: PostgresLogSink.eventLoopGroup.next(), configuration: cluster.configuration, id: 9,
    logger: Logger(label: "tests"))
  do {
    _ = try await connection.query(query, logger: Logger(label: "tests"))
  } catch {
    try? await connection.close()
    throw error
  }
  try await connection.close()
}

/// Runs `body` on `count` threads at once, and waits for all of them without blocking the task:
/// dispatches to an audited store block their thread until the commit, as a blocking `fsync`
/// would.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
  await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
    let remaining = Countdown(count, then: { continuation.resume() })
    for index in 0..<count {
      Thread {
        body(index)
        remaining.tick()
      }.start()
    }
  }
}

/// Runs a blocking `body` (waiting for a child process's line, killing it) on a thread of its
/// own, and returns its result without blocking the task: the cooperative pool has one thread
/// per core (two here), and a test that blocks one of them for seconds starves the tests that
/// run meanwhile (a standby's catch-up, timed to a second, among them).
func offPool<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
  await withCheckedContinuation { (continuation: CheckedContinuation<Value, Never>) in
    Thread { continuation.resume(returning: body()) }.start()
  }
}

/// Calls `then` when ``tick()`` was called `count` times.
final class Countdown: @unchecked Sendable {
  // `@unchecked`: `remaining` is reached only holding `lock`.
  private let lock = NSLock()
  private var remaining: Int
  private let then: @Sendable () -> Void

  init(_ count: Int, then: @escaping @Sendable () -> Void) {
    remaining = count
    self.then = then
  }

  func tick() {
    let done = lock.withLock {
      remaining -= 1
      return remaining == 0
    }
    if done { then() }
  }
}

/// The journal error under a dispatch's failure, if it is one.
func journalError(_ error: DispatchError) -> PostgresJournalError? {
  guard case .middlewareFailed(_, _, let underlying) = error else { return nil }
  return underlying as? PostgresJournalError
}

/// Dispatches a deposit of `amount` that the store's sink should refuse, and returns the journal
/// error the dispatch failed with; records an issue, and returns nil, when the deposit was
/// accepted or failed for another reason.
func refusedDeposit(
  _ amount: Int, to store: Store<Account>, sourceLocation: SourceLocation = #_sourceLocation
) -> PostgresJournalError? {
  guard case .failure(let error) = store.dispatch(Deposit(amount: amount)) else {
    Issue.record("the deposit of \(amount) was accepted", sourceLocation: sourceLocation)
    return nil
  }
  guard let refusal = journalError(error) else {
    Issue.record(
      "the deposit of \(amount) failed with \(error)", sourceLocation: sourceLocation)
    return nil
  }
  return refusal
}

/// Replays a stream from its beginning through `sequence` into a new store of `Account`.
func replayed(
  _ stream: String, in cluster: PostgresCluster, through sequence: Int
) async throws -> Account {
  let store = try Store(initialState: Account(), mutators: [balance, deposits])
  let position = try await AuditLog.replay(
    from: PostgresJournalSource(configuration: cluster.configuration, stream: stream),
    into: store, actions: ReplayableActions([Deposit.self]), start: .beginning,
    through: sequence)
  #expect(position.sequence == sequence)
  return store.state
}

/// The stream's `lease_until - now()` by PostgreSQL's clock, in seconds.
func leaseRemaining(_ stream: String, in cluster: PostgresCluster) async throws -> Double {
  let connection = try await PostgresConnection.connect(
    on: PostgresLogSink.eventLoopGroup.next(), configuration: cluster.configuration, id: 9,
    logger: Logger(label: "tests"))
  var remaining = -1.0
  do {
    let rows = try await connection.query(
      """
      SELECT extract(epoch FROM lease_until - now())::float8 FROM reduce_journal_streams
        WHERE stream = \(stream)
      """, logger: Logger(label: "tests"))
    for try await value in rows.decode(Double.self) { remaining = value }
  } catch {
    try? await connection.close()
    throw error
  }
  try await connection.close()
  return remaining
}
