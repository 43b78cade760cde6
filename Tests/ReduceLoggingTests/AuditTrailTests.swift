import Foundation
import Reduce
import ReduceLogging
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes a chained log of `count` counter actions at a fresh path and returns the path.
func writeChainedLog(
  count: Int, durability: FileLogSink.Durability = .everyEntry, name: String = #function
) throws -> String {
  let path = temporaryLogPath(name)
  let store = try makeCounterStore(
    LoggingMiddleware(
      format: .jsonLines, sink: .file(path: path, durability: durability, chained: true)))
  for step in 1...count { store.dispatch(CounterAction.incremented(by: step)) }
  return path
}

@Suite struct AuditTrailTests {
  @Test("a chained log links each entry to the SHA-256 of the line before it")
  func chain() throws {
    let path = try writeChainedLog(count: 3)
    defer { removeLog(path) }
    let lines = try readLines(path)
    #expect(lines.count == 3)
    let entries = try lines.enumerated().map { try AuditLog.Entry(parsing: $1, line: $0 + 1) }
    #expect(entries.map(\.sequence) == [1, 2, 3])
    #expect(entries[0].previousHash == AuditLog.genesisHash)
    #expect(entries[1].previousHash == AuditLog.hash(ofLine: Array(lines[0].utf8)))
    #expect(entries[2].previousHash == AuditLog.hash(ofLine: Array(lines[1].utf8)))
    #expect(try AuditLog.verify(contentsOf: URL(fileURLWithPath: path)) == 3)
  }

  @Test("with everyEntry durability the entry is in the file when dispatch returns")
  func everyEntry() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    let store = try makeCounterStore(
      LoggingMiddleware(
        format: .jsonLines, sink: .file(path: path, durability: .everyEntry, chained: true)))
    store.dispatch(CounterAction.incremented(by: 1))
    #expect(try readLines(path).count == 1)
    store.dispatch(CounterAction.incremented(by: 1))
    #expect(try readLines(path).count == 2)
  }

  @Test("with buffered durability the entry is handed to the system when dispatch returns")
  func buffered() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    let sink = FileLogSink(path: path, durability: .buffered, chained: true)
    let store = try makeCounterStore(LoggingMiddleware(format: .jsonLines, sink: sink))
    store.dispatch(CounterAction.incremented(by: 1))
    #expect(try readLines(path).count == 1)
    try sink.flush()
    #expect(try AuditLog.verify(contentsOf: URL(fileURLWithPath: path)) == 1)
  }

  @Test("an empty log verifies with zero entries")
  func empty() throws {
    #expect(try AuditLog.verify([]) == 0)
  }

  @Test("a last line cut short by a crash is reported as torn, not as tampering")
  func tornLastLine() throws {
    let path = try writeChainedLog(count: 3)
    defer { removeLog(path) }
    let size = try #require(
      try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    try handle.truncate(atOffset: UInt64(size - 20))
    try handle.close()
    #expect(throws: AuditLogError.tornLastLine(line: 3)) {
      try AuditLog.verify(contentsOf: URL(fileURLWithPath: path))
    }
    let error = AuditLogError.tornLastLine(line: 3)
    #expect(error.isTornLastLine)
    #expect(error.intactEntries == 2)
  }

  @Test("a complete last entry without its newline is torn too")
  func missingNewline() throws {
    let path = try writeChainedLog(count: 2)
    defer { removeLog(path) }
    try writeLines(try readLines(path), to: path, finalNewline: false)
    #expect(throws: AuditLogError.tornLastLine(line: 2)) {
      try AuditLog.verify(contentsOf: URL(fileURLWithPath: path))
    }
  }

  @Test("an unterminated last line that is no prefix of an entry is tampering")
  func garbageAtTheEnd() throws {
    let path = try writeChainedLog(count: 2)
    defer { removeLog(path) }
    let lines = try readLines(path)
    try writeLines(lines + ["}garbage"], to: path, finalNewline: false)
    let error = try #require(throws: AuditLogError.self) {
      try AuditLog.verify(contentsOf: URL(fileURLWithPath: path))
    }
    #expect(error.line == 3)
    #expect(!error.isTornLastLine)
  }

  @Test("an edited payload is detected at the edited line")
  func editedPayload() throws {
    let path = try writeChainedLog(count: 4)
    defer { removeLog(path) }
    var lines = try readLines(path)
    lines[1] = lines[1].replacingOccurrences(of: #""by":2"#, with: #""by":20"#)
    try writeLines(lines, to: path)
    #expect(throws: AuditLogError.brokenLink(line: 2, recordedBy: 3)) {
      try AuditLog.verify(contentsOf: URL(fileURLWithPath: path))
    }
  }

  @Test("a deleted line is detected where the sequence jumps")
  func deletedLine() throws {
    let path = try writeChainedLog(count: 4)
    defer { removeLog(path) }
    var lines = try readLines(path)
    lines.remove(at: 1)
    try writeLines(lines, to: path)
    #expect(throws: AuditLogError.sequenceGap(line: 2, expected: 2, found: 3)) {
      try AuditLog.verify(contentsOf: URL(fileURLWithPath: path))
    }
  }

  @Test("two swapped lines are detected at the first of them")
  func swappedLines() throws {
    let path = try writeChainedLog(count: 4)
    defer { removeLog(path) }
    var lines = try readLines(path)
    lines.swapAt(1, 2)
    try writeLines(lines, to: path)
    #expect(throws: AuditLogError.sequenceGap(line: 2, expected: 2, found: 3)) {
      try AuditLog.verify(contentsOf: URL(fileURLWithPath: path))
    }
  }

  @Test("an edited first line is detected at line 1")
  func editedFirstLine() throws {
    let path = try writeChainedLog(count: 3)
    defer { removeLog(path) }
    var lines = try readLines(path)
    lines[0] = lines[0].replacingOccurrences(of: #""by":1"#, with: #""by":9"#)
    try writeLines(lines, to: path)
    #expect(throws: AuditLogError.brokenLink(line: 1, recordedBy: 2)) {
      try AuditLog.verify(contentsOf: URL(fileURLWithPath: path))
    }
  }

  @Test("a first line whose prev is not the genesis value is detected at line 1")
  func replacedGenesis() throws {
    let path = try writeChainedLog(count: 2)
    defer { removeLog(path) }
    var lines = try readLines(path)
    lines[0] = lines[0].replacingOccurrences(
      of: AuditLog.genesisHash, with: String(repeating: "1", count: 64))
    try writeLines(lines, to: path)
    #expect(throws: AuditLogError.brokenLink(line: 1, recordedBy: 1)) {
      try AuditLog.verify(contentsOf: URL(fileURLWithPath: path))
    }
  }

  @Test("a line that is not JSON is malformed, at its line")
  func malformedLine() throws {
    let path = try writeChainedLog(count: 3)
    defer { removeLog(path) }
    var lines = try readLines(path)
    lines[1] = "not json"
    try writeLines(lines, to: path)
    let error = try #require(throws: AuditLogError.self) {
      try AuditLog.verify(contentsOf: URL(fileURLWithPath: path))
    }
    guard case .malformedEntry(line: 2, _) = error else {
      Issue.record("expected a malformed entry at line 2, got \(error)")
      return
    }
    #expect(error.intactEntries == 1)
  }

  @Test("verifying never changes the file")
  func verifyIsReadOnly() throws {
    let path = try writeChainedLog(count: 3)
    defer { removeLog(path) }
    var lines = try readLines(path)
    lines[1] = "tampered"
    try writeLines(lines, to: path)
    let before = try Data(contentsOf: URL(fileURLWithPath: path))
    _ = try? AuditLog.verify(contentsOf: URL(fileURLWithPath: path))
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
  }

  @Test("reopening a chained log appends and continues its sequence and chain")
  func reopen() throws {
    let path = try writeChainedLog(count: 3)
    defer { removeLog(path) }
    let copy = temporaryLogPath()
    defer { removeLog(copy) }
    try FileManager.default.copyItem(atPath: path, toPath: copy)
    for file in [path, copy] {
      let store = try makeCounterStore(
        LoggingMiddleware(
          format: .jsonLines, sink: .file(path: file, durability: .everyEntry, chained: true)))
      store.dispatch(CounterAction.incremented(by: 10))
      store.dispatch(CounterAction.incremented(by: 11))
      #expect(try AuditLog.verify(contentsOf: URL(fileURLWithPath: file)) == 5)
      let last = try #require(try readLines(file).last)
      #expect(try AuditLog.Entry(parsing: last, line: 5).sequence == 5)
    }
  }

  @Test("a torn last line is cut off and kept aside when the log is reopened; the chain goes on")
  func reopenTorn() throws {
    let path = try writeChainedLog(count: 2)
    defer { [path, path + ".torn"].forEach(removeLog) }
    let lines = try readLines(path)
    let torn = String(lines[1].prefix(30))
    try writeLines([lines[0], torn], to: path, finalNewline: false)
    let store = try makeCounterStore(
      LoggingMiddleware(format: .jsonLines, sink: .file(path: path, chained: true)))
    store.dispatch(CounterAction.incremented(by: 1))
    #expect(try AuditLog.verify(contentsOf: URL(fileURLWithPath: path)) == 2)
    #expect(try String(contentsOfFile: path + ".torn", encoding: .utf8) == torn)
  }

  @Test("an unfinished last line that no crash could leave is refused, and the file left as it was")
  func reopenTampered() throws {
    let path = try writeChainedLog(count: 2)
    defer { removeLog(path) }
    let lines = try readLines(path)
    try writeLines([lines[0], #"{"seq":7,"prev":"#], to: path, finalNewline: false)
    let before = try Data(contentsOf: URL(fileURLWithPath: path))
    let error = try #require(throws: RegistrationError.self) {
      try makeCounterStore(
        LoggingMiddleware(format: .jsonLines, sink: .file(path: path, chained: true)))
    }
    guard case .middlewareRefused(name: "LoggingMiddleware", _) = error else {
      Issue.record("expected the middleware to refuse, got \(error)")
      return
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    #expect(!FileManager.default.fileExists(atPath: path + ".torn"))
  }

  @Test("a chained log whose lock someone else holds is refused as another process's")
  func lockedByAnother() throws {
    let path = try writeChainedLog(count: 2)
    defer { removeLog(path) }
    // A lock belongs to an open file description: this one conflicts as another process's would.
    let holder = open(path, O_RDONLY | O_CLOEXEC)
    try #require(holder >= 0)
    defer { close(holder) }
    try #require(flock(holder, LOCK_EX | LOCK_NB) == 0)
    let error = try #require(throws: RegistrationError.self) {
      try makeCounterStore(
        LoggingMiddleware(format: .jsonLines, sink: .file(path: path, chained: true)))
    }
    guard case .middlewareRefused(name: "LoggingMiddleware", let reason) = error else {
      Issue.record("expected the middleware to refuse, got \(error)")
      return
    }
    #expect(reason.contains("Another process is writing the chained log"))
  }

  @Test(
    "a chained log whose lock comes free within the grace period is opened: a child process being started holds it for a moment"
  )
  func lockHeldForAMoment() throws {
    let path = try writeChainedLog(count: 2)
    defer { removeLog(path) }
    let holder = open(path, O_RDONLY | O_CLOEXEC)
    try #require(holder >= 0)
    try #require(flock(holder, LOCK_EX | LOCK_NB) == 0)
    let released = DispatchSemaphore(value: 0)
    Thread {
      usleep(50_000)
      close(holder)
      released.signal()
    }.start()
    defer { released.wait() }
    let store = try makeCounterStore(
      LoggingMiddleware(format: .jsonLines, sink: .file(path: path, chained: true)))
    store.dispatch(CounterAction.incremented(by: 1))
    #expect(try AuditLog.verify(contentsOf: URL(fileURLWithPath: path)) == 3)
  }

  @Test("a chained file with a text format is refused")
  func chainNeedsJSON() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    #expect(throws: RegistrationError.self) {
      try makeCounterStore(
        LoggingMiddleware(format: .text(style: .compact), sink: .file(path: path, chained: true)))
    }
  }

  @Test("a plain file sink appends text lines")
  func plainFile() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    let store = try makeCounterStore(
      LoggingMiddleware(format: .text(style: .compact), sink: .file(path: path), now: { fixedDate })
    )
    store.dispatch(CounterAction.incremented(by: 2))
    store.dispatch(CounterAction.incremented(by: 3))
    let lines = try readLines(path)
    #expect(lines.count == 2)
    #expect(
      lines[1].hasPrefix(#"#2 2024-05-01T12:00:00.000Z CounterAction {"incremented":{"by":3}} ok"#))
  }
}
