import Foundation
import ReduceLogging
import Testing

/// A log of three entries whose last line is replaced by `tail`, without a newline.
func logEndingIn(_ tail: (_ lines: [String]) -> String, name: String = #function) throws -> String {
  let path = try writeChainedLog(count: 3, name: name)
  let lines = try readLines(path)
  try writeLines(Array(lines[0..<2]) + [tail(lines)], to: path, finalNewline: false)
  return path
}

/// The start of the entry that follows `line`, as the logger writes it.
func header(sequence: Int, after line: String) -> String {
  #"{"seq":\#(sequence),"prev":"\#(AuditLog.hash(ofLine: Array(line.utf8)))""#
}

@Suite struct TornLineTests {
  /// What an interrupted write of entry 3 can leave.
  static let tornTails: [String: @Sendable ([String]) -> String] = [
    "a brace": { _ in "{" },
    "half the header": { lines in String(header(sequence: 3, after: lines[1]).prefix(20)) },
    "the header but the hash's last digit": { lines in
      String(header(sequence: 3, after: lines[1]).dropLast(2))
    },
    "the header and some members": { lines in
      String(lines[2].prefix(header(sequence: 3, after: lines[1]).utf8.count + 30))
    },
    "the whole entry without its newline": { lines in lines[2] },
  ]

  /// What no crash can leave.
  static let tamperedTails: [String: @Sendable ([String]) -> String] = [
    "another seq": { lines in lines[2].replacingOccurrences(of: #""seq":3"#, with: #""seq":4"#) },
    "another seq, cut short": { lines in
      String(lines[2].replacingOccurrences(of: #""seq":3"#, with: #""seq":9"#).prefix(40))
    },
    "a seq with a digit more": { _ in #"{"seq":30"# },
    "another prev": { lines in
      lines[2].replacingOccurrences(
        of: AuditLog.hash(ofLine: Array(lines[1].utf8)), with: String(repeating: "e", count: 64))
    },
    "another prev, cut short": { lines in
      String(
        header(sequence: 3, after: lines[0]).prefix(
          header(sequence: 3, after: lines[0]).utf8.count - 3))
    },
    "broken JSON after the header": { lines in header(sequence: 3, after: lines[1]) + ",]" },
    "a complete entry in another member order": { lines in
      #"{"prev":"\#(AuditLog.hash(ofLine: Array(lines[1].utf8)))","seq":3,"ts":"x""#
    },
    "a closing brace": { _ in "}" },
  ]

  @Test(
    "an unterminated last line that begins the entry that was due is torn",
    arguments: tornTails.keys.sorted())
  func torn(_ name: String) throws {
    let tail = try #require(Self.tornTails[name])
    let path = try logEndingIn(tail)
    defer { removeLog(path) }
    #expect(throws: AuditLogError.tornLastLine(line: 3)) {
      try AuditLog.verify(contentsOf: URL(fileURLWithPath: path))
    }
  }

  @Test(
    "any other unterminated last line is tampering, at that line",
    arguments: tamperedTails.keys.sorted())
  func tampered(_ name: String) throws {
    let tail = try #require(Self.tamperedTails[name])
    let path = try logEndingIn(tail)
    defer { removeLog(path) }
    let error = try #require(throws: AuditLogError.self) {
      try AuditLog.verify(contentsOf: URL(fileURLWithPath: path))
    }
    #expect(!error.isTornLastLine)
    #expect(error.line == 2 || error.line == 3)
  }

  @Test("a log whose only line is torn is torn, whatever entry it would have been")
  func tornOnlyLine() throws {
    #expect(throws: AuditLogError.tornLastLine(line: 1)) {
      try AuditLog.verify(Array(#"{"seq":1,"prev":"000"#.utf8))
    }
    #expect(throws: AuditLogError.tornLastLine(line: 1)) {
      try AuditLog.verify(Array(#"{"seq":1824,"prev":"9c1"#.utf8))
    }
    #expect(throws: AuditLogError.self) {
      try AuditLog.verify(Array(#"{"seq":01"#.utf8))
    }
  }

  @Test("a directory cannot be verified: a readable reason, not a Foundation error")
  func directory() throws {
    let directory = FileManager.default.temporaryDirectory.path
    #expect(
      throws: AuditLogError.unreadable(path: directory, reason: "it is a directory, not a log file")
    ) {
      try AuditLog.verify(contentsOf: URL(fileURLWithPath: directory))
    }
  }

  @Test("a missing file cannot be verified, and says so")
  func missingFile() throws {
    let path = temporaryLogPath()
    let error = try #require(throws: AuditLogError.self) {
      try AuditLog.verify(contentsOf: URL(fileURLWithPath: path))
    }
    #expect(error == .unreadable(path: path, reason: "no such file or directory"))
    #expect(error.isUnreadable)
    #expect(error.line == nil)
  }

  @Test("a file whose first entry has seq above 1 continues an earlier file; it is not tampering")
  func continuation() throws {
    let path = try writeChainedLog(count: 4)
    defer { removeLog(path) }
    let lines = try readLines(path)
    try writeLines(Array(lines[2...]), to: path)
    let verification = try AuditLog.verify(contentsOf: [URL(fileURLWithPath: path)])
    #expect(verification.entries == 2)
    #expect(verification.firstSequence == 3)
    #expect(verification.lastSequence == 4)
    #expect(verification.continuesEarlierFile)
    #expect(verification.firstPreviousHash == AuditLog.hash(ofLine: Array(lines[1].utf8)))
  }

  @Test("a file that starts above 1 but holds an earlier entry is out of order at line 1")
  func continuationOutOfOrder() throws {
    let path = try writeChainedLog(count: 2)
    defer { removeLog(path) }
    let lines = try readLines(path)
    try writeLines([lines[1], lines[0]], to: path)
    #expect(throws: AuditLogError.sequenceGap(line: 1, expected: 1, found: 2)) {
      try AuditLog.verify(contentsOf: URL(fileURLWithPath: path))
    }
  }
}
