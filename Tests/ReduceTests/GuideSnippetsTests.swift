import Foundation
import Reduce
import Synchronization
import Testing

// The snippets of Guides/Concepts.md, Guides/WritingMiddleware.md and Getting Started's
// `main.swift` examples (sections 11 and 12), as written there: each namespace holds one
// document's declarations, each test its statements. Keep the two in step.

// MARK: - Concepts

/// Guides/Concepts.md, "The examples' types" and "Lenses in the checks".
enum ConceptsSnippets {
  struct AppState: Equatable, Sendable {
    var count = 0
    var todos: [String] = []
    var alert: String?
  }

  enum CounterAction: Action {
    case incremented(by: Int)
    case reset
  }

  enum SessionAction: Action {
    case loggedIn(String)
    case loggedOut
  }

  enum TodoAction: Action {
    case added(String)
    case removed(index: Int)
  }

  enum AlertAction: Action {
    case shown(String)
  }

  struct Draft: Equatable, Sendable {
    var title = ""
    var body = ""
  }

  struct EditorState: Equatable, Sendable {
    var title = ""
    var body = ""
  }

  enum DraftAction: Action {
    case cleared
  }
}

// MARK: - Writing Middleware

/// The declaration of `Middleware` as Guides/WritingMiddleware.md shows it.
enum MiddlewareProtocolListing {
  // swift-format-ignore: AllPublicDeclarationsHaveDocumentation
  public protocol Middleware<State>: Sendable {
    associatedtype State: Sendable
    var name: String { get }  // default: the type's name
    func handle(_ action: any Action, context: MiddlewareContext<State>, next: Next<State>) throws
    func willAttach(to store: ObjectIdentifier) throws  // default: accepts every store
    func didDetach(from store: ObjectIdentifier)  // default: does nothing
    var commitObserver: CommitObserver<State>? { get }  // default: nil, records nothing
  }
}

/// Guides/WritingMiddleware.md: the shared declarations, the guard, the journal, the recorder.
enum MiddlewareSnippets {
  struct Session: Equatable, Sendable {
    var isAdmin = false
  }

  struct AppState: Equatable, Sendable {
    var session = Session()
    var deleted = 0
  }

  enum AdminAction: Action {
    case deleteAll
  }

  enum AuthError: Error {
    case forbidden
  }

  struct AuthGuard: Middleware {
    func handle(
      _ action: any Action, context: MiddlewareContext<AppState>, next: Next<AppState>
    )
      throws
    {
      if action is AdminAction, !context.state.session.isAdmin { throw AuthError.forbidden }
      try next(action)
    }
  }

  /// Appends lines to a file of yours, and flushes them; throws when it cannot write.
  final class JournalFile: Sendable {
    private let lines = Mutex<[String]>([])

    func append(_ line: String) throws {
      lines.withLock { $0.append(line) }  // a real journal writes to its file here
    }

    func flush() throws {
      // a real journal waits here until what it wrote is on disk (fsync)
    }

    /// For the test: what was appended.
    var written: [String] { lines.withLock { $0 } }
  }

  struct Journal<State: Sendable>: Middleware {
    let name = "journal"
    let file: JournalFile

    var commitObserver: CommitObserver<State>? {
      CommitObserver(
        willCommit: { change in try file.append("\(change.action) \(change.mutators)") },
        afterTurn: { try file.flush() })
    }
  }

  final class ChangeRecorder<State: Sendable, Value: Equatable & Sendable>: Middleware {
    /// One recorded change.
    struct Entry: Sendable {
      let action: any Action
      let before: Value
      let after: Value
    }

    let name: String
    private let entries = Mutex<[Entry]>([])
    private let limit: Int
    private let value: @Sendable (State) -> Value

    init(
      name: String = "recorder", limit: Int = 100,
      watching value: @escaping @Sendable (State) -> Value
    ) {
      self.name = name
      self.limit = limit
      self.value = value
    }

    /// The last `limit` changes recorded, oldest first.
    var recorded: [Entry] { entries.withLock { Array($0.suffix(limit)) } }

    var commitObserver: CommitObserver<State>? {
      CommitObserver(watching: value) { [self] commit in
        guard commit.before != commit.after else { return }
        let entry = Entry(action: commit.action, before: commit.before, after: commit.after)
        entries.withLock { list in
          // At twice the limit, the oldest half goes at once: a commit costs the same
          // whatever the limit (dropping one entry a commit moves all the others).
          if list.count == 2 * limit { list.removeFirst(limit) }
          list.append(entry)
        }
      }
    }
  }

  struct Editor: Equatable, Sendable {
    var title = ""
    var cursor = 0
  }

  enum EditorAction: Action {
    case typed(String)
  }
}

// MARK: - Getting Started: main.swift

/// The `main.swift` of Getting Started's command-line tool; its top level in `main()`.
enum TallyExample {
  struct Tally: Equatable, Sendable {
    var total = 0
    var count = 0
  }

  enum TallyAction: Action {
    case added(Int)
  }

  struct NotANumber: Error, CustomStringConvertible {
    let text: String
    var description: String { "not a number: \(text)" }
  }

  /// The program: a store, an observer, one dispatch per argument.
  static func tally(_ arguments: [String]) throws -> Tally {
    let total = Mutator(\Tally.total) { (total: inout Int, action: TallyAction) in
      if case .added(let number) = action { total += number }
    }
    let count = Mutator(\Tally.count) { (count: inout Int, action: TallyAction) in
      count += 1
    }
    let store = try Store(initialState: Tally(), mutators: [total, count])
    // Runs on the dispatching thread, before `dispatch` returns.
    let printer = store.subscribe(to: \.total, initial: false) { print("total:", $0) }
    defer { printer.cancel() }
    var result = store.state
    for argument in arguments {
      guard let number = Int(argument) else { throw NotANumber(text: argument) }
      result = try store.dispatch(TallyAction.added(number)).get()
    }
    return result
  }

  /// The top level of the `main.swift`: compiled, never called (it reads the process's
  /// arguments and exits on an error).
  static func main() {
    do {
      let result = try tally(Array(CommandLine.arguments.dropFirst()))
      print("\(result.count) numbers, sum \(result.total)")
    } catch {
      print("tally:", error)
      exit(1)
    }
  }
}

/// The `main.swift` of Getting Started's server; its top level in `main()`.
enum LedgerServerExample {
  struct Ledger: Equatable, Sendable {
    var balances: [String: Int] = [:]
  }

  enum LedgerAction: Action {
    case deposited(account: String, amount: Int)
    case withdrew(account: String, amount: Int)
  }

  struct InsufficientFunds: Error {
    let account: String
  }

  /// What every request handler shares: `Sendable`, so the request tasks may hold it.
  final class LedgerService: Sendable {
    private let store: Store<Ledger>

    init() throws {
      // Check, then change: a refused withdrawal has nothing to roll back.
      let balances = Mutator(
        \Ledger.balances,
        validate: { (balances: [String: Int], action: LedgerAction) throws(InsufficientFunds) in
          if case .withdrew(let account, let amount) = action,
            balances[account, default: 0] < amount
          {
            throw InsufficientFunds(account: account)
          }
        },
        reduce: { balances, action in
          switch action {
          case .deposited(let account, let amount): balances[account, default: 0] += amount
          case .withdrew(let account, let amount): balances[account, default: 0] -= amount
          }
        })
      store = try Store(initialState: Ledger(), mutators: [balances])
    }

    /// Answers one request, in the request's task.
    func answer(_ request: String) async -> String {
      let words = request.split(separator: " ").map(String.init)
      guard words.count == 3, let amount = Int(words[2]) else { return "? \(request)" }
      let account = words[1]
      let action: LedgerAction
      switch words[0] {
      case "deposit": action = .deposited(account: account, amount: amount)
      case "withdraw": action = .withdrew(account: account, amount: amount)
      default: return "? \(request)"
      }
      switch await store.send(action, returning: { $0.balances[account, default: 0] }) {
      case .success(let balance): return "\(account): \(balance)"
      case .failure(let error): return "refused: \(error.underlying)"
      }
    }
  }

  /// Answers each request in a task of its own, until there are no more.
  ///
  /// `readLine()` blocks the thread it runs on; an HTTP framework reads its connections without
  /// blocking, and calls the service from a task per request in the same way.
  static func serve(_ service: LedgerService, nextRequest: () -> String?) async {
    await withTaskGroup(of: Void.self) { group in
      while let request = nextRequest() {
        group.addTask { print(await service.answer(request)) }
      }
    }
  }

  /// The top level of the `main.swift`: compiled, never called (it reads standard input).
  static func main() async throws {
    let service = try LedgerService()
    await serve(service) { readLine() }
  }
}

// MARK: - Tests

@Suite struct GuideSnippetsTests {
  /// The guides whose snippets are compiled by tests, with the test files that compile them.
  static let compiledBy: [String: [String]] = [
    "Guides/Concepts.md": ["Tests/ReduceTests/GuideSnippetsTests.swift"],
    "Guides/WritingMiddleware.md": [
      "Tests/ReduceTests/GuideSnippetsTests.swift", "Tests/ReduceTests/GuideExamplesTests.swift",
    ],
    "Guides/GettingStarted.md": [
      "Tests/ReduceTests/GuideExamplesTests.swift",
      "Tests/ReduceTests/CompositionGuideExamplesTests.swift",
      "Tests/ReduceTests/GuideSnippetsTests.swift",
      "Tests/ReducePersistenceTests/GettingStartedExampleTests.swift",
    ],
    "Guides/Composing.md": ["Tests/ReduceTests/CompositionGuideExamplesTests.swift"],
    "Guides/Persistence.md": ["Tests/ReducePersistenceTests/GuideExampleTests.swift"],
    "Guides/Testing.md": [
      "Tests/ReduceTestingTests/GuideExampleTests.swift",
      "Tests/ReduceThunkTests/TestingGuideExamplesTests.swift",
    ],
  ]

  /// A line of code without its comment and its whitespace: how a snippet's line is found in a
  /// test that may indent or wrap it differently.
  static func normalized(_ line: Substring) -> String {
    let code = line.range(of: "//").map { line[..<$0.lowerBound] } ?? line
    return String(code.filter { !$0.isWhitespace })
  }

  @Test(
    "every line of a guide's snippets is in a test that compiles it",
    arguments: compiledBy.keys.sorted())
  func snippetsAreCompiled(_ guide: String) throws {
    let root = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    func read(_ path: String) throws -> String {
      try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }
    let compiled = try (Self.compiledBy[guide] ?? []).map(read).joined(separator: "\n")
      .split(separator: "\n").map(Self.normalized).joined()
    var snippets = 0
    var missing: [String] = []
    var inSnippet = false
    var isManifest = false
    var isFirstLine = false
    for line in try read(guide).split(separator: "\n", omittingEmptySubsequences: false) {
      if !inSnippet {
        if line == "```swift" {
          inSnippet = true
          isFirstLine = true
          snippets += 1
        }
        continue
      }
      if line == "```" {
        inSnippet = false
        continue
      }
      if isFirstLine {
        // A package manifest is not code a test can compile; it was resolved by hand.
        isManifest = line.hasPrefix("// swift-tools-version")
        isFirstLine = false
      }
      let code = Self.normalized(line)
      if !isManifest, !code.isEmpty, !compiled.contains(code) { missing.append(String(line)) }
    }
    #expect(snippets > 0)
    #expect(missing.isEmpty, "lines of \(guide)'s snippets that no test compiles: \(missing)")
  }

  @Test("Concepts: the store of the shared types, its mutators, middleware and fallback")
  func conceptsStore() throws {
    typealias AppState = ConceptsSnippets.AppState
    typealias CounterAction = ConceptsSnippets.CounterAction
    typealias SessionAction = ConceptsSnippets.SessionAction
    typealias TodoAction = ConceptsSnippets.TodoAction
    typealias AlertAction = ConceptsSnippets.AlertAction

    let todos = Mutator(\AppState.todos) { (todos: inout [String], action: TodoAction) in
      switch action {
      case .added(let title): todos.append(title)
      case .removed(let index): if todos.indices.contains(index) { todos.remove(at: index) }
      }
    }
    let alert = Mutator(\AppState.alert) { (alert: inout String?, action: AlertAction) in
      if case .shown(let message) = action { alert = message }
    }
    let logger = AnyMiddleware<AppState>(name: "logger") { action, context, next in
      print("→", action)
      try next(action)
    }
    let store = try Store(
      initialState: AppState(),
      mutators: [todos, alert],
      middleware: [logger],
      fallback: { error in AlertAction.shown(error.description) })

    let counter = Mutator(\AppState.count) { (count: inout Int, action: CounterAction) in
      switch action {
      case .incremented(let n): count += n
      case .reset: count = 0
      }
    }
    .on(SessionAction.self) { (count: inout Int, action) in
      if case .loggedOut = action { count = 0 }
    }
    try store.register(counter)

    let state = try store.dispatch(TodoAction.added("Milk")).get()
    // state.todos == ["Milk"]
    #expect(state.todos == ["Milk"])
    store.dispatch(CounterAction.incremented(by: 2))
    #expect(try store.dispatch(SessionAction.loggedOut).get().count == 0)
    try store.validateCoverage()
  }

  @Test("Concepts: a lens that declares its paths takes part in the overlap and coverage checks")
  func conceptsLens() throws {
    typealias Draft = ConceptsSnippets.Draft
    typealias EditorState = ConceptsSnippets.EditorState
    typealias DraftAction = ConceptsSnippets.DraftAction

    let draft = Lens<EditorState, Draft>(
      covering: [\EditorState.title, \EditorState.body],
      get: { Draft(title: $0.title, body: $0.body) },
      set: { state, draft in
        state.title = draft.title
        state.body = draft.body
      })

    let drafting = Mutator(key: "draft", lens: draft) {
      (draft: inout Draft, action: DraftAction) in
      if case .cleared = action { draft = Draft() }
    }
    let editor = try Store(initialState: EditorState(), mutators: [drafting])
    try editor.validateCoverage()  // title and body are covered by the lens

    // A second mutator of the title, in any form, is refused:
    let title = Mutator(\EditorState.title) { (title: inout String, action: DraftAction) in }
    var message = ""
    do {
      try editor.register(title)
    } catch {
      print(error)  // Mutator '\EditorState.title' reduces storage that mutator 'draft' already ...
      message = error.description
      #expect(error == .overlappingSubstate(key: "\\EditorState.title", existing: "draft"))
    }
    #expect(
      message.hasPrefix(
        "Mutator '\\EditorState.title' reduces storage that mutator 'draft' already"))
    // The refused mutator was not added.
    #expect(editor.mutatorKeys == ["draft"])
  }

  @Test("Writing Middleware: trace, and the guard alone and in nested batches")
  func guardAndTrace() throws {
    typealias AppState = MiddlewareSnippets.AppState
    typealias AdminAction = MiddlewareSnippets.AdminAction

    let trace = AnyMiddleware<AppState>(name: "trace") { action, context, next in
      print("will", action)
      try next(action)
      print("did", action, "->", context.state)
    }
    let deletions = Mutator(\AppState.deleted) { (deleted: inout Int, _: AdminAction) in
      deleted += 1
    }
    let store = try Store(
      initialState: AppState(), mutators: [deletions],
      middleware: [trace, MiddlewareSnippets.AuthGuard()])
    #expect(throws: DispatchError.self) { try store.dispatch(AdminAction.deleteAll).get() }
    #expect(throws: DispatchError.self) {
      try store.dispatch(Batch([AdminAction.deleteAll])).get()
    }
    #expect(throws: DispatchError.self) {
      try store.dispatch(Batch([Batch([AdminAction.deleteAll])])).get()
    }
    #expect(store.state.deleted == 0)
  }

  @Test("Writing Middleware: the journal writes before each change, refuses when it cannot")
  func journal() throws {
    let file = MiddlewareSnippets.JournalFile()
    let refusing = MiddlewareSnippets.Journal<TestState>(file: file)
    let store = try makeStore(
      mutators: [counterMutator, itemsMutator], middleware: [refusing])
    store.dispatch(Increment(by: 2))
    store.dispatch(Batch([Increment(by: 1), Append(value: 4)]))
    #expect(file.written.count == 2)
    #expect(file.written.first == #"Increment(by: 2) [\TestState.counter]"#)
    #expect(file.written.last?.hasSuffix(#"[\TestState.counter, \TestState.items]"#) == true)
    #expect(store.middlewareNames == ["journal"])
  }

  @Test("Writing Middleware: the recorder keeps the last changes of one value, a batch as one")
  func recorder() throws {
    typealias Editor = MiddlewareSnippets.Editor
    typealias EditorAction = MiddlewareSnippets.EditorAction
    typealias ChangeRecorder = MiddlewareSnippets.ChangeRecorder

    let title = Mutator(\Editor.title) { (title: inout String, action: EditorAction) in
      if case .typed(let text) = action { title += text }
    }
    let cursor = Mutator(\Editor.cursor) { (cursor: inout Int, action: EditorAction) in
      if case .typed(let text) = action { cursor += text.count }
    }
    let recorder = ChangeRecorder<Editor, String>(limit: 2) { $0.title }
    let store = try Store(
      initialState: Editor(), mutators: [title, cursor], middleware: [recorder])
    store.dispatch(EditorAction.typed("a"))
    store.dispatch(Batch([EditorAction.typed("b"), EditorAction.typed("c")]))
    // recorder.recorded: EditorAction "" -> "a", then the Batch "a" -> "abc"

    let recorded = recorder.recorded
    #expect(recorded.map(\.before) == ["", "a"])
    #expect(recorded.map(\.after) == ["a", "abc"])
    #expect(recorded.first?.action is EditorAction)
    #expect(recorded.last?.action is Batch)
    store.dispatch(EditorAction.typed("d"))
    #expect(recorder.recorded.map(\.after) == ["abc", "abcd"])  // bounded by its limit
  }

  @Test("Getting Started 11: the command-line tool's program sums its arguments")
  func commandLineTool() throws {
    let result = try TallyExample.tally(["2", "3", "-1"])
    #expect(result == TallyExample.Tally(total: 4, count: 3))
    #expect(throws: TallyExample.NotANumber.self) { try TallyExample.tally(["2", "two"]) }
  }

  @Test("Getting Started 12: the server answers each request in its own task")
  func server() async throws {
    let service = try LedgerServerExample.LedgerService()
    let requests = Mutex(["deposit ada 80", "deposit bob 5", "deposit ada 20", "hello"])
    await LedgerServerExample.serve(service) {
      requests.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }
    #expect(await service.answer("withdraw ada 100") == "ada: 0")
    #expect(await service.answer("withdraw bob 6").hasPrefix("refused: InsufficientFunds"))
    #expect(await service.answer("deposit bob 1") == "bob: 6")
    #expect(await service.answer("transfer ada bob") == "? transfer ada bob")
  }
}
