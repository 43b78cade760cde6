import Foundation
import Reduce
import Testing

@testable import ReduceLogging

/// Lines written by the audit trail before its payloads, numbers and timestamps were written as
/// bytes (an audited ledger of `reduce-bench`, 25 November): the format has not changed, so
/// those logs verify, and the same entries are written as the same bytes today.
@Suite struct LogCompatibilityTests {
  static let earlierLines = [
    #"{"seq":1,"prev":"0000000000000000000000000000000000000000000000000000000000000000","#
      + #""ts":"2026-11-25T12:31:35.637Z","action":"LedgerEntry","#
      + #""payload":{"deposited":{"account":0,"amount":5}},"outcome":"ok","durationNs":11027,"#
      + #""mutators":["\\BenchLedger.balances"]}"#,
    #"{"seq":2,"prev":"08bf19b2d568076ad80eee00caddf8f828b181cd50c719478593a517fcff375b","#
      + #""ts":"2026-11-25T12:31:35.637Z","action":"LedgerEntry","#
      + #""payload":{"withdrew":{"account":0,"amount":5}},"outcome":"ok","durationNs":2293,"#
      + #""mutators":["\\BenchLedger.balances"]}"#,
    #"{"seq":3,"prev":"a60a23967f14834c03ae625738d51b2dcbf21432283dd3a5f4c84087ab45611d","#
      + #""ts":"2026-11-25T12:31:35.637Z","action":"LedgerEntry","#
      + #""payload":{"deposited":{"account":1,"amount":5}},"outcome":"ok","durationNs":1372,"#
      + #""mutators":["\\BenchLedger.balances"]}"#,
  ]

  enum LedgerEntry: Action, Codable {
    case deposited(account: Int, amount: Int)
    case withdrew(account: Int, amount: Int)
  }

  @Test("a log written by the earlier code verifies")
  func earlierLogVerifies() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    try (Self.earlierLines.joined(separator: "\n") + "\n").write(
      toFile: path, atomically: true, encoding: .utf8)
    let entries = try AuditLog.verify(contentsOf: URL(fileURLWithPath: path))
    #expect(entries == 3)
  }

  @Test("the same entries are written as the same lines, chained by the same hashes")
  func sameBytes() throws {
    let actions: [LedgerEntry] = [
      .deposited(account: 0, amount: 5), .withdrew(account: 0, amount: 5),
      .deposited(account: 1, amount: 5),
    ]
    let encoder = ActionEncoder(redactor: Redactor([]))
    var previous = SHA256.Digest.zero
    for (index, action) in actions.enumerated() {
      let earlier = try JSONParser.parse(Array(Self.earlierLines[index].utf8))
      let text = try #require(earlier["ts"]?.stringValue)
      let timestamp = try #require(Timestamp.parse(text))
      let nanoseconds = try #require(earlier["durationNs"]?.intValue)
      var entry = LogEntry(
        sequence: index + 1, timestamp: timestamp, action: "LedgerEntry", payload: nil,
        outcome: .ok, duration: .nanoseconds(nanoseconds), changes: nil,
        mutators: ["\\BenchLedger.balances"])
      entry.payloadStorage = encoder.jsonBytes(of: action).map(PayloadStorage.encoded)
      let line = EntryFormatter.jsonLineBytes(entry, sequence: index + 1, previous: previous)
      #expect(String(decoding: line, as: UTF8.self) == Self.earlierLines[index])
      // As the audit trail makes the entry (the store's mutator keys as they are), and as a
      // chained writer builds the line.
      let asRecorded = LogEntry(
        sequence: index + 1, timestamp: timestamp, action: "LedgerEntry",
        payloadStorage: entry.payloadStorage, outcome: .ok, duration: .nanoseconds(nanoseconds),
        mutators: [MutatorKey("\\BenchLedger.balances")])
      #expect(asRecorded.mutators == entry.mutators)
      let buffer = LineBuffer()
      var output = buffer
      EntryFormatter.writeJSONLine(
        asRecorded, sequence: index + 1, previous: previous, to: &output)
      #expect(Array(buffer.bytes) == line)
      previous = SHA256.digest(of: line)
    }
  }
}
