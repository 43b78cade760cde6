import Foundation
import Reduce
import Testing

@testable import ReduceLogging

/// `RotateAuditLog`: a chained log moved aside, and a new file started with a snapshot.
@Suite struct AuditRotationTests {
  let actions = ReplayableActions([VaultAction.self])

  func deposit(_ store: Store<Vault>, _ account: String, _ amount: Int) {
    store.dispatch(VaultAction.deposited(account: account, amount: amount))
  }

  func newStore() throws -> Store<Vault> {
    try Store(initialState: Vault(), mutators: [vaultBalances, vaultLog])
  }

  @Test("the archive and the new file verify as one log, and each replays to the state")
  func rotation() throws {
    let path = temporaryLogPath()
    let archive = FileWriter.archivePath(of: path, through: 2)
    defer { [path, archive].forEach(removeLog) }
    let store = try makeVault(AuditTrail(path: path, durability: .everyEntry))
    deposit(store, "ada", 10)
    deposit(store, "bob", 20)
    _ = try store.dispatch(RotateAuditLog()).get()
    deposit(store, "ada", 5)
    let urls = [URL(fileURLWithPath: archive), URL(fileURLWithPath: path)]
    let whole = try AuditLog.verify(contentsOf: urls)
    #expect(whole.entries == 4 && whole.lastSequence == 4)
    let first = try #require(try readLines(path).first)
    #expect(first.hasPrefix(#"{"seq":3,"prev":""#) && first.contains(#""snapshot":{"#))
    // From the new file alone: its snapshot, then what follows.
    let fromSnapshot = try newStore()
    #expect(
      try AuditLog.replay(
        contentsOf: URL(fileURLWithPath: path), into: fromSnapshot, actions: actions) == 2)
    #expect(fromSnapshot.state == store.state)
    // From both files, up to an entry before the snapshot.
    let early = try newStore()
    try AuditLog.replay(contentsOf: urls, into: early, actions: actions, through: 1)
    #expect(early.state == Vault(balances: ["ada": 10], log: ["ada"]))
  }

  @Test("a taken archive name or a state that is not Encodable fails the rotation; logging goes on")
  func refused() throws {
    let path = temporaryLogPath()
    let taken = path + ".taken"
    defer { [path, taken].forEach(removeLog) }
    try writeLines(["x"], to: taken)
    let store = try makeVault(AuditTrail(name: "audit", path: path, durability: .buffered))
    deposit(store, "ada", 1)
    let result = store.dispatch(RotateAuditLog(archivingTo: taken))
    guard case .failure(.middlewareFailed("audit", _, let underlying)) = result,
      case .rotationFailed? = underlying as? LogSinkError
    else {
      Issue.record("expected a failed rotation, got \(result)")
      return
    }
    deposit(store, "ada", 2)
    #expect(try AuditLog.verify(contentsOf: URL(fileURLWithPath: path)) == 2)

    struct Opaque: Sendable {
      var count = 0
    }
    let opaquePath = temporaryLogPath("opaque")
    defer { removeLog(opaquePath) }
    let opaque = try Store(
      initialState: Opaque(), middleware: [AuditTrail<Opaque>(path: opaquePath)])
    let failure = opaque.dispatch(RotateAuditLog())
    #expect(
      (try? failure.get()) == nil
        && (failure.error?.underlying as? AuditTrailError)
          == .stateNotEncodable(type: "Opaque")
    )
  }

  @Test("a rotation cut short between its two renames is finished when the log is opened")
  func interrupted() throws {
    let path = temporaryLogPath()
    let archive = path + ".old"
    defer { [path, archive].forEach(removeLog) }
    do {
      let store = try makeVault(AuditTrail(path: path, durability: .buffered))
      deposit(store, "ada", 1)
      _ = try store.dispatch(RotateAuditLog(archivingTo: archive)).get()
    }
    // As if the process died after moving the log aside, before renaming the new file.
    try FileManager.default.moveItem(atPath: path, toPath: FileWriter.rotatingPath(of: path))
    let store = try makeVault(AuditTrail(path: path, durability: .buffered))
    deposit(store, "bob", 2)
    let urls = [URL(fileURLWithPath: archive), URL(fileURLWithPath: path)]
    #expect(try AuditLog.verify(contentsOf: urls).entries == 3)
    #expect(!FileManager.default.fileExists(atPath: FileWriter.rotatingPath(of: path)))
  }

  @Test("a file that continues an earlier one with no snapshot is not replayed alone")
  func startsMidLog() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    let store = try makeVault(AuditTrail(path: path, durability: .buffered))
    deposit(store, "ada", 1)
    deposit(store, "ada", 2)
    let lines = try readLines(path)
    try writeLines(Array(lines.dropFirst()), to: path)
    #expect {
      try AuditLog.replay(
        contentsOf: URL(fileURLWithPath: path), into: try newStore(), actions: actions)
    } throws: { error in
      if case .startsMidLog(firstSequence: 2) = error as? AuditReplayError { true } else { false }
    }
  }
}

extension Result {
  var error: Failure? {
    if case .failure(let error) = self { error } else { nil }
  }
}
