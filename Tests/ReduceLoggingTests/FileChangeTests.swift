import Foundation
import Reduce
import Testing

@testable import ReduceLogging

/// Truncates a file in place to `size` bytes, as logrotate's `copytruncate` does (to 0).
func truncateFile(_ path: String, to size: Int) throws {
  let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
  try handle.truncate(atOffset: UInt64(size))
  try handle.close()
}

/// Appends bytes to a file, as another writer would.
func appendBytes(_ text: String, to path: String) throws {
  let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
  try handle.seekToEnd()
  try handle.write(contentsOf: Data(text.utf8))
  try handle.close()
}

@Suite struct FileChangeTests {
  @Test(
    "a durable log deleted while open: the store reports it, and 50 more dispatches all fail to log",
    .timeLimit(.minutes(1)))
  func deletedWhileOpenThroughTheStore() async throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    let sink = FileLogSink(path: path, durability: .everyEntry, chained: true)
    let store = try makeCounterStore(LoggingMiddleware(format: .jsonLines, sink: sink))
    var errors = store.errors.makeAsyncIterator()
    store.dispatch(CounterAction.incremented(by: 1))
    try FileManager.default.removeItem(atPath: path)
    for _ in 0..<50 { store.dispatch(CounterAction.incremented(by: 1)) }
    #expect(store.state.count == 51)
    let error = try #require(await errors.next())
    guard case .middlewareFailed(_, _, let underlying) = error else {
      Issue.record("expected a middleware failure, got \(error)")
      return
    }
    #expect(underlying as? LogSinkError == .fileRemoved(path: path))
    #expect(throws: LogSinkError.fileRemoved(path: path)) { try sink.write(counterRecord(52)) }
    #expect(!FileManager.default.fileExists(atPath: path))
  }

  @Test("a durable plain log deleted while open fails at the next flush, and every write after")
  func deletedPlainDurable() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    let sink = FileLogSink(path: path, durability: .everyEntry)
    try sink.write(counterRecord(1))
    try sink.waitUntilDurable()
    try FileManager.default.removeItem(atPath: path)
    try sink.write(counterRecord(2))
    #expect(throws: LogSinkError.fileRemoved(path: path)) { try sink.waitUntilDurable() }
    #expect(throws: LogSinkError.fileRemoved(path: path)) { try sink.write(counterRecord(3)) }
  }

  @Test("a chained log moved away while open is reported as removed at the next flush or look-up")
  func movedAway() throws {
    let path = temporaryLogPath()
    let moved = path + ".moved"
    defer {
      removeLog(path)
      removeLog(moved)
    }
    let sink = FileLogSink(path: path, durability: .buffered, chained: true)
    try sink.write(counterRecord(1))
    try FileManager.default.moveItem(atPath: path, toPath: moved)
    // A flush always looks the path up (a write, at most every 100 ms).
    #expect(throws: LogSinkError.fileRemoved(path: path)) { try sink.flush() }
    #expect(throws: LogSinkError.fileRemoved(path: path)) { try sink.write(counterRecord(2)) }
    #expect(try readLines(moved).count == 1)
  }

  @Test("a buffered chained log deleted while open is reported as removed at the next flush")
  func deletedBuffered() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    let sink = FileLogSink(path: path, durability: .buffered, chained: true)
    try sink.write(counterRecord(1))
    try FileManager.default.removeItem(atPath: path)
    // A buffered write asks the file only its size; the look-up of a flush finds it gone.
    #expect(throws: LogSinkError.fileRemoved(path: path)) { try sink.flush() }
    #expect(throws: LogSinkError.fileRemoved(path: path)) { try sink.write(counterRecord(2)) }
  }

  @Test("a durable chained log deleted while open stops the sink at the next write")
  func deletedDurableAtWrite() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    let sink = FileLogSink(path: path, durability: .everyEntry, chained: true)
    try sink.write(counterRecord(1))
    try FileManager.default.removeItem(atPath: path)
    #expect(throws: LogSinkError.fileRemoved(path: path)) { try sink.write(counterRecord(2)) }
  }

  @Test("a chained log replaced by another file while open is reported as replaced at a flush")
  func replaced() throws {
    let path = temporaryLogPath()
    let moved = path + ".moved"
    defer {
      removeLog(path)
      removeLog(moved)
    }
    let sink = FileLogSink(path: path, chained: true)
    try sink.write(counterRecord(1))
    try FileManager.default.moveItem(atPath: path, toPath: moved)
    try Data().write(to: URL(fileURLWithPath: path))
    #expect(throws: LogSinkError.fileReplaced(path: path)) { try sink.flush() }
    #expect(throws: LogSinkError.fileReplaced(path: path)) { try sink.write(counterRecord(2)) }
    #expect(try readLines(path).isEmpty)
    #expect(try readLines(moved).count == 1)
  }

  @Test("bytes appended to a chained log by someone else stop the sink before it writes after them")
  func appendedBySomeoneElse() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    let sink = FileLogSink(path: path, chained: true)
    try sink.write(counterRecord(1))
    let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    try appendBytes(#"{"seq":2,"prev":"ab"#, to: path)
    #expect(
      throws: LogSinkError.fileChanged(
        path: path, expectedSize: Int64(size), foundSize: Int64(size + 19))
    ) { try sink.write(counterRecord(2)) }
    // Not the start of entry 2 (its prev is not the first line's hash): tampering, not a crash.
    let error = try #require(throws: AuditLogError.self) {
      try AuditLog.verify(contentsOf: URL(fileURLWithPath: path))
    }
    #expect(error.line == 2)
    #expect(!error.isTornLastLine)
  }

  @Test("a chained log cut short, but not to nothing, is tampering: the sink stops")
  func cutShort() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    let sink = FileLogSink(path: path, chained: true)
    try sink.write(counterRecord(1))
    try sink.write(counterRecord(2))
    let first = try #require(try readLines(path).first)
    let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    try truncateFile(path, to: first.utf8.count + 1)
    #expect(
      throws: LogSinkError.fileChanged(
        path: path, expectedSize: Int64(size), foundSize: Int64(first.utf8.count + 1))
    ) { try sink.write(counterRecord(3)) }
  }

  @Test(
    "after a copy-and-truncate rotation the chain goes on in the emptied file, and the copy and the file verify as one log"
  )
  func copyTruncate() throws {
    let path = temporaryLogPath()
    let rotated = path + ".1"
    defer {
      removeLog(path)
      removeLog(rotated)
    }
    let sink = FileLogSink(path: path, durability: .everyEntry, chained: true)
    for step in 1...3 { try sink.write(counterRecord(step)) }
    try sink.waitUntilDurable()
    try FileManager.default.copyItem(atPath: path, toPath: rotated)
    try truncateFile(path, to: 0)
    for step in 4...5 { try sink.write(counterRecord(step)) }
    try sink.waitUntilDurable()
    let current = try AuditLog.verify(contentsOf: [URL(fileURLWithPath: path)])
    #expect(current.entries == 2)
    #expect(current.firstSequence == 4)
    #expect(current.continuesEarlierFile)
    let copy = try AuditLog.verify(contentsOf: [URL(fileURLWithPath: rotated)])
    #expect(!copy.continuesEarlierFile)
    #expect(current.firstPreviousHash == copy.lastHash)
    let both = try AuditLog.verify(contentsOf: [rotated, path].map { URL(fileURLWithPath: $0) })
    #expect(both.entries == 5)
    #expect(both.firstSequence == 1)
    #expect(both.lastHash == current.lastHash)
    #expect(try AuditLog.verify(contentsOf: URL(fileURLWithPath: path)) == 2)
  }

  @Test("a file that does not continue the one before it is named, with the reason")
  func filesDoNotLink() throws {
    let first = try writeChainedLog(count: 2, name: "first")
    let second = try writeChainedLog(count: 2, name: "second")
    defer {
      removeLog(first)
      removeLog(second)
    }
    let error = try #require(throws: AuditLogError.self) {
      try AuditLog.verify(contentsOf: [first, second].map { URL(fileURLWithPath: $0) })
    }
    guard case .filesDoNotLink(path: second, previousFile: first, _) = error else {
      Issue.record("expected the second file not to link to the first, got \(error)")
      return
    }
  }

  @Test("a missing piece between rotated files is a gap between them")
  func missingPiece() throws {
    let path = temporaryLogPath()
    let pieces = [path + ".1", path + ".2"]
    defer { for file in [path] + pieces { removeLog(file) } }
    let sink = FileLogSink(path: path, chained: true)
    for (index, piece) in pieces.enumerated() {
      for step in 1...2 { try sink.write(counterRecord(index * 2 + step)) }
      try FileManager.default.copyItem(atPath: path, toPath: piece)
      try truncateFile(path, to: 0)
    }
    try sink.write(counterRecord(5))
    let all = [pieces[0], pieces[1], path].map { URL(fileURLWithPath: $0) }
    #expect(try AuditLog.verify(contentsOf: all).entries == 5)
    let error = try #require(throws: AuditLogError.self) {
      try AuditLog.verify(contentsOf: [all[0], all[2]])
    }
    guard case .filesDoNotLink(path: path, previousFile: pieces[0], let reason) = error else {
      Issue.record("expected a gap between the files, got \(error)")
      return
    }
    #expect(reason.contains("number 5 where 3 was expected"))
  }

  @Test("a second sink for a chained file already open is refused when the file was changed")
  func secondSinkOnChangedFile() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    let first = try makeCounterStore(
      LoggingMiddleware(format: .jsonLines, sink: .file(path: path, chained: true)))
    first.dispatch(CounterAction.incremented(by: 1))
    first.dispatch(CounterAction.incremented(by: 2))
    let lines = try readLines(path)
    let torn = #"{"seq":3,"prev":""# + AuditLog.hash(ofLine: Array(lines[1].utf8)).prefix(9)
    try appendBytes(torn, to: path)
    let before = try Data(contentsOf: URL(fileURLWithPath: path))
    let error = try #require(throws: RegistrationError.self) {
      try makeCounterStore(
        LoggingMiddleware(format: .jsonLines, sink: .file(path: path, chained: true)))
    }
    guard case .middlewareRefused(_, let reason) = error else {
      Issue.record("expected the middleware to be refused, got \(error)")
      return
    }
    #expect(reason.contains("changed by someone else"))
    first.dispatch(CounterAction.incremented(by: 3))
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    #expect(throws: AuditLogError.tornLastLine(line: 3)) {
      try AuditLog.verify(contentsOf: URL(fileURLWithPath: path))
    }
  }

  @Test("a second sink for a chained file edited in place at its end is refused")
  func secondSinkOnEditedFile() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    let sink = FileLogSink(path: path, chained: true)
    try sink.write(counterRecord(1))
    var lines = try readLines(path)
    lines[0] = lines[0].replacingOccurrences(of: #""by":1"#, with: #""by":7"#)
    try writeLines(lines, to: path)
    let error = try #require(throws: LogSinkError.self) {
      try FileLogSink(path: path, chained: true).write(counterRecord(2))
    }
    guard case .cannotContinueChain(path: path, _) = error else {
      Issue.record("expected the chain not to be continued, got \(error)")
      return
    }
    withExtendedLifetime(sink) {}
  }

  @Test("copies of one sink value share its writer without a check")
  func copiesShare() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    let sink = FileLogSink(path: path, chained: true)
    let copy = sink
    try sink.write(counterRecord(1))
    try copy.write(counterRecord(2))
    #expect(copy.writtenSize == sink.writtenSize)
    #expect(try AuditLog.verify(contentsOf: URL(fileURLWithPath: path)) == 2)
  }
}
