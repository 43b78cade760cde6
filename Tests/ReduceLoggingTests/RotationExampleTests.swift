import Foundation
import ReduceLogging
import Testing

/// The rotation example of Guides/AuditTrail.md, as written there.
enum RotationGuide {
  static func checkRotated(_ paths: [String]) -> String {
    do {
      let log = try AuditLog.verify(contentsOf: paths.map { URL(fileURLWithPath: $0) })
      let start = log.continuesEarlierFile ? " from entry \(log.firstSequence)" : ""
      return "\(log.entries) entries\(start), chain intact"
    } catch  where error.isUnreadable {
      return "cannot check: \(error)"
    } catch {
      return "TAMPERED: \(error)"
    }
  }
}

@Suite struct RotationExampleTests {
  @Test("AuditTrail.md: rotated pieces are checked together, a lone piece from its first entry")
  func checkRotated() throws {
    let path = try writeChainedLog(count: 5)
    let rotated = path + ".1"
    defer {
      removeLog(path)
      removeLog(rotated)
    }
    let lines = try readLines(path)
    try writeLines(Array(lines[0..<3]), to: rotated)
    try writeLines(Array(lines[3...]), to: path)
    #expect(RotationGuide.checkRotated([rotated, path]) == "5 entries, chain intact")
    #expect(RotationGuide.checkRotated([path]) == "2 entries from entry 4, chain intact")
    #expect(RotationGuide.checkRotated([path, rotated]).hasPrefix("TAMPERED: \(rotated): line 1"))
    #expect(RotationGuide.checkRotated([path + ".0"]).hasPrefix("cannot check: "))
  }
}
