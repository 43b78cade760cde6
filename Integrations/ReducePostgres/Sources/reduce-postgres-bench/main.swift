// Measures the PostgreSQL journal: durable audited dispatches per second with 1 and 8 clients,
// and the lag of a standby while 8 clients write. Not a test: the figures depend on the
// machine's disk and load.
//
// Usage: reduce-postgres-bench [--seconds N] [--socket PATH]
//   --seconds N    how long each workload runs (default 3; at most 60)
//   --socket PATH  a running PostgreSQL's unix socket (user postgres, database postgres);
//                  by default a throwaway cluster is made (initdb) and removed afterwards.
//
// Each workload is bounded in time and in count (at most 200,000 dispatches).
import Foundation
import PostgresNIO
import Reduce
import ReduceLogging
import ReducePostgres
import ReducePostgresCluster

struct Account: Codable, Equatable, Sendable {
  var balance = 0
}

struct Deposit: Action, Codable {
  var amount: Int
}

let balance = Mutator(\Account.balance) { (balance: inout Int, action: Deposit) in
  balance += action.amount
}

/// Counts under a lock.
final class Tally: @unchecked Sendable {
  // `@unchecked Sendable`: every property is reached only holding `lock`.
  private let lock = NSLock()
  private var count = 0
  private var failed = 0
  private var applied: [(Int, Date)] = []

  func add(_ succeeded: Bool) {
    lock.withLock { if succeeded { count += 1 } else { failed += 1 } }
  }

  func applied(_ sequence: Int, at time: Date) {
    lock.withLock { applied.append((sequence, time)) }
  }

  var totals: (succeeded: Int, failed: Int) { lock.withLock { (count, failed) } }
  var appliedTimes: [(Int, Date)] { lock.withLock { applied } }
}

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("reduce-postgres-bench: \(message)\n".utf8))
  exit(1)
}

/// The options: how long each workload runs, and a running PostgreSQL's socket, if given.
func options() -> (seconds: Double, socket: String?) {
  var seconds = 3.0
  var socket: String?
  var arguments = CommandLine.arguments.dropFirst()
  while let argument = arguments.popFirst() {
    switch argument {
    case "--seconds":
      guard let value = arguments.popFirst().flatMap(Double.init), value > 0, value <= 60 else {
        fail("--seconds takes a number of seconds from 0 to 60")
      }
      seconds = value
    case "--socket":
      guard let value = arguments.popFirst() else { fail("--socket takes a path") }
      socket = value
    default:
      fail(
        "unknown argument \(argument); usage: reduce-postgres-bench [--seconds N] [--socket PATH]")
    }
  }
  return (seconds, socket)
}

let (seconds, socket) = options()
let cluster: PostgresCluster?
let configuration: PostgresConnection.Configuration
if let socket {
  cluster = nil
  configuration = PostgresConnection.Configuration(
    unixSocketPath: socket, username: "postgres", password: nil, database: "postgres")
} else {
  do {
    cluster = try PostgresCluster()
  } catch {
    fail("\(error)")
  }
  configuration =
    cluster?.configuration
    ?? PostgresConnection.Configuration(
      unixSocketPath: "", username: "postgres", password: nil, database: "postgres")
}
defer { cluster?.remove() }

let maximumDispatches = 200_000

/// Dispatches from `clients` threads for the workload's time; returns what it measured.
func run(clients: Int, store: Store<Account>, seconds: Double) -> (
  dispatches: Int, failed: Int, elapsed: Double
) {
  let tally = Tally()
  let start = Date()
  let end = start + seconds
  let perClient = maximumDispatches / clients
  let group = DispatchGroup()
  for _ in 0..<clients {
    group.enter()
    Thread {
      var count = 0
      while count < perClient, Date() < end {
        count += 1
        tally.add((try? store.dispatch(Deposit(amount: 1)).get()) != nil)
      }
      group.leave()
    }.start()
  }
  group.wait()
  let totals = tally.totals
  return (totals.succeeded, totals.failed, Date().timeIntervalSince(start))
}

func openStore(_ stream: String) async -> (Store<Account>, PostgresLogSink) {
  do {
    let sink = try await PostgresLogSink.open(
      configuration: configuration, stream: stream, writer: "bench")
    let store = try Store(initialState: Account(), mutators: [balance])
    try store.use(AuditTrail<Account>(sink: sink))
    return (store, sink)
  } catch {
    fail("cannot open the journal: \(error)")
  }
}

func report(
  _ name: String, clients: Int, _ result: (dispatches: Int, failed: Int, elapsed: Double),
  sink: PostgresLogSink
) -> Double {
  let rate = Double(result.dispatches) / result.elapsed
  let commits = sink.commitCounts
  let perCommit = commits.commits > 0 ? Double(commits.entries) / Double(commits.commits) : 0
  print(
    "\(name): \(clients) client\(clients == 1 ? "" : "s"), \(result.dispatches) durable dispatches in "
      + String(format: "%.2f s: %.0f /s, %.2f entries per commit", result.elapsed, rate, perCommit)
      + (result.failed > 0 ? ", \(result.failed) failed" : ""))
  return rate
}

let suffix = UUID().uuidString.prefix(8)
let (single, singleSink) = await openStore("bench-1-\(suffix)")
let one = report(
  "durable-1", clients: 1, run(clients: 1, store: single, seconds: seconds), sink: singleSink)
let (eight, eightSink) = await openStore("bench-8-\(suffix)")
let many = report(
  "durable-8", clients: 8, run(clients: 8, store: eight, seconds: seconds), sink: eightSink)
print(String(format: "durable-8 / durable-1: %.1fx", many / max(one, 1)))

// Standby lag: a standby follows the stream while 8 clients write to it; an entry's lag is
// the time from its `ts` (taken when the primary's trail handled the action) to the moment the
// standby applied it.
let lagStream = "bench-lag-\(suffix)"
let (primary, lagSink) = await openStore(lagStream)
let standby: StandbyStore<Account>
do {
  standby = try StandbyStore(
    initialState: Account(), mutators: [balance],
    journal: PostgresJournalSource(configuration: configuration, stream: lagStream),
    actions: ReplayableActions([Deposit.self]), start: .beginning)
} catch {
  fail("cannot start the standby: \(error)")
}
let tally = Tally()
let subscription = standby.subscribe(initial: false) { state in
  tally.applied(state.balance, at: Date())
}
let lagRun = run(clients: 8, store: primary, seconds: seconds)
_ = report("standby-lag-8 (primary)", clients: 8, lagRun, sink: lagSink)
do {
  try await standby.waitUntilApplied(through: lagSink.committedSequence)
} catch {
  fail("the standby stopped: \(error)")
}
subscription.cancel()
let stamps: [Int: Date]
do {
  var found: [Int: Date] = [:]
  var reader = JournalReader(
    PostgresJournalSource(configuration: configuration, stream: lagStream), from: .beginning)
  while let entry = try await reader.next() {
    if let time = entry.timestamp { found[entry.sequence] = time }
  }
  stamps = found
} catch {
  fail("cannot read the journal: \(error)")
}
let lags = tally.appliedTimes.compactMap { sequence, applied in
  stamps[sequence].map { applied.timeIntervalSince($0) * 1000 }
}.sorted()
if lags.isEmpty {
  print("standby-lag-8: no entries applied")
} else {
  func percentile(_ fraction: Double) -> Double {
    lags[min(lags.count - 1, Int(Double(lags.count) * fraction))]
  }
  print(
    String(
      format: "standby-lag-8: p50 %.2f ms, p99 %.2f ms, max %.2f ms over %d entries",
      percentile(0.5), percentile(0.99), lags.last ?? 0, lags.count))
}
