import Reduce
import Testing

/// A state for the pure forms: a log of names.
struct LogState: Equatable, Sendable {
  var log: [String] = []
  var count = 0
}

enum NameAction: Action {
  case named(String)
  case cleared
}

/// RxReduce's shapes: `(State, any Action) -> Substate` reducers, trailing closures.
@Suite struct PureFormTests {
  let logLens = Lens<LogState, [String]>(
    covering: [\LogState.log], get: { $0.log },
    set: { state, log in
      var state = state
      state.log = log
      return state
    })

  @Test("a key-path pure reducer of any action sees every action")
  func keyPathAnyAction() throws {
    let log = Mutator(
      \LogState.log,
      reduce: { (state: LogState, action: any Action) in
        state.log + ["\(type(of: action))"]
      })
    let store = try Store(initialState: LogState(), mutators: [log])
    _ = try store.dispatch(NameAction.cleared).get()
    #expect(try store.dispatch(Increment()).get().log == ["NameAction", "Increment"])
  }

  @Test("a lens pure reducer of any action sees every action, and may throw")
  func lensAnyAction() throws {
    struct Refused: Error {}
    let log = Mutator(
      key: "log", lens: logLens,
      reduce: { (state: LogState, action: any Action) throws(Refused) in
        guard let action = action as? NameAction else { throw Refused() }
        if case .named(let name) = action { return state.log + [name] }
        return []
      })
    let store = try Store(initialState: LogState(), mutators: [log])
    #expect(try store.dispatch(NameAction.named("a")).get().log == ["a"])
    guard case .failure(.reducerFailed(let key, _, _)) = store.dispatch(Increment()) else {
      Issue.record("an Increment should fail")
      return
    }
    #expect(key == "log")
    #expect(store.state.log == ["a"])
  }

  @Test("the pure form with a trailing closure resolves, with or without a key")
  func trailingClosure() throws {
    let single = Mutator(\.log) { (state: LogState, action: NameAction) in
      state.log + ["single"]
    }
    let statements = Mutator(\.count, key: "count") { (state: LogState, action: NameAction) in
      var count = state.count
      if case .named = action { count += 1 }
      return count
    }
    let store = try Store(initialState: LogState(), mutators: [single, statements])
    #expect(try store.dispatch(NameAction.named("x")).get() == LogState(log: ["single"], count: 1))
  }

  @Test("a pure handler added with .on and a trailing closure resolves")
  func trailingOn() throws {
    let count = Mutator(\LogState.count) { (state: LogState, _: NameAction) in state.count + 1 }
      .on(Increment.self) { (state: LogState, action) in state.count + action.by }
    let store = try Store(initialState: LogState(), mutators: [count])
    _ = try store.dispatch(NameAction.cleared).get()
    #expect(try store.dispatch(Increment(by: 5)).get().count == 6)
  }

  @Test("the pure forms of any action with a trailing closure resolve")
  func trailingAnyAction() throws {
    let keyPath = Mutator(\.count) { (state: LogState, action: any Action) in state.count + 1 }
    let lens = Mutator(key: "log", lens: logLens) { (state: LogState, action: any Action) in
      switch action {
      case let action as NameAction:
        if case .named(let name) = action { state.log + [name] } else { [] }
      default:
        state.log
      }
    }
    let store = try Store(initialState: LogState(), mutators: [keyPath, lens])
    _ = try store.dispatch(NameAction.named("n")).get()
    #expect(try store.dispatch(Increment()).get() == LogState(log: ["n"], count: 2))
  }

  @Test("a second pure handler of every action is a duplicate handler")
  func duplicateAnyAction() throws {
    let mutator = Mutator(\LogState.count, reduce: { (state: LogState, _: any Action) in 0 })
      .on((any Action).self, reduce: { (state: LogState, _: any Action) in 1 })
    let store = try Store(initialState: LogState())
    #expect(
      throws: RegistrationError.duplicateHandler(key: "\\LogState.count", action: "any Action")
    ) {
      try store.register(mutator)
    }
  }
}
