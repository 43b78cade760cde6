import Foundation
import Reduce
import ReduceLogging
import Synchronization
import Testing

// The examples of Guides/Logging.md and Guides/AuditTrail.md, kept here so that they keep
// compiling and doing what the text says. The swift-log adapter in Logging.md is the one
// example that is not here: swift-log is not a dependency of this package.

enum LoggingGuide {
  struct AppState: Equatable, Sendable {
    var todos: [Todo] = []
    var session = Session()
  }

  struct Todo: Equatable, Sendable {
    var title: String
    var isDone = false
  }

  struct Session: Equatable, Sendable {
    var user: String?
    var token: String?
  }

  enum TodoAction: Action, Encodable {
    case added(String)
    case toggled(index: Int)
  }

  enum SessionAction: Action, Encodable {
    case loggedIn(user: String, token: String)
  }

  static let todos = Mutator(\AppState.todos) { (todos: inout [Todo], action: TodoAction) in
    switch action {
    case .added(let title): todos.append(Todo(title: title))
    case .toggled(let index): todos[index].isDone.toggle()
    }
  }

  static let session = Mutator(\AppState.session) {
    (session: inout Session, action: SessionAction) in
    if case .loggedIn(let user, let token) = action {
      session.user = user
      session.token = token
    }
  }

  /// A sink that keeps the last lines in memory, for a debug screen.
  final class MemorySink: LogSink {
    private let lines = Mutex<[String]>([])
    let limit: Int

    init(limit: Int = 100) {
      self.limit = limit
    }

    var recent: [String] { lines.withLock { $0 } }

    func write(_ record: LogRecord) {
      lines.withLock { lines in
        lines.append(record.text)
        if lines.count > limit { lines.removeFirst(lines.count - limit) }
      }
    }
  }
}

enum AuditTrailGuide {
  struct Ledger: Codable, Equatable, Sendable {
    var balances: [String: Int] = [:]
  }

  enum LedgerAction: Action, Codable {
    case deposited(account: String, amount: Int)
    case withdrew(account: String, amount: Int)
  }

  struct InsufficientFunds: Error {}

  static let balances = Mutator(
    \Ledger.balances,
    validate: { (balances: [String: Int], action: LedgerAction) throws(InsufficientFunds) in
      if case .withdrew(let account, let amount) = action, balances[account, default: 0] < amount {
        throw InsufficientFunds()
      }
    },
    reduce: { balances, action in
      switch action {
      case .deposited(let account, let amount): balances[account, default: 0] += amount
      case .withdrew(let account, let amount): balances[account, default: 0] -= amount
      }
    })

  static func makeLedgerStore(auditLog path: String) throws -> Store<Ledger> {
    let store = try Store(initialState: Ledger(), mutators: [balances])
    if FileManager.default.fileExists(atPath: path) {
      // A restart: the state is what the log says it was.
      try AuditLog.replay(
        contentsOf: URL(fileURLWithPath: path), into: store,
        actions: ReplayableActions([LedgerAction.self]))
    }
    try store.use(AuditTrail<Ledger>(name: "audit", path: path, durability: .everyEntry))
    return store
  }

  /// A request handler: the deposit is made and on disk when it returns.
  static func handleDeposit(_ store: Store<Ledger>, account: String, amount: Int) throws -> Int {
    try store.dispatch(LedgerAction.deposited(account: account, amount: amount)) { ledger in
      ledger.balances[account, default: 0]
    }.get()
  }

  /// Watches for entries that could not be written (their changes were not made).
  static func watchAuditFailures(of store: Store<Ledger>) -> Task<Void, Never> {
    // The sequence, not the store, goes into the task: the store can still go away, and the
    // sequence then ends.
    let errors = store.errors
    return Task {
      for await error in errors {
        if case .middlewareFailed(name: "audit", _, let underlying) = error {
          print("audit log failure, the change was not made: \(underlying)")
        }
      }
    }
  }

  static func rotateAuditLog(of store: Store<Ledger>) throws {
    _ = try store.dispatch(RotateAuditLog()).get()
  }

  /// Checks a log at startup or from a cron job.
  static func check(_ path: String) -> String {
    do {
      let count = try AuditLog.verify(contentsOf: URL(fileURLWithPath: path))
      return "\(count) entries, chain intact"
    } catch  where error.isTornLastLine {
      return "crashed during a write; \(error.intactEntries) entries intact"
    } catch {
      return "TAMPERED: \(error)"
    }
  }
}

@Suite struct GuideExamplesTests {
  @Test("Logging.md: the usage example logs to standard error and the store works as usual")
  func loggingUsage() throws {
    typealias AppState = LoggingGuide.AppState
    typealias TodoAction = LoggingGuide.TodoAction
    typealias SessionAction = LoggingGuide.SessionAction
    let todos = LoggingGuide.todos
    let session = LoggingGuide.session

    let logger = LoggingMiddleware<AppState>(format: .text(style: .compact), sink: .standardError)
    let store = try Store(
      initialState: AppState(), mutators: [todos, session], middleware: [logger])
    store.dispatch(SessionAction.loggedIn(user: "ada", token: "f00d"))
    store.dispatch(TodoAction.added("Milk"))

    #expect(store.state.todos == [LoggingGuide.Todo(title: "Milk")])
  }

  @Test("Logging.md: the sample output is what the logger writes")
  func loggingOutput() throws {
    let sink = LoggingGuide.MemorySink()
    let logger = LoggingMiddleware<LoggingGuide.AppState>(
      format: .text(style: .compact), sink: sink, clock: SteppingClock(step: .microseconds(31)),
      now: { fixedDate })
    let store = try Store(
      initialState: LoggingGuide.AppState(), mutators: [LoggingGuide.todos, LoggingGuide.session],
      middleware: [logger])
    store.dispatch(LoggingGuide.SessionAction.loggedIn(user: "ada", token: "f00d"))
    store.dispatch(LoggingGuide.TodoAction.added("Milk"))
    #expect(
      sink.recent == [
        #"#1 2024-05-01T12:00:00.000Z SessionAction {"loggedIn":{"token":"<redacted>","user":"ada"}} ok 0.031ms | session.user: nil -> "ada"; session.token: <redacted> -> <redacted>"#,
        #"#2 2024-05-01T12:00:00.000Z TodoAction {"added":{"_0":"Milk"}} ok 0.031ms | todos[0]: + Todo(title: "Milk", isDone: false)"#,
      ])
  }

  @Test("Logging.md: the memory sink keeps the most recent lines")
  func memorySink() throws {
    let sink = LoggingGuide.MemorySink(limit: 2)
    let store = try Store(
      initialState: LoggingGuide.AppState(), mutators: [LoggingGuide.todos],
      middleware: [LoggingMiddleware<LoggingGuide.AppState>(sink: sink)])
    for title in ["a", "b", "c"] { store.dispatch(LoggingGuide.TodoAction.added(title)) }
    #expect(sink.recent.count == 2)
    #expect(sink.recent.last?.contains("todos[2]") == true)
  }

  @Test("Logging.md: a debug logger and an audit logger in one store, with a filter")
  func twoLoggers() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    let debug = LoggingMiddleware<LoggingGuide.AppState>(
      name: "debug", format: .text(style: .expanded), sink: .standardError,
      filter: { !($0 is LoggingGuide.SessionAction) })
    let audit = LoggingMiddleware<LoggingGuide.AppState>(
      name: "audit", format: .jsonLines,
      sink: .file(path: path, durability: .everyEntry, chained: true),
      includesStateDiff: false)
    let store = try Store(
      initialState: LoggingGuide.AppState(), mutators: [LoggingGuide.todos, LoggingGuide.session],
      middleware: [debug, audit])
    store.dispatch(LoggingGuide.TodoAction.added("Milk"))
    #expect(store.middlewareNames == ["debug", "audit"])
    #expect(try AuditLog.verify(contentsOf: URL(fileURLWithPath: path)) == 1)
  }

  @Test("AuditTrail.md: deposits are made, recorded and verifiable; refusals are recorded too")
  func auditUsage() async throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    let store = try AuditTrailGuide.makeLedgerStore(auditLog: path)
    let watcher = AuditTrailGuide.watchAuditFailures(of: store)
    defer { watcher.cancel() }
    #expect(try AuditTrailGuide.handleDeposit(store, account: "ada", amount: 50) == 50)
    #expect(throws: DispatchError.self) {
      try store.dispatch(AuditTrailGuide.LedgerAction.withdrew(account: "ada", amount: 80)).get()
    }
    #expect(AuditTrailGuide.check(path) == "2 entries, chain intact")
    let lines = try readLines(path)
    #expect(lines[0].contains(#""mutators":["\\Ledger.balances"]"#))
    #expect(lines[1].contains(#""outcome":"failed""#))
  }

  @Test("AuditTrail.md: a restarted server rebuilds its state from the log and continues it")
  func restartableServer() throws {
    let path = temporaryLogPath()
    let archive = path + ".000000000002"
    defer { [path, archive].forEach(removeLog) }
    do {
      let store = try AuditTrailGuide.makeLedgerStore(auditLog: path)
      _ = try AuditTrailGuide.handleDeposit(store, account: "ada", amount: 50)
      _ = try AuditTrailGuide.handleDeposit(store, account: "bob", amount: 7)
      try AuditTrailGuide.rotateAuditLog(of: store)
      _ = store.dispatch(AuditTrailGuide.LedgerAction.withdrew(account: "ada", amount: 20))
      // The process ends here (the store goes away without a word).
    }
    let restarted = try AuditTrailGuide.makeLedgerStore(auditLog: path)
    #expect(restarted.state.balances == ["ada": 30, "bob": 7])
    #expect(try AuditTrailGuide.handleDeposit(restarted, account: "bob", amount: 1) == 8)
    let log = try AuditLog.verify(
      contentsOf: [URL(fileURLWithPath: archive), URL(fileURLWithPath: path)])
    #expect(log.entries == 5)
  }

  @Test("AuditTrail.md: the failure watcher does not keep the store alive")
  func watcherLetsStoreGo() async throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    weak var weakStore: Store<AuditTrailGuide.Ledger>?
    var watcher: Task<Void, Never>?
    do {
      let store = try AuditTrailGuide.makeLedgerStore(auditLog: path)
      weakStore = store
      watcher = AuditTrailGuide.watchAuditFailures(of: store)
    }
    #expect(weakStore == nil)
    // The store went away, so its errors ended, and with them the watcher.
    await watcher?.value
  }

  @Test("AuditTrail.md: the check tells a crash from tampering")
  func auditCheck() throws {
    let path = try writeChainedLog(count: 3)
    defer { removeLog(path) }
    let lines = try readLines(path)
    try writeLines(Array(lines[0..<2]) + ["{\"seq\":3,"], to: path, finalNewline: false)
    #expect(AuditTrailGuide.check(path) == "crashed during a write; 2 entries intact")
    try writeLines([lines[1], lines[0]], to: path)
    #expect(AuditTrailGuide.check(path).hasPrefix("TAMPERED: line 1"))
  }
}
