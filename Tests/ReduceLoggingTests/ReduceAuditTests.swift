import Foundation
import ReduceExecutableSupport
import ReduceLogging
import Testing

/// Runs the built `reduce-audit` executable.
enum AuditCommand {
  static func run(_ arguments: [String]) throws -> ExecutableRun {
    try Executables.run("reduce-audit", arguments)
  }
}

@Suite struct ReduceAuditTests {
  @Test("verify prints the entry count and exits 0 for an intact log", .timeLimit(.minutes(1)))
  func verifyIntact() throws {
    let path = try writeChainedLog(count: 3)
    defer { removeLog(path) }
    let result = try AuditCommand.run(["verify", path])
    #expect(result.status == 0)
    #expect(result.standardOutput == "\(path): 3 entries, chain intact\n")
  }

  @Test("verify names the first bad line and exits 1 for a tampered log", .timeLimit(.minutes(1)))
  func verifyTampered() throws {
    let path = try writeChainedLog(count: 3)
    defer { removeLog(path) }
    var lines = try readLines(path)
    lines.remove(at: 1)
    try writeLines(lines, to: path)
    let result = try AuditCommand.run(["verify", path])
    #expect(result.status == 1)
    #expect(result.standardError.hasPrefix("\(path): line 2: sequence number 3 where 2"))
  }

  @Test("verify exits 2 when only the last line is torn", .timeLimit(.minutes(1)))
  func verifyTorn() throws {
    let path = try writeChainedLog(count: 3)
    defer { removeLog(path) }
    let lines = try readLines(path)
    try writeLines(
      Array(lines[0..<2]) + [String(lines[2].prefix(40))], to: path, finalNewline: false)
    let result = try AuditCommand.run(["verify", path])
    #expect(result.status == 2)
    #expect(result.standardError.contains("line 3: the last line is incomplete"))
  }

  @Test("show prints the entries, filtered by action and time", .timeLimit(.minutes(1)))
  func show() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    let store = try makeCounterStore(
      LoggingMiddleware(
        format: .jsonLines, sink: .file(path: path, chained: true), clock: SteppingClock(),
        now: { fixedDate }))
    store.dispatch(CounterAction.incremented(by: 2))
    store.dispatch(Note(text: "hi"))
    let all = try AuditCommand.run(["show", path])
    #expect(all.status == 0)
    #expect(
      all.standardOutput == """
        #1 2024-05-01T12:00:00.000Z CounterAction
          payload: {"incremented":{"by":2}}
          outcome: ok
          duration: 0.250ms
          changes:
            count: 0 -> 2

        #2 2024-05-01T12:00:00.000Z Note
          outcome: ok
          duration: 0.250ms
          changes:
            history[0]: + 2

        """)
    let notes = try AuditCommand.run(["show", path, "--action", "Note"])
    #expect(notes.standardOutput.hasPrefix("#2 "))
    let later = try AuditCommand.run(["show", path, "--since", "2024-05-02"])
    #expect(later.status == 0)
    #expect(later.standardOutput.isEmpty)
  }

  @Test("usage errors exit 64 with a usage line", .timeLimit(.minutes(1)))
  func usage() throws {
    for arguments in [[], ["verify"], ["frobnicate"], ["show"], ["show", "x", "--since", "soon"]] {
      let process = try AuditCommand.run(arguments)
      #expect(process.status == 64, "\(arguments)")
      #expect(process.standardError.contains("usage: reduce-audit verify FILE"), "\(arguments)")
    }
  }

  @Test(
    "a directory or a missing file is named in a sentence, with exit status 66",
    .timeLimit(.minutes(1)))
  func unreadable() throws {
    let directory = FileManager.default.temporaryDirectory.path
    let missing = temporaryLogPath()
    let cases = [
      (["verify", directory], "\(directory): cannot read it: it is a directory, not a log file\n"),
      (["show", directory], "\(directory): cannot read it: it is a directory, not a log file\n"),
      (["verify", missing], "\(missing): cannot read it: no such file or directory\n"),
      (["show", missing], "\(missing): cannot read it: no such file or directory\n"),
    ]
    for (arguments, message) in cases {
      let result = try AuditCommand.run(arguments)
      #expect(result.status == 66, "\(arguments)")
      #expect(result.standardError == message, "\(arguments)")
      #expect(result.standardOutput.isEmpty, "\(arguments)")
    }
  }

  @Test(
    "verify with several files checks them as one log; a continued file alone is refused",
    .timeLimit(.minutes(1)))
  func verifyRotated() throws {
    let path = try writeChainedLog(count: 4)
    let rotated = path + ".1"
    defer {
      removeLog(path)
      removeLog(rotated)
    }
    let lines = try readLines(path)
    try writeLines(Array(lines[0..<2]), to: rotated)
    try writeLines(Array(lines[2...]), to: path)
    let both = try AuditCommand.run(["verify", rotated, path])
    #expect(both.status == 0)
    #expect(both.standardOutput == "\(rotated), \(path): 4 entries in 2 files, chain intact\n")
    // Alone, the file is missing its first two entries: not intact unless its start is named.
    let alone = try AuditCommand.run(["verify", path])
    #expect(alone.status == 3)
    #expect(
      alone.standardError.hasPrefix(
        "\(path): line 1: the log starts at entry 3: the 2 entries before it are missing"))
    let named = try AuditCommand.run(["verify", "--from-seq", "3", path])
    #expect(named.status == 0)
    #expect(
      named.standardOutput.hasPrefix(
        "\(path): 2 entries, chain intact\nnote: the first entry is number 3"))
    let reversed = try AuditCommand.run(["verify", path, rotated])
    #expect(reversed.status == 1)
    #expect(reversed.standardError.hasPrefix("\(rotated): line 1: does not continue \(path)"))
  }

  @Test(
    "show tells a torn last line from an unfinished line that no crash leaves",
    .timeLimit(.minutes(1)))
  func showTornOrTampered() throws {
    let path = try writeChainedLog(count: 2)
    defer { removeLog(path) }
    let lines = try readLines(path)
    try writeLines([lines[0], String(lines[1].prefix(30))], to: path, finalNewline: false)
    let torn = try AuditCommand.run(["show", path])
    #expect(torn.status == 2)
    #expect(torn.standardError.contains("line 2: the last line is incomplete"))
    try writeLines([lines[0], #"{"seq":9,"prev":"#], to: path, finalNewline: false)
    let tampered = try AuditCommand.run(["show", path])
    #expect(tampered.status == 1)
    #expect(tampered.standardError.hasPrefix("\(path): line 2: not a valid entry"))
  }
}
