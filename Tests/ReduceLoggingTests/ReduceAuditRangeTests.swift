import Foundation
import Reduce
import ReduceExecutableSupport
import Testing

@testable import ReduceLogging

/// `reduce-audit show --from --to` and `reduce-audit snapshots` on a rotated log.
@Suite struct ReduceAuditRangeTests {
  /// A log of five entries rotated after the second: archive (1, 2), current (3: snapshot, 4, 5).
  func rotatedLog() throws -> (archive: String, current: String) {
    let current = temporaryLogPath()
    let archive = current + ".1"
    let store = try makeVault(AuditTrail(path: current, durability: .buffered))
    store.dispatch(VaultAction.deposited(account: "ada", amount: 1))
    store.dispatch(VaultAction.deposited(account: "bob", amount: 2))
    _ = try store.dispatch(RotateAuditLog(archivingTo: archive)).get()
    store.dispatch(VaultAction.deposited(account: "cy", amount: 3))
    store.dispatch(VaultAction.withdrew(account: "cy", amount: 1))
    return (archive, current)
  }

  @Test("show prints the entries from one number to another, a snapshot as such")
  func showRange() throws {
    let (archive, current) = try rotatedLog()
    defer { [archive, current].forEach(removeLog) }
    let run = try Executables.run("reduce-audit", ["show", current, "--from", "3", "--to", "4"])
    #expect(run.status == 0)
    let headers = run.standardOutput.split(separator: "\n").filter { $0.hasPrefix("#") }
    #expect(headers.count == 2)
    #expect(headers.first?.hasPrefix("#3 ") == true && headers.first?.hasSuffix("snapshot") == true)
    #expect(headers.last?.hasPrefix("#4 ") == true)
    #expect(run.standardOutput.contains("mutators: \\Vault.balances, \\Vault.log"))
    let reversed = try Executables.run(
      "reduce-audit", ["show", current, "--from", "4", "--to", "3"])
    #expect(reversed.status == 64)
  }

  @Test("snapshots says where each snapshot is")
  func snapshots() throws {
    let (archive, current) = try rotatedLog()
    defer { [archive, current].forEach(removeLog) }
    let run = try Executables.run("reduce-audit", ["snapshots", archive, current])
    #expect(run.status == 0)
    let lines = run.standardOutput.split(separator: "\n")
    #expect(lines.count == 1)
    #expect(lines.first?.hasPrefix("\(current): entry 3, line 1, ") == true)
    let verify = try Executables.run("reduce-audit", ["verify", archive, current])
    #expect(verify.status == 0 && verify.standardOutput.contains("5 entries in 2 files"))
  }
}
