import Foundation
import Logging
import Reduce
import ReduceLogging
import ReduceSwiftLog
import Testing

/// A fixed time for the trails' entries.
private let noon = Date(timeIntervalSince1970: 1_714_564_800)

@Suite struct AuditTrailLoggerTests {
  @Test("a trail's entries reach the logger with their mutators, and without a diff")
  func trailEntries() throws {
    let (logger, recorder) = recordingLogger()
    let store = try Store(
      initialState: Ledger(), mutators: [balances, owner],
      middleware: [AuditTrail<Ledger>(logger: logger, now: { noon })])
    _ = try store.dispatch(Deposit(account: "ada", amount: 100)).get()
    _ = try store.dispatch(Withdraw(account: "ada", amount: 40)).get()

    let events = recorder.events
    #expect(events.map(\.message) == ["Deposit", "Withdraw"])
    #expect(events.map(\.level) == [.info, .info])
    #expect(events.map { $0[Key.sequence] } == ["1", "2"])
    #expect(
      events.map { $0.array(Key.mutators) } == [[#"\Ledger.balances"#], [#"\Ledger.balances"#]])
    #expect(events.first?[Key.payload] == #"{"account":"ada","amount":100}"#)
    #expect(events.first?[Key.outcome] == "ok")
    #expect(events.first?[Key.durationNanoseconds] != nil)
    #expect(events.first?[Key.changeCount] == nil)
    #expect(events.first?[Key.changedPaths] == nil)
  }

  @Test("a refused change is an error event, and the state is unchanged")
  func refusedChange() throws {
    let (logger, recorder) = recordingLogger()
    let store = try Store(
      initialState: Ledger(), mutators: [balances],
      middleware: [AuditTrail<Ledger>(logger: logger)])
    let result = store.dispatch(Withdraw(account: "ada", amount: 5))
    guard case .failure(let error) = result else {
      Issue.record("the overdraft succeeded")
      return
    }
    let event = try #require(recorder.events.first)
    #expect(event.level == .error)
    #expect(event.message == "Withdraw")
    #expect(event[Key.outcome] == "failed")
    #expect(event.error == error.description)
    #expect(event[Key.mutators] == nil)
    #expect(store.state == Ledger())
  }

  @Test("the trail's levels are its own")
  func trailLevels() throws {
    let (logger, recorder) = recordingLogger()
    let store = try Store(
      initialState: Ledger(), mutators: [balances],
      middleware: [
        AuditTrail<Ledger>(logger: logger, successLevel: .notice, failureLevel: .critical)
      ])
    store.dispatch(Deposit(account: "ada", amount: 1))
    store.dispatch(Withdraw(account: "ada", amount: 5))
    #expect(recorder.events.map(\.level) == [.notice, .critical])
  }

  @Test("a trail logs to a logger and another keeps the durable file: the same entries")
  func loggerAndFile() throws {
    let path = temporaryLogPath()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let (logger, recorder) = recordingLogger(metadataProvider: requestIDProvider)
    let store = try Store(
      initialState: Ledger(), mutators: [balances],
      middleware: [
        AuditTrail<Ledger>(logger: logger),
        AuditTrail<Ledger>(path: path, durability: .everyEntry),
      ])
    #expect(store.middlewareNames == ["SwiftLogAuditTrail", "AuditTrail"])
    try RequestContext.$id.withValue("req-7") {
      _ = try store.dispatch(Deposit(account: "ada", amount: 100)).get()
      _ = try store.dispatch(Deposit(account: "bo", amount: 5)).get()
    }
    store.dispatch(Withdraw(account: "bo", amount: 50))

    let events = recorder.events
    #expect(events.map(\.message) == ["Deposit", "Deposit", "Withdraw"])
    #expect(events.map(\.level) == [.info, .info, .error])
    #expect(events.map { $0["request.id"] } == ["req-7", "req-7", nil])
    #expect(try AuditLog.verify(contentsOf: URL(fileURLWithPath: path)) == 3)
    let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
    #expect(lines.count == 3)
    #expect(lines.last?.contains(#""outcome":"failed""#) == true)
  }

  @Test("placed before it, the logger's trail logs a change the file's trail refused as failed")
  func fileRefusal() throws {
    let (logger, recorder) = recordingLogger()
    let store = try Store(
      initialState: Ledger(), mutators: [balances],
      middleware: [
        AuditTrail<Ledger>(logger: logger),
        AuditTrail<Ledger>(name: "file", sink: RefusingSink()),
      ])
    let result = store.dispatch(Deposit(account: "ada", amount: 100))
    guard case .failure(.middlewareFailed(let name, _, _)) = result else {
      Issue.record("the deposit was not refused by the file's trail: \(result)")
      return
    }
    #expect(name == "file")
    #expect(store.state == Ledger())
    let event = try #require(recorder.events.first)
    #expect(recorder.events.count == 1)
    #expect(event.level == .error)
    #expect(event[Key.outcome] == "failed")
    #expect(event.error?.contains("disk full") == true)
  }

  @Test("the logger's trail redacts secrets by default, unlike a file trail")
  func trailRedaction() throws {
    let (logger, recorder) = recordingLogger()
    let store = try Store(
      initialState: Ledger(), mutators: [owner],
      middleware: [AuditTrail<Ledger>(logger: logger)])
    store.dispatch(ClaimLedger(name: "ada", apiToken: "f00dcafe"))
    let event = try #require(recorder.events.first)
    #expect(event[Key.payload] == #"{"apiToken":"<redacted>","name":"ada"}"#)
    for (key, value) in event.metadata {
      #expect(!"\(value)".contains("f00dcafe"), "\(key) shows the token")
    }
  }

  @Test("redaction can be chosen: none, or other fields")
  func trailRedactionChosen() throws {
    let (logger, recorder) = recordingLogger()
    let store = try Store(
      initialState: Ledger(), mutators: [owner],
      middleware: [AuditTrail<Ledger>(logger: logger, redactedFields: ["name"])])
    store.dispatch(ClaimLedger(name: "ada", apiToken: "f00dcafe"))
    #expect(
      recorder.events.first?[Key.payload] == #"{"apiToken":"f00dcafe","name":"<redacted>"}"#)
  }

  @Test("a filtered action is passed on and not logged")
  func trailFilter() throws {
    let (logger, recorder) = recordingLogger()
    let store = try Store(
      initialState: Ledger(), mutators: [balances],
      middleware: [AuditTrail<Ledger>(logger: logger, filter: { !($0 is Deposit) })])
    store.dispatch(Deposit(account: "ada", amount: 10))
    store.dispatch(Withdraw(account: "ada", amount: 3))
    #expect(recorder.events.map(\.message) == ["Withdraw"])
    #expect(store.state.balances == ["ada": 7])
  }
}
