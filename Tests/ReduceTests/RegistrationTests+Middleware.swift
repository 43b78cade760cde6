import Reduce
import Testing

/// A middleware that refuses to join any store.
struct Refuser: Middleware {
  func willAttach(to store: ObjectIdentifier) throws {
    throw TestError(reason: "one store only")
  }

  func handle(_ action: any Action, context: MiddlewareContext<TestState>, next: Next<TestState>)
    throws
  {
    try next(action)
  }
}

/// A pass-through middleware with a given name.
func passThrough(_ name: String, calls: Probe<String>? = nil) -> AnyMiddleware<TestState> {
  AnyMiddleware(name: name) { action, _, next in
    calls?.append(name)
    try next(action)
  }
}

extension RegistrationTests {
  // MARK: Middleware

  @Test("init refuses two middleware with one name")
  func initRefusesDuplicateMiddleware() {
    #expect(throws: RegistrationError.duplicateMiddleware("log")) {
      _ = try makeStore(middleware: [passThrough("log"), passThrough("log")])
    }
  }

  @Test("use refuses a taken middleware name and leaves the chain unchanged")
  func useRefusesDuplicateMiddleware() throws {
    let calls = Probe<String>()
    let store = try makeStore(middleware: [passThrough("log", calls: calls)])
    let impostor = AnyMiddleware<TestState>(name: "log") { action, _, next in
      calls.append("impostor")
      try next(action)
    }
    #expect(throws: RegistrationError.duplicateMiddleware("log")) {
      try store.use(impostor)
    }
    #expect(store.middlewareNames == ["log"])
    store.dispatch(Increment())
    #expect(calls.values == ["log"])
  }

  @Test("use throws middlewareRefused when willAttach throws, and the chain is unchanged")
  func useMiddlewareRefused() throws {
    let store = try makeStore(middleware: [passThrough("log")])
    let expected = RegistrationError.middlewareRefused(
      name: "Refuser", reason: String(describing: TestError(reason: "one store only")))
    #expect(throws: expected) {
      try store.use(Refuser())
    }
    #expect(store.middlewareNames == ["log"])
  }

  @Test("init throws middlewareRefused when willAttach throws")
  func initMiddlewareRefused() {
    #expect(
      throws: RegistrationError.middlewareRefused(
        name: "Refuser", reason: "TestError(reason: \"one store only\")")
    ) {
      _ = try makeStore(middleware: [Refuser()])
    }
  }

  @Test("an init that throws detaches the middleware that had already joined")
  func failedInitDetaches() {
    let events = Probe<String>()
    #expect(throws: RegistrationError.self) {
      _ = try makeStore(middleware: [Lifecycle(name: "first", events: events), Refuser()])
    }
    #expect(events.values == ["attach first", "detach first"])
  }
}
