import Foundation
import Reduce
import ReduceLogging

// MARK: The ledger of Guides/AuditTrail.md
//
// Accounts with balances, deposits and withdrawals, and an overdraft check written as the
// guides recommend (`validate:` then `reduce:`): the cost of a dispatch, audited or not, must
// not grow with the number of accounts.

struct BenchLedger: Sendable {
  var balances: [Int: Int]

  init(accounts: Int) {
    balances = Dictionary(uniqueKeysWithValues: (0..<accounts).map { ($0, 1_000) })
  }
}

enum LedgerEntry: Action, Codable {
  case deposited(account: Int, amount: Int)
  case withdrew(account: Int, amount: Int)

  /// The account the entry changes.
  var account: Int {
    switch self {
    case .deposited(let account, _), .withdrew(let account, _): account
    }
  }
}

struct Overdrawn: Error {}

let ledgerBalances = Mutator(
  \BenchLedger.balances,
  validate: { (balances: [Int: Int], action: LedgerEntry) throws(Overdrawn) in
    if case .withdrew(let account, let amount) = action, balances[account, default: 0] < amount {
      throw Overdrawn()
    }
  },
  reduce: { balances, action in
    switch action {
    case .deposited(let account, let amount): balances[account, default: 0] += amount
    case .withdrew(let account, let amount): balances[account, default: 0] -= amount
    }
  })

/// The `index`th action of a run over `accounts` accounts: a deposit, then a withdrawal of the
/// same amount, account after account.
func ledgerAction(_ index: Int, accounts: Int) -> LedgerEntry {
  let account = (index / 2) % accounts
  return index.isMultiple(of: 2)
    ? .deposited(account: account, amount: 5) : .withdrew(account: account, amount: 5)
}

/// The same changes, made to a plain dictionary.
func ledgerBaseline(accounts: Int) -> (Int) -> () -> Void {
  { count in
    var ledger = BenchLedger(accounts: accounts)
    return {
      for index in 0..<count {
        switch ledgerAction(index, accounts: accounts) {
        case .deposited(let account, let amount): ledger.balances[account, default: 0] += amount
        case .withdrew(let account, let amount):
          if ledger.balances[account, default: 0] >= amount {
            ledger.balances[account, default: 0] -= amount
          }
        }
      }
      blackHole(ledger.balances.count)
    }
  }
}

/// A fresh directory for the benchmark's logs, on the disk the working directory is on (a
/// temporary directory may be in memory, where a flush costs nothing).
func benchLogDirectory() throws -> URL {
  let directory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    .appendingPathComponent(".build/reduce-bench-logs/\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  return directory
}

/// A ledger store of `accounts` accounts, with an audit trail to a new chained file when
/// `durability` is given.
func ledgerStore(accounts: Int, durability: FileLogSink.Durability?) throws -> Store<BenchLedger> {
  try ledgerStore(accounts: accounts, audit: durability.map(auditTrail))
}

/// A ledger store of `accounts` accounts, with `audit` in its chain if given.
func ledgerStore(accounts: Int, audit: AuditTrail<BenchLedger>?) throws -> Store<BenchLedger> {
  try Store(
    initialState: BenchLedger(accounts: accounts), mutators: [ledgerBalances],
    middleware: audit.map { [$0] } ?? [])
}

/// An audit trail to a new chained file.
func auditTrail(durability: FileLogSink.Durability) throws -> AuditTrail<BenchLedger> {
  let path = try benchLogDirectory().appendingPathComponent("audit.log").path
  return AuditTrail<BenchLedger>(path: path, durability: durability)
}

func ledgerWorkload(
  _ name: String, accounts: Int, durability: FileLogSink.Durability?, dispatches: Int,
  target: Target?
) -> Workload {
  Workload(
    name, dispatches: dispatches, target: target,
    store: { count in
      let store = try ledgerStore(accounts: accounts, durability: durability)
      return {
        for index in 0..<count { store.dispatch(ledgerAction(index, accounts: accounts)) }
      }
    },
    baseline: ledgerBaseline(accounts: accounts))
}

/// `clients` threads dispatching their share of a durable audited ledger's actions at once, each
/// reading back the balance it changed, as the request handler of Guides/AuditTrail.md does.
///
/// Each run adds its entries (one a dispatch) and its log's flushes to the workload's tally.
func durableWorkload(_ name: String, clients: Int, target: Target?) -> Workload {
  let tally = FlushTally()
  return Workload(
    name, dispatches: 2_000, target: target,
    concurrency: clients == 1 ? "1 thread" : "\(clients) threads",
    store: { count in
      let audit = try auditTrail(durability: .everyEntry)
      let store = try ledgerStore(accounts: 1_000, audit: audit)
      let sink = audit.sink as? FileLogSink
      let run = onThreads(clients) { client in
        for index in 0..<share(of: count, among: clients, index: client) {
          let action = ledgerAction(index * clients + client, accounts: 1_000)
          store.dispatch(action) { [account = action.account] in $0.balances[account] }
        }
      }
      return {
        run()
        tally.add(entries: count, flushes: sink?.syncCount ?? 0)
      }
    },
    baseline: ledgerBaseline(accounts: 1_000),
    flushes: tally)
}

func auditWorkloads() -> [Workload] {
  [
    ledgerWorkload(
      "ledger-10", accounts: 10, durability: nil, dispatches: 200_000, target: nil),
    ledgerWorkload(
      "ledger-100k", accounts: 100_000, durability: nil, dispatches: 200_000,
      target: .relative(to: "ledger-10", factor: 1.5)),
    ledgerWorkload(
      "audit-ledger-10", accounts: 10, durability: .buffered, dispatches: 20_000,
      target: .instructions(40_000)),
    ledgerWorkload(
      "audit-ledger-100k", accounts: 100_000, durability: .buffered, dispatches: 20_000,
      target: .relative(to: "audit-ledger-10", factor: 1.5)),
    durableWorkload("audit-durable-1", clients: 1, target: nil),
    // Every flush serves its whole group, and 8 writers reach at least 2.5 times one writer's
    // throughput on 2 cores. It was ≥ 4×: a bound of the machine's disk, not of the code
    // (Guides/Performance.md, "Durable writers: what the target measures").
    durableWorkload(
      "audit-durable-8", clients: 8,
      target: .sharedFlushes(entriesPerFlush: 7.5, relativeTo: "audit-durable-1", factor: 0.4)),
  ]
}
