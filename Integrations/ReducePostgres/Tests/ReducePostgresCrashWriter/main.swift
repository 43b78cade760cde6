// A primary that keeps its journal in PostgreSQL, for the crash and failover tests of
// Tests/ReducePostgresTests: it opens its stream (refused when another writer holds it),
// rebuilds its state from the journal, and deposits one unit at a time until it is killed, or
// until a dispatch fails.
//
// Usage: ReducePostgresCrashWriter SOCKET STREAM WRITER [COUNT]
//
// It prints `start BALANCE SEQ` once its state is rebuilt, then `ack BALANCE` after each
// dispatch returned, and `failed ERROR` when one failed (then goes on, after COUNT dispatches
// stops), each line flushed at once. It exits with 3 when its stream is held by another writer.
// With REDUCE_PG_LEASE_SECONDS set, its lease is that long and its commit timeout half of it.
// With REDUCE_PG_IGNORING_HOLDER_LEASE=1, it opens its stream at once even if the lease of an
// earlier process of the same writer is still live: for a restart by a supervisor that killed
// that process (SIGKILL) and so knows it is dead.
import Foundation
import PostgresNIO
import Reduce
import ReduceLogging
import ReducePostgres

struct Account: Codable, Equatable, Sendable {
  var balance = 0
  var deposits: [Int] = []
}

struct Deposit: Action, Codable {
  var amount: Int
}

let balance = Mutator(\Account.balance) { (balance: inout Int, action: Deposit) in
  balance += action.amount
}
let deposits = Mutator(\Account.deposits) { (deposits: inout [Int], action: Deposit) in
  deposits.append(action.amount)
}

func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments
guard arguments.count == 4 || arguments.count == 5 else {
  FileHandle.standardError.write(
    Data("usage: ReducePostgresCrashWriter SOCKET STREAM WRITER [COUNT]\n".utf8))
  exit(64)
}
let configuration = PostgresConnection.Configuration(
  unixSocketPath: arguments[1], username: "postgres", password: nil, database: "postgres")
let stream = arguments[2]
let count = arguments.count == 5 ? Int(arguments[4]) : nil
// REDUCE_PG_LEASE_SECONDS: a lease of that many seconds with a commit timeout of half of it
// (the failover test's short lease), rather than the defaults.
let lease = ProcessInfo.processInfo.environment["REDUCE_PG_LEASE_SECONDS"].flatMap(Double.init)
let ignoringHolderLease =
  ProcessInfo.processInfo.environment["REDUCE_PG_IGNORING_HOLDER_LEASE"] == "1"
do {
  let sink: PostgresLogSink
  if let lease {
    sink = try await PostgresLogSink.open(
      configuration: configuration, stream: stream, writer: arguments[3],
      ignoringHolderLease: ignoringHolderLease, lease: .milliseconds(Int64(lease * 1000)),
      timeout: .milliseconds(Int64(lease * 500)))
  } else {
    sink = try await PostgresLogSink.open(
      configuration: configuration, stream: stream, writer: arguments[3],
      ignoringHolderLease: ignoringHolderLease)
  }
  let store = try Store(initialState: Account(), mutators: [balance, deposits])
  let position = try await AuditLog.replay(
    from: PostgresJournalSource(configuration: configuration, stream: stream), into: store,
    actions: ReplayableActions([Deposit.self]), start: .beginning,
    through: sink.openedPosition.sequence)
  guard position == sink.openedPosition else {
    FileHandle.standardError.write(
      Data("replayed to \(position), the sink opened at \(sink.openedPosition)\n".utf8))
    exit(1)
  }
  try store.use(AuditTrail<Account>(sink: sink))
  say("start \(store.state.balance) \(position.sequence)")
  var dispatched = 0
  while count.map({ dispatched < $0 }) ?? true {
    dispatched += 1
    switch store.dispatch(Deposit(amount: 1)) {
    case .success(let account): say("ack \(account.balance)")
    case .failure(let error): say("failed \(error)")
    }
  }
  exit(0)
} catch PostgresJournalError.fenced(_, let holder) {
  say("fenced \(holder)")
  exit(3)
} catch {
  FileHandle.standardError.write(Data("ReducePostgresCrashWriter: \(error)\n".utf8))
  exit(1)
}
