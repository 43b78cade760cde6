import Reduce
import ReduceLogging
import Testing

enum DiffFixture {
  enum Theme: Sendable, Equatable { case light, dark }

  struct Settings: Sendable, Equatable {
    var theme = Theme.light
    var fontSize = 12
  }

  struct Item: Sendable, Equatable {
    var name: String
    var quantity = 1
  }

  struct Owner: Sendable, Equatable {
    var name: String
  }

  enum Phase: Sendable, Equatable {
    case idle
    case loading(progress: Double)
    case failed(String)
  }

  /// Not `Equatable`: compared through `Mirror` only.
  struct Box: Sendable {
    var label: String
    var values: [Int]
  }

  struct State: Sendable, Equatable {
    var title = "Draft"
    var settings = Settings()
    var items = [Item(name: "a"), Item(name: "b"), Item(name: "c")]
    var scores = ["bob": 1, "cy": 5]
    var owner: Owner?
    var phase = Phase.idle
    var tags: Set<String> = ["x"]
    var pair = (1, "one")
    var box = Box(label: "box", values: [1])

    static func == (lhs: State, rhs: State) -> Bool {
      lhs.title == rhs.title && lhs.settings == rhs.settings && lhs.items == rhs.items
        && lhs.scores == rhs.scores && lhs.owner == rhs.owner && lhs.phase == rhs.phase
        && lhs.tags == rhs.tags && lhs.pair == rhs.pair && lhs.box.label == rhs.box.label
        && lhs.box.values == rhs.box.values
    }
  }

  struct Case: Sendable, CustomTestStringConvertible {
    let kind: String
    var before: @Sendable (inout State) -> Void = { _ in }
    let change: @Sendable (inout State) -> Void
    let expected: [String]
    var testDescription: String { kind }
  }

  static let cases: [Case] = [
    Case(
      kind: "a string field", change: { $0.title = "Final" },
      expected: [#"title: "Draft" -> "Final""#]),
    Case(
      kind: "a nested struct field", change: { $0.settings.fontSize = 14 },
      expected: ["settings.fontSize: 12 -> 14"]),
    Case(
      kind: "an enum without payload", change: { $0.settings.theme = .dark },
      expected: ["settings.theme: .light -> .dark"]),
    Case(
      kind: "an array element appended", change: { $0.items.append(Item(name: "d")) },
      expected: [#"items[3]: + Item(name: "d", quantity: 1)"#]),
    Case(
      kind: "an array element inserted at the front",
      change: { $0.items.insert(Item(name: "z"), at: 0) },
      expected: [#"items[0]: + Item(name: "z", quantity: 1)"#]),
    Case(
      kind: "an array element removed", change: { $0.items.remove(at: 1) },
      expected: [#"items[1]: - Item(name: "b", quantity: 1)"#]),
    Case(
      kind: "a field of an array element", change: { $0.items[2].quantity = 5 },
      expected: ["items[2].quantity: 1 -> 5"]),
    Case(
      kind: "dictionary entries added, changed and removed",
      change: {
        $0.scores["ada"] = 3
        $0.scores["bob"] = 2
        $0.scores["cy"] = nil
      },
      expected: [#"scores["ada"]: + 3"#, #"scores["bob"]: 1 -> 2"#, #"scores["cy"]: - 5"#]),
    Case(
      kind: "an optional from nil to a value", change: { $0.owner = Owner(name: "Ada") },
      expected: [#"owner: nil -> Owner(name: "Ada")"#]),
    Case(
      kind: "an optional from a value to nil", before: { $0.owner = Owner(name: "Ada") },
      change: { $0.owner = nil }, expected: [#"owner: Owner(name: "Ada") -> nil"#]),
    Case(
      kind: "a field inside an optional", before: { $0.owner = Owner(name: "Ada") },
      change: { $0.owner?.name = "Bo" }, expected: [#"owner.name: "Ada" -> "Bo""#]),
    Case(
      kind: "an enum changing case", change: { $0.phase = .loading(progress: 0.5) },
      expected: ["phase: .idle -> .loading(progress: 0.5)"]),
    Case(
      kind: "an enum payload in the same case", before: { $0.phase = .loading(progress: 0.5) },
      change: { $0.phase = .loading(progress: 0.75) },
      expected: ["phase.loading.progress: 0.5 -> 0.75"]),
    Case(
      kind: "an unlabelled enum payload", before: { $0.phase = .failed("timeout") },
      change: { $0.phase = .failed("refused") },
      expected: [#"phase.failed: "timeout" -> "refused""#]),
    Case(
      kind: "a set, compared whole", change: { $0.tags.insert("a") },
      expected: [#"tags: Set(["x"]) -> Set(["a", "x"])"#]),
    Case(
      kind: "a tuple element", change: { $0.pair.1 = "uno" }, expected: [#"pair.1: "one" -> "uno""#]
    ),
    Case(
      kind: "a value that is not Equatable", change: { $0.box.values.append(2) },
      expected: ["box.values[1]: + 2"]),
    Case(
      kind: "several fields, in declaration order",
      change: {
        $0.title = "T"
        $0.settings.fontSize = 9
      },
      expected: [#"title: "Draft" -> "T""#, "settings.fontSize: 12 -> 9"]),
    Case(kind: "nothing", change: { _ in }, expected: []),
  ]
}

@Suite struct StateDiffTests {
  @Test("the diff lists each changed path with its old and new value", arguments: DiffFixture.cases)
  func diff(_ fixture: DiffFixture.Case) throws {
    var before = DiffFixture.State()
    fixture.before(&before)
    var after = before
    fixture.change(&after)
    let sink = RecordingSink()
    let store = try Store(
      initialState: before,
      middleware: [LoggingMiddleware<DiffFixture.State>(sink: sink)])
    _ = try store.dispatch(ReplaceState(after)).get()
    let changes = try #require(sink.entries.first?.changes)
    #expect(changes.map(\.description) == fixture.expected)
  }

  @Test("a state that is not a struct changes as a whole, at path self")
  func wholeState() throws {
    let sink = RecordingSink()
    let store = try Store(initialState: 1, middleware: [LoggingMiddleware<Int>(sink: sink)])
    _ = try store.dispatch(ReplaceState(2)).get()
    #expect(sink.entries.first?.changes == [LogEntry.Change(path: "self", old: "1", new: "2")])
  }

  @Test("an added path has no old value and a removed path no new value")
  func addedAndRemoved() throws {
    var after = DiffFixture.State()
    after.items = [after.items[0], after.items[1]]
    after.scores["new"] = 7
    let sink = RecordingSink()
    let store = try Store(
      initialState: DiffFixture.State(),
      middleware: [LoggingMiddleware<DiffFixture.State>(sink: sink)])
    _ = try store.dispatch(ReplaceState(after)).get()
    let changes = try #require(sink.entries.first?.changes)
    #expect(
      changes.contains(
        LogEntry.Change(path: "items[2]", old: #"Item(name: "c", quantity: 1)"#, new: nil)))
    #expect(changes.contains(LogEntry.Change(path: #"scores["new"]"#, old: nil, new: "7")))
  }

  struct Account: Sendable, Equatable {
    var user = "ada"
    var password = "secret"
    var visits = 0
    var tags: [String] = []
  }

  /// The same fields, but reflected through a mirror of its own that hides `visits`.
  struct MirroredAccount: Sendable, CustomReflectable {
    var user = "ada"
    var visits = 0
    var customMirror: Mirror { Mirror(self, children: ["user": user]) }
  }

  @Test("a struct state is compared property by property: only changes, redacted ones hidden")
  func structStateInPlace() throws {
    let sink = RecordingSink()
    let store = try Store(
      initialState: Account(), middleware: [LoggingMiddleware<Account>(sink: sink)])
    var after = Account()
    after.password = "hunter2"
    after.visits = 3
    after.tags = ["new"]
    _ = try store.dispatch(ReplaceState(after)).get()
    let changes = try #require(sink.entries.first?.changes)
    #expect(
      changes == [
        LogEntry.Change(path: "password", old: "<redacted>", new: "<redacted>"),
        LogEntry.Change(path: "visits", old: "0", new: "3"),
        LogEntry.Change(path: "tags[0]", old: nil, new: #""new""#),
      ])
    _ = try store.dispatch(ReplaceState(after)).get()
    #expect(sink.entries.last?.changes == [])
  }

  @Test("a state with a custom mirror is diffed through its mirror, not its stored properties")
  func customMirrorState() throws {
    let sink = RecordingSink()
    let store = try Store(
      initialState: MirroredAccount(),
      middleware: [LoggingMiddleware<MirroredAccount>(sink: sink)])
    var after = MirroredAccount()
    after.visits = 5
    _ = try store.dispatch(ReplaceState(after)).get()
    #expect(sink.entries.first?.changes == [])
    after.user = "grace"
    _ = try store.dispatch(ReplaceState(after)).get()
    #expect(
      sink.entries.last?.changes == [
        LogEntry.Change(path: "user", old: #""ada""#, new: #""grace""#)
      ])
  }
}
