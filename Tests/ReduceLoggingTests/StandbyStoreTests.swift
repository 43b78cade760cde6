import Foundation
import Reduce
import ReduceLogging
import Synchronization
import Testing

/// `StandbyStore`: a replica that follows a primary's journal, refuses dispatches, reports its
/// lag and is promoted by the operator.
@Suite struct StandbyStoreTests {
  let actions = ReplayableActions([VaultAction.self])

  func makeStandby(
    _ journal: some JournalSource, start: JournalStart = .newestSnapshot,
    now: @escaping @Sendable () -> Date = { Date() }
  ) throws -> StandbyStore<Vault> {
    try StandbyStore(
      initialState: Vault(), mutators: [vaultBalances, vaultLog], journal: journal,
      actions: actions, start: start, now: now)
  }

  @Test(
    "a standby applies the primary's entries through its mutators, and refuses dispatches",
    .timeLimit(.minutes(1)))
  func follows() async throws {
    let journal = MemoryJournal()
    let primary = try makeVault(AuditTrail(sink: journal))
    primary.dispatch(VaultAction.deposited(account: "ada", amount: 100))
    let standby = try makeStandby(journal)
    primary.dispatch(VaultAction.withdrew(account: "ada", amount: 500))  // Refused: skipped.
    primary.dispatch(
      Batch([
        VaultAction.deposited(account: "bob", amount: 7),
        VaultAction.withdrew(account: "ada", amount: 40),
      ]))
    try await standby.waitUntilApplied(through: 3)
    #expect(standby.state == primary.state)
    #expect(standby.position == JournalPosition(of: journal.lines[2]))
    guard
      case .failure(.notPrimary) = standby.dispatch(VaultAction.deposited(account: "x", amount: 1))
    else {
      Issue.record("a standby took a dispatch")
      return
    }
    #expect(standby.state == primary.state)
  }

  @Test(
    "a standby starts at the newest snapshot, and reads nothing before it",
    .timeLimit(.minutes(1)))
  func startsAtSnapshot() async throws {
    let source = MemoryJournal()
    let primary = try makeVault(AuditTrail(sink: source))
    primary.dispatch(VaultAction.deposited(account: "ada", amount: 1))
    _ = try primary.dispatch(ReplaceState(Vault(balances: ["eve": 5], log: ["eve"]))).get()
    _ = try primary.dispatch(WriteAuditSnapshot()).get()
    primary.dispatch(VaultAction.deposited(account: "eve", amount: 2))
    // The first entry edited: a reader that reads it finds the chain broken at the next one.
    let journal = MemoryJournal()
    var first = String(decoding: source.lines[0].bytes, as: UTF8.self)
    first = first.replacingOccurrences(of: #""amount":1"#, with: #""amount":9"#)
    try journal.append(JournalLine(sequence: 1, bytes: Array(first.utf8)))
    for line in source.lines.dropFirst() { try journal.append(line) }

    let standby = try makeStandby(journal)
    try await standby.waitUntilApplied(through: 4)
    #expect(standby.state == primary.state)
    #expect(standby.failure == nil)

    let fromTheStart = try makeStandby(journal, start: .beginning)
    await #expect(throws: StandbyError.self) {
      try await fromTheStart.waitUntilApplied(through: 4)
    }
  }

  @Test(
    "lag counts the entries not applied, and how long ago the first of them was written",
    .timeLimit(.minutes(1)))
  func lag() async throws {
    let journal = MemoryJournal()
    let written = fixedDate
    let primary = try makeVault(AuditTrail(sink: journal, now: { written }))
    primary.dispatch(VaultAction.deposited(account: "ada", amount: 1))
    let standby = try makeStandby(journal, now: { written.addingTimeInterval(5) })
    try await standby.waitUntilApplied(through: 1)
    #expect(try await standby.lag() == StandbyLag(entries: 0, time: .zero))
    standby.stop()
    for amount in 2...4 { primary.dispatch(VaultAction.deposited(account: "ada", amount: amount)) }
    #expect(try await standby.lag() == StandbyLag(entries: 3, time: .seconds(5)))
  }

  @Test("a standby that meets a broken chain stops, and says why", .timeLimit(.minutes(1)))
  func stopsOnTampering() async throws {
    let source = MemoryJournal()
    let primary = try makeVault(AuditTrail(sink: source))
    for amount in 1...3 { primary.dispatch(VaultAction.deposited(account: "ada", amount: amount)) }
    let tampered = MemoryJournal()
    try tampered.append(source.lines[0])
    try tampered.append(source.lines[2])
    let standby = try makeStandby(tampered)
    await #expect(throws: StandbyError.self) { try await standby.waitUntilApplied(through: 3) }
    guard case .stopped(.journal(.gap(expected: 2, found: 3)))? = standby.failure else {
      Issue.record("the standby did not stop at the gap: \(String(describing: standby.failure))")
      return
    }
    await #expect(throws: StandbyError.self) {
      _ = try await standby.promote { _ in AuditTrail<Vault>(sink: tampered) }
    }
  }

  @Test(
    "promotion applies the rest, adds the middleware, and continues the chain",
    .timeLimit(.minutes(1)))
  func promote() async throws {
    let journal = MemoryJournal()
    let primary = try makeVault(AuditTrail(sink: journal))
    let standby = try makeStandby(journal)
    for amount in 1...3 { primary.dispatch(VaultAction.deposited(account: "ada", amount: amount)) }
    let seen = Mutex<[String]>([])
    let watcher = AnyMiddleware<Vault>(name: "watcher") { action, _, next in
      seen.withLock { $0.append("\(type(of: action))") }
      try next(action)
    }
    let promoted = try await standby.promote(middleware: [watcher]) { position in
      #expect(position == JournalPosition(of: journal.lines[2]))
      return AuditTrail<Vault>(sink: journal)
    }
    #expect(promoted.state == primary.state)
    #expect(promoted.middlewareNames == ["watcher", "AuditTrail"])
    _ = try promoted.dispatch(VaultAction.deposited(account: "bob", amount: 9)).get()
    #expect(seen.withLock { $0 } == ["VaultAction"])
    #expect(journal.lines.map(\.sequence) == [1, 2, 3, 4])
    #expect(try AuditLog.verify(journal.bytes) == 4)
    #expect(standby.state.balances["bob"] == 9)
    guard
      case .failure(.promoted) = standby.dispatch(VaultAction.deposited(account: "x", amount: 1))
    else {
      Issue.record("a promoted standby took a dispatch")
      return
    }
    await #expect(throws: StandbyError.self) {
      _ = try await standby.promote { _ in AuditTrail<Vault>(sink: journal) }
    }
  }

  @Test(
    "a promotion whose journal writer fails leaves the standby following",
    .timeLimit(.minutes(1)))
  func promotionFails() async throws {
    struct Refused: Error {}
    let journal = MemoryJournal()
    let primary = try makeVault(AuditTrail(sink: journal))
    let standby = try makeStandby(journal)
    primary.dispatch(VaultAction.deposited(account: "ada", amount: 1))
    await #expect(throws: StandbyError.self) {
      _ = try await standby.promote { _ throws -> any Middleware<Vault> in throw Refused() }
    }
    primary.dispatch(VaultAction.deposited(account: "ada", amount: 2))
    try await standby.waitUntilApplied(through: 2)
    #expect(standby.state == primary.state)
  }

  @Test("a standby of a log file is promoted to append to it", .timeLimit(.minutes(1)))
  func promoteFile() async throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    var primary: Store<Vault>? = try makeVault(AuditTrail(path: path, durability: .buffered))
    let standby = try makeStandby(FileJournal(path: path))
    for amount in 1...3 {
      primary?.dispatch(VaultAction.deposited(account: "ada", amount: amount))
    }
    let expected = primary?.state
    try await standby.waitUntilApplied(through: 3)
    primary = nil  // The primary is gone, and its lock with it.
    let promoted = try await standby.promote(appendingTo: path, durability: .buffered)
    #expect(promoted.state == expected)
    _ = try promoted.dispatch(VaultAction.deposited(account: "ada", amount: 4)).get()
    let log = try AuditLog.verify(contentsOf: [URL(fileURLWithPath: path)], start: .genesis)
    #expect(log.entries == 4)
  }
}
