import Foundation
import Reduce
import ReduceLogging
import Testing

// The examples of Guides/MultipleMachines.md, kept here so that they keep compiling and doing
// what the text says.

enum MultipleMachinesGuide {
  // MARK: The guide's code, as it is there

  struct Ledger: Codable, Equatable, Sendable {
    var balances: [String: Int] = [:]
  }

  enum LedgerAction: Action, Codable {
    case deposited(account: String, amount: Int)
  }

  static let balances = Mutator(\Ledger.balances) {
    (balances: inout [String: Int], action: LedgerAction) in
    switch action {
    case .deposited(let account, let amount): balances[account, default: 0] += amount
    }
  }

  static let actions = ReplayableActions([LedgerAction.self])

  /// The primary: rebuilds its state from the newest snapshot, then keeps the journal.
  static func makePrimary(path: String, keyFile: String) async throws -> Store<Ledger> {
    let store = try Store(initialState: Ledger(), mutators: [balances])
    try await AuditLog.replay(from: FileJournal(path: path), into: store, actions: actions)
    let key = try AuditCheckpoints.Key(contentsOfFile: keyFile)
    let checkpoints = try AuditCheckpoints(key: key, every: 1_000)
    try store.use(AuditTrail<Ledger>(path: path, checkpoints: checkpoints))
    return store
  }

  /// Every 10,000 entries, a snapshot, so that a replay or a new standby reads at most that many.
  static func deposit(_ store: Store<Ledger>, account: String, amount: Int) throws -> Int {
    let balance = try store.dispatch(LedgerAction.deposited(account: account, amount: amount)) {
      $0.balances[account, default: 0]
    }.get()
    if Int.random(in: 0..<10_000) == 0 { _ = try store.dispatch(WriteAuditSnapshot()).get() }
    return balance
  }

  /// The standby: follows the primary's journal, checking its checkpoints with the key.
  static func makeStandby(path: String, keyFile: String) throws -> StandbyStore<Ledger> {
    try StandbyStore(
      initialState: Ledger(), mutators: [balances], journal: FileJournal(path: path),
      actions: actions, key: try AuditCheckpoints.Key(contentsOfFile: keyFile))
  }

  /// What a health check of the standby reports.
  static func health(of standby: StandbyStore<Ledger>) async -> String {
    if let failure = standby.failure { return "STOPPED: \(failure)" }
    do {
      let lag = try await standby.lag()
      return "behind by \(lag.entries) entries, \(lag.time)"
    } catch {
      return "cannot read the journal: \(error)"
    }
  }

  /// The operator decided the primary is dead: the standby takes over.
  static func failOver(_ standby: StandbyStore<Ledger>, path: String, keyFile: String)
    async throws -> Store<Ledger>
  {
    let key = try AuditCheckpoints.Key(contentsOfFile: keyFile)
    return try await standby.promote(
      appendingTo: path, checkpoints: try AuditCheckpoints(key: key, every: 1_000))
  }

  /// Prints every entry as the primary writes it, checked against the chain.
  static func tail(_ path: String) async throws {
    for try await entry in JournalFollower(FileJournal(path: path), from: .beginning) {
      print("#\(entry.sequence)", try entry.decoded().action)
    }
  }
}

@Suite struct MultipleMachinesGuideTests {
  typealias Guide = MultipleMachinesGuide

  @Test(
    "the guide's primary, standby, health check and fail-over work as it says",
    .timeLimit(.minutes(1)))
  func failOver() async throws {
    let path = temporaryLogPath()
    let keyFile = path + ".key"
    defer {
      removeLog(path)
      removeLog(keyFile)
    }
    try Data("a key the writer holds\n".utf8).write(to: URL(fileURLWithPath: keyFile))
    var primary: Store<Guide.Ledger>? = try await Guide.makePrimary(path: path, keyFile: keyFile)
    let standby = try Guide.makeStandby(path: path, keyFile: keyFile)
    for amount in 1...5 {
      if let primary { _ = try Guide.deposit(primary, account: "ada", amount: amount) }
    }
    // A checkpoint, then five deposits (and perhaps a snapshot).
    let last = try FileJournal(path: path).lastSequence()
    try await standby.waitUntilApplied(through: last)
    #expect(await Guide.health(of: standby) == "behind by 0 entries, 0.0 seconds")
    primary = nil
    let promoted = try await Guide.failOver(standby, path: path, keyFile: keyFile)
    #expect(try Guide.deposit(promoted, account: "ada", amount: 1) == 16)
    let key = try AuditCheckpoints.Key(contentsOfFile: keyFile)
    let log = try AuditLog.verify(
      contentsOf: [URL(fileURLWithPath: path)], start: .genesis, key: key)
    #expect(log.checkpoints == 2)
    // A restarted primary rebuilds the same state.
    let restarted = try Store(initialState: Guide.Ledger(), mutators: [Guide.balances])
    try await AuditLog.replay(
      from: FileJournal(path: path), into: restarted, actions: Guide.actions)
    #expect(restarted.state == promoted.state)
  }
}
