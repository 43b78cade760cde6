import Foundation
import ReduceExecutableSupport
import Testing

@testable import ReduceLogging

/// Kills a process that keeps a durable chained audit log at random moments, over and over, and
/// checks after each kill what a write-ahead log promises.
@Suite struct AuditCrashTests {
  @Test("after 100 kills at random moments, no acknowledged change is lost and the log verifies")
  func killedWriter() throws {
    let writer = try Executables.url("AuditCrashWriter")
    let path = temporaryLogPath()
    defer { removeLog(path) }
    var acknowledged = 0
    var logged = 0
    var torn = 0
    for round in 1...100 {
      let child = try CrashChild(writer, arguments: [path])
      let started = child.waitForLine(startingWith: "start ", until: Date() + 20)
      guard let start = started.flatMap({ Int($0.dropFirst("start ".count)) }) else {
        Issue.record("round \(round): the writer did not restart from its log: \(child.stop())")
        return
      }
      // The state rebuilt from the log holds every acknowledged deposit, and at most the one
      // whose entry was written before the kill but not yet acknowledged.
      #expect(start >= acknowledged && start <= acknowledged + 1, "round \(round)")
      #expect(start == logged, "round \(round)")
      usleep(UInt32.random(in: 0...5_000))
      child.kill()
      let acks = child.lines.compactMap { line in
        line.hasPrefix("ack ") ? Int(line.dropFirst("ack ".count)) : nil
      }
      acknowledged = max(start, acks.last ?? start)
      logged = try appliedEntries(path)
      switch verification(of: path) {
      case .success(let entries):
        #expect(entries >= acknowledged, "round \(round)")
      case .failure(let error):
        // A kill in the middle of a write; anything else would be tampering.
        #expect(error.isTornLastLine, "round \(round): \(error)")
        torn += 1
      }
    }
    #expect(logged >= acknowledged)
    // How many kills fell in the middle of a write varies; recorded for the curious.
    print("AuditCrashTests: \(torn) of 100 kills left a torn last line")
  }

  func verification(of path: String) -> Result<Int, AuditLogError> {
    Result { () throws(AuditLogError) -> Int in
      try AuditLog.verify(contentsOf: URL(fileURLWithPath: path))
    }
  }

  /// The number of applied entries in the complete lines of a log.
  func appliedEntries(_ path: String) throws -> Int {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
      .filter { $0.contains(#""outcome":"ok""#) }.count
  }
}
