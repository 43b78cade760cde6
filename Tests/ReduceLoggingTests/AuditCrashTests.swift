import Foundation
import ReduceExecutableSupport
import Testing

@testable import ReduceLogging

/// What a child process printed, read as it arrives.
final class ChildOutput: @unchecked Sendable {
  private let lock = NSCondition()
  private var text = ""

  func append(_ data: Data) {
    lock.lock()
    text += String(decoding: data, as: UTF8.self)
    lock.broadcast()
    lock.unlock()
  }

  var lines: [String] {
    lock.lock()
    defer { lock.unlock() }
    return text.split(separator: "\n").map(String.init)
  }

  /// Waits until a complete line starting with `prefix` has arrived, or the deadline passed.
  func waitForLine(startingWith prefix: String, until deadline: Date) -> String? {
    lock.lock()
    defer { lock.unlock() }
    while true {
      let complete = text.split(separator: "\n", omittingEmptySubsequences: true)
        .dropLast(text.hasSuffix("\n") ? 0 : 1)
      if let line = complete.first(where: { $0.hasPrefix(prefix) }) { return String(line) }
      if !lock.wait(until: deadline) { return nil }
    }
  }
}

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
      let output = ChildOutput()
      let process = Process()
      process.executableURL = writer
      process.arguments = [path]
      let pipe = Foundation.Pipe()
      process.standardOutput = pipe
      let errors = Foundation.Pipe()
      process.standardError = errors
      let finishedReading = DispatchSemaphore(value: 0)
      Thread {
        // Until the end of the file: the child's death closes the pipe.
        while case let data = pipe.fileHandleForReading.availableData, !data.isEmpty {
          output.append(data)
        }
        finishedReading.signal()
      }.start()
      try process.run()
      let started = output.waitForLine(startingWith: "start ", until: Date() + 20)
      guard let start = started.flatMap({ Int($0.dropFirst("start ".count)) }) else {
        process.terminate()
        process.waitUntilExit()
        finishedReading.wait()
        let reason = String(
          decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        Issue.record("round \(round): the writer did not restart from its log: \(reason)")
        return
      }
      // The state rebuilt from the log holds every acknowledged deposit, and at most the one
      // whose entry was written before the kill but not yet acknowledged.
      #expect(start >= acknowledged && start <= acknowledged + 1, "round \(round)")
      #expect(start == logged, "round \(round)")
      usleep(UInt32.random(in: 0...5_000))
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      finishedReading.wait()
      let acks = output.lines.compactMap { line in
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
