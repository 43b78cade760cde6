import Reduce
import Synchronization
import Testing

struct Doc: Equatable, Sendable {
  var title = ""
  var body = ""
}

struct AppState: Equatable, Sendable {
  var counter = 0
  var items: [Int] = []
  var doc = Doc()
}

enum CounterAction: Action {
  case incremented(by: Int)
  case reset
}

enum ItemAction: Action {
  case appended(Int)
}

struct Boom: Error {}

@Suite struct SmokeTests {
  @Test("a dispatched action reaches its mutator and the result is the new state")
  func basicDispatch() throws {
    let counter = Mutator(\AppState.counter) { (c: inout Int, a: CounterAction) in
      switch a {
      case .incremented(let n): c += n
      case .reset: c = 0
      }
    }
    let store = try Store(initialState: AppState(), mutators: [counter])
    let state = try store.dispatch(CounterAction.incremented(by: 2)).get()
    #expect(state.counter == 2)
    #expect(store.state.counter == 2)
    #expect(store.mutatorKeys == ["\\AppState.counter"])
  }

  @Test("middleware, observers, re-entrant dispatch and rollback")
  func chain() throws {
    let counter = Mutator(\AppState.counter) { (c: inout Int, a: CounterAction) in
      if case .incremented(let n) = a { c += n }
    }
    let items = Mutator(\AppState.items) { (list: inout [Int], a: ItemAction) throws in
      if case .appended(let n) = a {
        if n < 0 { throw Boom() }
        list.append(n)
      }
    }
    let log = AnyMiddleware<AppState>(name: "log") { action, context, next in
      try next(action)
      if case CounterAction.incremented(let n) = action, n == 1 {
        context.dispatch(ItemAction.appended(100))
      }
    }
    let store = try Store(initialState: AppState(), mutators: [counter, items], middleware: [log])
    let seen = Recorder<Int>()
    let sub = store.subscribe(to: \.counter) { seen.append($0) }
    let state = try store.dispatch(CounterAction.incremented(by: 1)).get()
    #expect(state.items == [100])
    #expect(seen.values == [0, 1])
    let failure = store.dispatch(Batch([ItemAction.appended(5), ItemAction.appended(-1)]))
    guard case .failure(.reducerFailed(let key, _, _)) = failure else {
      Issue.record("expected reducerFailed, got \(failure)")
      return
    }
    #expect(key == "\\AppState.items")
    #expect(store.state.items == [100])
    sub.cancel()
  }

  @Test("registration errors")
  func registration() throws {
    let store = try Store(initialState: AppState())
    try store.register(Mutator(\AppState.doc) { (d: inout Doc, _: CounterAction) in d.title = "x" })
    #expect(
      throws: RegistrationError.overlappingSubstate(
        key: "\\AppState.doc.title", existing: "\\AppState.doc")
    ) {
      try store.register(
        Mutator(\AppState.doc.title) { (t: inout String, _: CounterAction) in t = "" })
    }
    #expect(throws: RegistrationError.duplicateKey("\\AppState.doc")) {
      try store.register(Mutator(\AppState.doc) { (d: inout Doc, _: ItemAction) in d.title = "x" })
    }
    #expect(throws: RegistrationError.missingMutators(["counter", "items"])) {
      try store.validateCoverage()
    }
  }

  @Test("many threads")
  func threads() async throws {
    let counter = Mutator(\AppState.counter) { (c: inout Int, a: CounterAction) in
      if case .incremented(let n) = a { c += n }
    }
    let store = try Store(initialState: AppState(), mutators: [counter])
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<8 {
        group.addTask {
          for _ in 0..<10_000 { store.dispatch(CounterAction.incremented(by: 1)) }
        }
      }
    }
    #expect(store.state.counter == 80_000)
  }
}

final class Recorder<T: Sendable>: @unchecked Sendable {
  private var storage: [T] = []
  private let lock = NSLockish()
  func append(_ value: T) { lock.with { storage.append(value) } }
  var values: [T] { lock.with { storage } }
}

final class NSLockish: Sendable {
  private let m = Mutex(())
  func with<R>(_ body: () -> R) -> R { m.withLock { _ in body() } }
}
