import Foundation
import Logging
import Reduce
import ReduceLogging
import ReduceSwiftLog
import Testing

// The examples of README.md and of Guides/Logging.md ("Forwarding to swift-log"), as they are
// written there, run against a recording handler.

/// The guide's state, cut to what its example needs.
private struct AppState: Equatable, Sendable {
  var todos: [String] = []
}

private enum TodoAction: Action, Encodable {
  case added(String)
}

private let todos = Mutator(\AppState.todos) { (todos: inout [String], action: TodoAction) in
  if case .added(let title) = action { todos.append(title) }
}

/// README.md, "Usage": a debug log and an audit trail that both log to one logger.
private func makeStore(logger: Logger, auditLog path: String) throws -> Store<Ledger> {
  try Store(
    initialState: Ledger(), mutators: [balances],
    middleware: [
      LoggingMiddleware<Ledger>(name: "debug", sink: .logger(logger, successLevel: .debug)),
      AuditTrail<Ledger>(logger: logger),
      AuditTrail<Ledger>(path: path, durability: .everyEntry),
    ])
}

@Suite struct GuideExamplesTests {
  @Test("Guides/Logging.md: a logging middleware forwards to a logger")
  func loggingGuide() throws {
    let (recorded, recorder) = recordingLogger()
    // As in the guide, with the recording logger for `Logger(label: "store")`.
    let logger = recorded
    let debug = LoggingMiddleware<AppState>(sink: .logger(logger))
    let store = try Store(initialState: AppState(), mutators: [todos], middleware: [debug])
    store.dispatch(TodoAction.added("Milk"))

    let event = try #require(recorder.events.first)
    #expect(event.message == "TodoAction")
    #expect(event.level == .info)
    #expect(event[Key.payload] == #"{"added":{"_0":"Milk"}}"#)
    #expect(event.array(Key.changedPaths) == ["todos[0]"])
  }

  @Test("README.md: the debug log at debug, the audit trail at info, and the file")
  func readmeUsage() throws {
    let path = temporaryLogPath()
    defer { try? FileManager.default.removeItem(atPath: path) }
    var (logger, recorder) = recordingLogger()
    logger.logLevel = .info
    let store = try makeStore(logger: logger, auditLog: path)
    try RequestContext.$id.withValue("req-42") {
      _ = try store.dispatch(Deposit(account: "ada", amount: 100)).get()
    }
    store.dispatch(Withdraw(account: "ada", amount: 500))

    // The debug log's success is below the logger's level; its failure is not.
    let events = recorder.events
    #expect(events.map(\.level) == [.info, .error, .error])
    #expect(events.map(\.message) == ["Deposit", "Withdraw", "Withdraw"])
    #expect(events[0].array(Key.mutators) == [#"\Ledger.balances"#])
    // The failure: the trail, inside the debug log, logs it first.
    #expect(events[1][Key.changeCount] == nil)
    #expect(events[2][Key.changeCount] == nil, "a failure has no diff")
    #expect(try AuditLog.verify(contentsOf: URL(fileURLWithPath: path)) == 2)
  }

  @Test("README.md: a task-local request id reaches the entries through the metadata provider")
  func readmeRequestID() throws {
    let (logger, recorder) = recordingLogger(metadataProvider: requestIDProvider)
    let store = try Store(
      initialState: Ledger(), mutators: [balances],
      middleware: [AuditTrail<Ledger>(logger: logger)])
    func handleDeposit(request: String, account: String, amount: Int) throws -> Int {
      try RequestContext.$id.withValue(request) {
        try store.dispatch(Deposit(account: account, amount: amount)) { ledger in
          ledger.balances[account, default: 0]
        }.get()
      }
    }
    #expect(try handleDeposit(request: "req-1", account: "ada", amount: 5) == 5)
    #expect(recorder.events.first?["request.id"] == "req-1")
  }
}
