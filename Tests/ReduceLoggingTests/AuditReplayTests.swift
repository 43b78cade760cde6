import Foundation
import Reduce
import Testing

@testable import ReduceLogging

/// `AuditLog.replay`: a store's state rebuilt from its audit log.
@Suite struct AuditReplayTests {
  let actions = ReplayableActions([VaultAction.self])

  /// Writes a log through a vault store and returns the state the store ended with.
  func writeLog(_ path: String) throws -> Vault {
    let store = try makeVault(AuditTrail(path: path, durability: .buffered))
    store.dispatch(VaultAction.deposited(account: "ada", amount: 100))
    store.dispatch(VaultAction.withdrew(account: "ada", amount: 500))  // Refused.
    store.dispatch(
      Batch([
        VaultAction.deposited(account: "bob", amount: 7),
        VaultAction.withdrew(account: "ada", amount: 40),
      ]))
    store.dispatch(ReplaceState(Vault(balances: ["eve": 1], log: ["eve"])))
    store.dispatch(VaultAction.deposited(account: "eve", amount: 2))
    return store.state
  }

  @Test("replaying a log into a new store gives the state the writing store had")
  func wholeLog() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    let written = try writeLog(path)
    let store = try Store(initialState: Vault(), mutators: [vaultBalances, vaultLog])
    let count = try AuditLog.replay(
      contentsOf: URL(fileURLWithPath: path), into: store, actions: actions)
    #expect(count == 4)
    #expect(store.state == written)
  }

  @Test("replay can stop after a given entry")
  func throughEntry() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    _ = try writeLog(path)
    let store = try Store(initialState: Vault(), mutators: [vaultBalances, vaultLog])
    try AuditLog.replay(
      contentsOf: URL(fileURLWithPath: path), into: store, actions: actions, through: 3)
    #expect(store.state == Vault(balances: ["ada": 60, "bob": 7], log: ["ada", "bob"]))
  }

  @Test("a torn last line is left out; a tampered log is refused")
  func tornAndTampered() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    _ = try writeLog(path)
    var lines = try readLines(path)
    // A crash during the write of a sixth entry.
    try writeLines(lines, to: path)
    let handle = try #require(FileHandle(forWritingAtPath: path))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(#"{"seq":6,"prev":"#.utf8))
    try handle.close()
    let store = try Store(initialState: Vault(), mutators: [vaultBalances, vaultLog])
    #expect(
      try AuditLog.replay(contentsOf: URL(fileURLWithPath: path), into: store, actions: actions)
        == 4)
    // An edited amount.
    lines[0] = lines[0].replacingOccurrences(of: "100", with: "900")
    try writeLines(lines, to: path)
    let fresh = try Store(initialState: Vault(), mutators: [vaultBalances, vaultLog])
    #expect {
      try AuditLog.replay(contentsOf: URL(fileURLWithPath: path), into: fresh, actions: actions)
    } throws: { error in
      if case .notVerified = error as? AuditReplayError { true } else { false }
    }
    #expect(fresh.state == Vault())
  }

  @Test("an action type that was not registered is named")
  func unknownAction() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    _ = try writeLog(path)
    let store = try Store(initialState: Vault(), mutators: [vaultBalances, vaultLog])
    #expect {
      try AuditLog.replay(
        contentsOf: URL(fileURLWithPath: path), into: store, actions: ReplayableActions([]))
    } throws: { error in
      if case .unknownAction(line: 1, action: "VaultAction") = error as? AuditReplayError {
        true
      } else {
        false
      }
    }
  }
}
