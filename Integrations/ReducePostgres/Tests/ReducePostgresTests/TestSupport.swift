import Foundation
import NIOCore
import PostgresNIO
import Reduce
import ReduceLogging
import ReducePostgresCluster

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
