import Foundation
import Reduce
import Synchronization
import Testing

@testable import ReduceLogging

/// A ledger whose withdrawals are checked before they change anything.
struct Vault: Codable, Equatable, Sendable {
  var balances: [String: Int] = [:]
  var log: [String] = []
}

enum VaultAction: Action, Codable, Equatable {
  case deposited(account: String, amount: Int)
  case withdrew(account: String, amount: Int)
}

struct Overdraft: Error {}

let vaultBalances = Mutator(
  \Vault.balances,
  validate: { (balances: [String: Int], action: VaultAction) throws(Overdraft) in
    if case .withdrew(let account, let amount) = action, balances[account, default: 0] < amount {
      throw Overdraft()
    }
  },
  reduce: { balances, action in
    switch action {
    case .deposited(let account, let amount): balances[account, default: 0] += amount
    case .withdrew(let account, let amount): balances[account, default: 0] -= amount
    }
  })

let vaultLog = Mutator(\Vault.log) { (log: inout [String], action: VaultAction) in
  if case .deposited(let account, _) = action { log.append(account) }
}

/// A sink that fails while `failing` is set, and counts the waits for durability.
final class FlakySink: LogSink {
  let failing = Mutex(false)
  let waits = Mutex(0)
  let recorded = RecordingSink()

  func write(_ record: LogRecord) throws {
    if failing.withLock({ $0 }) { throw LogSinkError.writeFailed(path: "flaky", reason: "full") }
    recorded.write(record)
  }

  func waitUntilDurable() throws {
    waits.withLock { $0 += 1 }
  }

  var defersDurability: Bool { true }
}

func makeVault(_ trail: AuditTrail<Vault>) throws -> Store<Vault> {
  try Store(initialState: Vault(), mutators: [vaultBalances, vaultLog], middleware: [trail])
}

@Suite struct AuditTrailMiddlewareTests {
  @Test("each change is one entry: the action's payload and the mutators that made it")
  func entries() throws {
    let sink = FlakySink()
    let store = try makeVault(AuditTrail(sink: sink))
    store.dispatch(VaultAction.deposited(account: "ada", amount: 100))
    store.dispatch(VaultAction.withdrew(account: "ada", amount: 30))
    store.dispatch(
      Batch([
        VaultAction.deposited(account: "bob", amount: 5),
        VaultAction.withdrew(account: "bob", amount: 5),
      ]))
    let lines = sink.recorded.lines
    #expect(lines.count == 3)
    #expect(lines[0].contains(#""payload":{"deposited":{"account":"ada","amount":100}}"#))
    #expect(lines[0].contains(#""mutators":["\\Vault.balances","\\Vault.log"]"#))
    #expect(lines[1].contains(#""mutators":["\\Vault.balances","\\Vault.log"]"#))
    #expect(sink.recorded.entries[2].action == "Batch")
    #expect(sink.recorded.entries[2].mutators?.count == 4)
    // Bounded by the action, not the state: no diff of the state.
    #expect(lines.allSatisfy { !$0.contains("\"changes\"") })
    #expect(sink.waits.withLock { $0 } == 3)
  }

  @Test("a refused action changes nothing and is recorded afterwards as failed")
  func refused() throws {
    let sink = FlakySink()
    let store = try makeVault(AuditTrail(sink: sink))
    store.dispatch(VaultAction.deposited(account: "ada", amount: 10))
    #expect(throws: DispatchError.self) {
      try store.dispatch(VaultAction.withdrew(account: "ada", amount: 11)).get()
    }
    #expect(store.state.balances == ["ada": 10])
    let last = try #require(sink.recorded.entries.last)
    #expect(!last.outcome.isSuccess && last.mutators == nil)
  }

  @Test("a change whose entry cannot be written is not made: the dispatch fails and says why")
  func unwritable() async throws {
    let sink = FlakySink()
    let store = try makeVault(AuditTrail(name: "audit", sink: sink))
    var errors = store.errors.makeAsyncIterator()
    store.dispatch(VaultAction.deposited(account: "ada", amount: 10))
    sink.failing.withLock { $0 = true }
    let result = store.dispatch(VaultAction.deposited(account: "ada", amount: 5))
    guard case .failure(.middlewareFailed("audit", _, let underlying)) = result else {
      Issue.record("expected the audit trail's failure, got \(result)")
      return
    }
    #expect(underlying is LogSinkError)
    #expect(store.state == Vault(balances: ["ada": 10], log: ["ada"]))
    let published = await errors.next()
    #expect(published?.underlying is LogSinkError)
    sink.failing.withLock { $0 = false }
    #expect(
      try store.dispatch(VaultAction.deposited(account: "ada", amount: 1)).get().balances["ada"]
        == 11)
    #expect(sink.recorded.entries.count == 2)
  }

  @Test("a chained file verifies, and continues after the store is made again")
  func chainedFile() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    do {
      let store = try makeVault(AuditTrail(path: path, durability: .everyEntry))
      store.dispatch(VaultAction.deposited(account: "ada", amount: 10))
      store.dispatch(VaultAction.withdrew(account: "ada", amount: 50))
    }
    let store = try makeVault(AuditTrail(path: path, durability: .buffered))
    store.dispatch(VaultAction.withdrew(account: "ada", amount: 5))
    #expect(try AuditLog.verify(contentsOf: URL(fileURLWithPath: path)) == 3)
  }

  @Test("on a full file system, the changes whose entries fit are made, the rest are not")
  func fullFileSystem() throws {
    guard let volume = SmallVolume(size: 64 * 1024) else {
      // Mounting needs privileges; /dev/full fails every write with ENOSPC instead.
      try fullDevice()
      return
    }
    defer { volume.remove() }
    let path = volume.path + "/audit.log"
    let store = try makeVault(AuditTrail(path: path, durability: .everyEntry))
    var made = 0
    var failure: DispatchError?
    for index in 0..<2_000 {
      switch store.dispatch(VaultAction.deposited(account: "a\(index)", amount: 1)) {
      case .success: made += 1
      case .failure(let error): failure = error
      }
      if failure != nil { break }
    }
    let error = try #require(failure, "the volume never filled up")
    #expect(error.underlying is LogSinkError)
    #expect(store.state.balances.count == made)
    #expect(try AuditLog.verify(contentsOf: URL(fileURLWithPath: path)) == made)
  }

  func fullDevice() throws {
    let store = try makeVault(AuditTrail(path: "/dev/full", durability: .buffered))
    let result = store.dispatch(VaultAction.deposited(account: "ada", amount: 1))
    #expect(throws: DispatchError.self) { try result.get() }
    #expect(store.state == Vault())
  }
}

/// A small tmpfs mounted for a test, where the process may mount one (Linux, as root).
struct SmallVolume {
  let path: String

  init?(size: Int) {
    #if os(Linux)
      guard geteuid() == 0 else { return nil }
      let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("reduce-small-\(UUID().uuidString)").path
      guard
        (try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true))
          != nil
      else { return nil }
      let mount = Process()
      mount.executableURL = URL(fileURLWithPath: "/bin/mount")
      mount.arguments = ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", path]
      mount.standardError = FileHandle.nullDevice
      guard (try? mount.run()) != nil else { return nil }
      mount.waitUntilExit()
      guard mount.terminationStatus == 0 else {
        try? FileManager.default.removeItem(atPath: path)
        return nil
      }
      self.path = path
    #else
      return nil
    #endif
  }

  func remove() {
    let unmount = Process()
    unmount.executableURL = URL(fileURLWithPath: "/bin/umount")
    unmount.arguments = [path]
    try? unmount.run()
    unmount.waitUntilExit()
    try? FileManager.default.removeItem(atPath: path)
  }
}
