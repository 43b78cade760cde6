import Reduce
import ReduceLogging
import Synchronization
import Testing

enum RedactionFixture {
  struct Session: Sendable, Equatable {
    var user = "ada"
    var accessToken = "t-1"
    var password: String?
  }

  struct State: Sendable, Equatable {
    var session = Session()
    var headers: [String: String] = [:]
  }

  enum AuthAction: Action, Encodable {
    case loggedIn(user: String, password: String)
    case tokenRefreshed(String)
  }

  /// Not `Encodable`: rendered through `Mirror` in text formats.
  struct SignUp: Action {
    var email: String
    var password: String
  }

  static let session = Mutator(\State.session) { (session: inout Session, action: AuthAction) in
    switch action {
    case .loggedIn(let user, let password):
      session.user = user
      session.password = password
    case .tokenRefreshed(let token): session.accessToken = token
    }
  }

  static let headers = Mutator(\State.headers) { (headers: inout [String: String], _: SignUp) in
    headers["X-Token"] = "abc"
  }

  static func store(
    _ sink: RecordingSink, redacting fields: Set<String> = LogRedaction.defaultFields
  )
    throws -> Store<State>
  {
    try Store(
      initialState: State(), mutators: [session, headers],
      middleware: [
        LoggingMiddleware<State>(
          format: .text(style: .compact), sink: sink, redactedFields: fields)
      ])
  }
}

@Suite struct RedactionTests {
  typealias Fixture = RedactionFixture

  @Test("a password in an Encodable payload is redacted")
  func encodablePayload() throws {
    let sink = RecordingSink()
    let store = try Fixture.store(sink)
    store.dispatch(Fixture.AuthAction.loggedIn(user: "ada", password: "s3cret"))
    #expect(
      sink.entries.first?.payload
        == .json(#"{"loggedIn":{"password":"<redacted>","user":"ada"}}"#))
    #expect(!sink.lines.joined().contains("s3cret"))
  }

  @Test("an enum case whose name contains token has its payload redacted")
  func caseName() throws {
    let sink = RecordingSink()
    let store = try Fixture.store(sink)
    store.dispatch(Fixture.AuthAction.tokenRefreshed("t-2"))
    #expect(sink.entries.first?.payload == .json(#"{"tokenRefreshed":"<redacted>"}"#))
    #expect(!sink.lines.joined().contains("t-2"))
  }

  @Test("a field of a non-Encodable payload is redacted in text")
  func reflectedPayload() throws {
    let sink = RecordingSink()
    let store = try Fixture.store(sink)
    store.dispatch(Fixture.SignUp(email: "a@b.c", password: "s3cret"))
    #expect(
      sink.entries.first?.payload
        == .description(#"SignUp(email: "a@b.c", password: <redacted>)"#))
  }

  @Test("redacted fields in the diff show that they changed, not their values")
  func diff() throws {
    let sink = RecordingSink()
    let store = try Fixture.store(sink)
    store.dispatch(Fixture.AuthAction.loggedIn(user: "bo", password: "s3cret"))
    store.dispatch(Fixture.AuthAction.tokenRefreshed("t-2"))
    store.dispatch(Fixture.SignUp(email: "a@b.c", password: "x"))
    #expect(
      sink.entries.map { $0.changes?.map(\.description) } == [
        [#"session.user: "ada" -> "bo""#, "session.password: <redacted> -> <redacted>"],
        ["session.accessToken: <redacted> -> <redacted>"],
        [#"headers["X-Token"]: + <redacted>"#],
      ])
    #expect(!sink.lines.joined().contains("s3cret"))
    #expect(!sink.lines.joined().contains("abc"))
  }

  @Test("a whole value rendered in a diff has its secret fields redacted")
  func nestedRender() throws {
    let sink = RecordingSink()
    let store = try Store(
      initialState: Fixture.Session?.none,
      middleware: [LoggingMiddleware<Fixture.Session?>(sink: sink)])
    store.dispatch(ReplaceState(Fixture.Session?.some(Fixture.Session())))
    #expect(
      sink.entries.first?.changes?.map(\.description) == [
        #"self: nil -> Session(user: "ada", accessToken: <redacted>, password: <redacted>)"#
      ])
  }

  @Test("the redacted names are configurable; an empty set redacts nothing")
  func configurable() throws {
    let sink = RecordingSink()
    let store = try Fixture.store(sink, redacting: ["email"])
    store.dispatch(Fixture.SignUp(email: "a@b.c", password: "s3cret"))
    #expect(
      sink.entries.first?.payload == .description(#"SignUp(email: <redacted>, password: "s3cret")"#)
    )
    let plain = RecordingSink()
    let open = try Fixture.store(plain, redacting: [])
    open.dispatch(Fixture.AuthAction.tokenRefreshed("t-2"))
    #expect(plain.entries.first?.payload == .json(#"{"tokenRefreshed":{"_0":"t-2"}}"#))
  }
}

@Suite struct LoggingOptionsTests {
  @Test("a filtered-out action is passed on, not logged, and costs one filter call")
  func filter() throws {
    let sink = RecordingSink()
    let calls = Mutex(0)
    let logger = LoggingMiddleware<CounterState>(
      sink: sink,
      filter: { action in
        calls.withLock { $0 += 1 }
        return !(action is Note)
      })
    let store = try makeCounterStore(logger)
    store.dispatch(Note(text: "quiet"))
    store.dispatch(CounterAction.incremented(by: 1))
    #expect(store.state.history == [5])
    #expect(sink.entries.map(\.action) == ["CounterAction"])
    #expect(sink.entries.map(\.sequence) == [1])
    #expect(calls.withLock { $0 } == 2)
  }

  @Test("the action transformer changes what is logged, not what is reduced")
  func actionTransformer() throws {
    let sink = RecordingSink()
    let logger = LoggingMiddleware<CounterState>(
      format: .text(style: .compact), sink: sink,
      actionTransformer: { action in
        (action as? Note).map { Note(text: String(repeating: "*", count: $0.text.count)) } ?? action
      })
    let store = try makeCounterStore(logger)
    store.dispatch(Note(text: "private"))
    #expect(store.state.history == [7])
    #expect(sink.entries.first?.payload == .description(#"Note(text: "*******")"#))
  }

  @Test("the state transformer chooses what is diffed")
  func stateTransformer() throws {
    let sink = RecordingSink()
    let logger = LoggingMiddleware<CounterState>(
      sink: sink, stateTransformer: { $0.count })
    let store = try makeCounterStore(logger)
    store.dispatch(CounterAction.incremented(by: 3))
    store.dispatch(Note(text: "ab"))
    #expect(
      sink.entries.map { $0.changes?.map(\.description) } == [["self: 0 -> 3"], []])
  }

  @Test("the default name is LoggingMiddleware, and two loggers need two names")
  func names() throws {
    let store = try makeCounterStore(LoggingMiddleware(sink: RecordingSink()))
    #expect(store.middlewareNames == ["LoggingMiddleware"])
    #expect(throws: RegistrationError.duplicateMiddleware("LoggingMiddleware")) {
      try store.use(LoggingMiddleware<CounterState>(sink: RecordingSink()))
    }
    try store.use(LoggingMiddleware<CounterState>(name: "audit", sink: RecordingSink()))
    #expect(store.middlewareNames == ["LoggingMiddleware", "audit"])
  }
}
