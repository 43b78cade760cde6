// reduce-journal-bench: figures of the file journal that a timed test cannot give.
//
//   swift run -c release reduce-journal-bench [--quick] [--entries N] [--dispatches N]
//     [--snapshot-every N]
//
// - standby lag: 8 clients dispatch durable (`.everyEntry`) audited deposits to a primary
//   store while a `StandbyStore` follows its log file through a `FileJournal`; for each entry,
//   the time from its commit on the primary to its application on the standby. Prints p50,
//   p99 and the maximum.
// - replay: a journal of N entries (1,000,000 by default) with a snapshot every 10,000
//   (`WriteAuditSnapshot`); the time to rebuild the state from its newest snapshot
//   (`AuditLog.replay(from:)`), from its first entry (`start: .beginning`, as with no
//   snapshot), and with the file replay (`replay(contentsOf:)`, which verifies the whole file
//   first).
//
// Measure release builds only.
import Foundation
import Reduce
import ReduceLogging
import Synchronization

struct Ledger: Codable, Equatable, Sendable {
  var balances: [Int: Int] = [:]
}

enum LedgerAction: Action, Codable {
  case deposited(account: Int, amount: Int)
}

let balances = Mutator(\Ledger.balances) { (balances: inout [Int: Int], action: LedgerAction) in
  switch action {
  case .deposited(let account, let amount): balances[account, default: 0] += amount
  }
}

struct Options {
  var entries = 1_000_000
  var dispatches = 16_000
  var snapshotEvery = 10_000
}

func parse(_ arguments: [String]) -> Options? {
  var options = Options()
  var index = 0
  while index < arguments.count {
    switch arguments[index] {
    case "--quick":
      options.entries = 20_000
      options.dispatches = 800
      options.snapshotEvery = 1_000
      index += 1
    case "--entries", "--dispatches", "--snapshot-every":
      guard index + 1 < arguments.count, let value = Int(arguments[index + 1]), value >= 8 else {
        return nil
      }
      switch arguments[index] {
      case "--entries": options.entries = value
      case "--dispatches": options.dispatches = value
      default: options.snapshotEvery = value
      }
      index += 2
    default:
      return nil
    }
  }
  return options
}

func temporaryPath(_ name: String) -> String {
  FileManager.default.temporaryDirectory
    .appendingPathComponent("reduce-journal-bench-\(name)-\(UUID().uuidString).log").path
}

func removeLog(_ path: String) {
  let url = URL(fileURLWithPath: path)
  let directory = url.deletingLastPathComponent().path
  for file in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
  where file.hasPrefix(url.lastPathComponent) {
    try? FileManager.default.removeItem(atPath: directory + "/" + file)
  }
}

func percentile(_ sorted: [Duration], _ fraction: Double) -> Duration {
  guard !sorted.isEmpty else { return .zero }
  return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
}

func milliseconds(_ duration: Duration) -> String {
  let (seconds, attoseconds) = duration.components
  let value = Double(seconds) * 1e3 + Double(attoseconds) / 1e15
  return String(format: "%.2f ms", value)
}

/// Standby lag while 8 clients write.
func measureLag(dispatches: Int) async throws {
  let path = temporaryPath("lag")
  defer { removeLog(path) }
  let clients = 8
  let perClient = dispatches / clients
  let total = perClient * clients
  let primary = try Store(
    initialState: Ledger(), mutators: [balances],
    middleware: [AuditTrail<Ledger>(path: path, durability: .everyEntry)])
  // The k-th change committed is the entry of `seq` k: no failures, no snapshots.
  let committed = Mutex<[ContinuousClock.Instant]>([])
  let applied = Mutex<[ContinuousClock.Instant]>([])
  let primaryWatch = primary.subscribeToChanges { _ in
    committed.withLock { $0.append(.now) }
  }
  let standby = try StandbyStore(
    initialState: Ledger(), mutators: [balances], journal: FileJournal(path: path),
    actions: ReplayableActions([LedgerAction.self]), start: .beginning,
    pollTimeout: .milliseconds(100))
  let standbyWatch = standby.subscribeToChanges { _ in
    applied.withLock { $0.append(.now) }
  }
  let start = ContinuousClock.now
  let done = Mutex(0)
  for client in 0..<clients {
    Thread {
      for index in 0..<perClient {
        primary.dispatch(LedgerAction.deposited(account: client * 1_000 + index % 100, amount: 1))
      }
      done.withLock { $0 += 1 }
    }.start()
  }
  while done.withLock({ $0 }) < clients { try await Task.sleep(for: .milliseconds(5)) }
  let writing = start.duration(to: .now)
  try await standby.waitUntilApplied(through: total)
  let commits = committed.withLock { $0 }
  let applications = applied.withLock { $0 }
  let lags = zip(commits, applications).map { $0.duration(to: $1) }.sorted()
  print("standby lag, 8 clients writing a durable file journal (.everyEntry)")
  print(
    "  \(total) entries in \(milliseconds(writing)) (\(Int(Double(total) / (Double(writing.components.seconds) + Double(writing.components.attoseconds) / 1e18))) a second)"
  )
  print(
    "  lag from commit on the primary to application on the standby: p50 "
      + "\(milliseconds(percentile(lags, 0.5))), p99 \(milliseconds(percentile(lags, 0.99))), "
      + "max \(milliseconds(lags.last ?? .zero))")
  primaryWatch.cancel()
  standbyWatch.cancel()
  standby.stop()
}

/// Replay of a long journal, from its newest snapshot and from its first entry.
func measureReplay(entries: Int, snapshotEvery: Int) async throws {
  let path = temporaryPath("replay")
  defer { removeLog(path) }
  let writeStart = ContinuousClock.now
  do {
    let store = try Store(
      initialState: Ledger(), mutators: [balances],
      middleware: [AuditTrail<Ledger>(path: path, durability: .buffered)])
    var written = 0
    while written < entries {
      if written > 0, written % snapshotEvery == 0 {
        _ = try store.dispatch(WriteAuditSnapshot()).get()
      } else {
        store.dispatch(LedgerAction.deposited(account: written % 1_000, amount: 1))
      }
      written += 1
    }
  }
  let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
  print(
    "replay of a journal of \(entries) entries (a snapshot every \(snapshotEvery)), \(size / 1_000_000) MB"
  )
  print("  written in \(milliseconds(writeStart.duration(to: .now)))")
  let actions = ReplayableActions([LedgerAction.self])
  var reference: Ledger?
  for (label, start) in [
    ("from the newest snapshot", JournalStart.newestSnapshot),
    ("from the first entry (no snapshot)", .beginning),
  ] {
    let store = try Store(initialState: Ledger(), mutators: [balances])
    let began = ContinuousClock.now
    let position = try await AuditLog.replay(
      from: FileJournal(path: path), into: store, actions: actions, start: start)
    let took = began.duration(to: .now)
    if let reference, reference != store.state { print("  MISMATCH: \(label)") }
    reference = store.state
    print(
      "  AuditLog.replay(from:) \(label): \(milliseconds(took)), through entry \(position.sequence)"
    )
  }
  let store = try Store(initialState: Ledger(), mutators: [balances])
  let began = ContinuousClock.now
  try AuditLog.replay(contentsOf: URL(fileURLWithPath: path), into: store, actions: actions)
  print(
    "  AuditLog.replay(contentsOf:) (verifies the whole file, then replays from the newest "
      + "snapshot): \(milliseconds(began.duration(to: .now)))")
  if let reference, reference != store.state { print("  MISMATCH: replay(contentsOf:)") }
}

guard let options = parse(Array(CommandLine.arguments.dropFirst())) else {
  FileHandle.standardError.write(
    Data(
      ("usage: reduce-journal-bench [--quick] [--entries N] [--dispatches N] "
        + "[--snapshot-every N]\n").utf8))
  exit(64)
}
do {
  try await measureLag(dispatches: options.dispatches)
  try await measureReplay(entries: options.entries, snapshotEvery: options.snapshotEvery)
} catch {
  FileHandle.standardError.write(Data("reduce-journal-bench: \(error)\n".utf8))
  exit(1)
}
