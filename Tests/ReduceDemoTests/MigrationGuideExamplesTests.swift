import Reduce
import ReduceThunk
import Synchronization
import Testing

// The Reduce side of Guides/MigratingFromRxReduce.md, compiled and run. Keep the two in step.

// MARK: From RxReduce, idiomatic
//
// RxReduce's README code itself is in RxReduceReadmeExamples.swift.

func typedCounterReduce(state: TestState, action: AppAction) -> CounterState {
  var currentCounter = 0
  switch state.counterState {
  case .decreasing(let counter), .increasing(let counter):
    currentCounter = counter
  case .empty:
    currentCounter = 0
  }
  switch action {
  case .increase(let increment):
    return .increasing(currentCounter + increment)
  case .decrease(let decrement):
    return .decreasing(currentCounter - decrement)
  case .clear:
    return .empty
  case .logUser:
    return state.counterState
  }
}

let typedCounterMutator = Mutator(\TestState.counterState, reduce: typedCounterReduce)

let typedUserMutator = Mutator(\TestState.userState) { (user: inout UserState, action: AppAction) in
  switch action {
  case .logUser(let name): user = .loggedIn(name: name)
  case .clear: user = .loggedOut
  case .increase, .decrease: break
  }
}

func makeTestStore() throws -> Store<TestState> {
  let store = try Store(initialState: TestState(counterState: .empty, userState: .loggedOut))
  try store.register(typedCounterMutator)
  try store.register(typedUserMutator)
  try store.validateCoverage()  // RxReduce's "one mutator per substate", checked when you ask
  return store
}

func increments(_ count: Int) -> AsyncStream<AppAction> {
  AsyncStream { continuation in
    for _ in 0..<count { continuation.yield(.increase(increment: 1)) }
    continuation.finish()
  }
}

// MARK: From ReSwift

struct CounterApp: Equatable, Sendable {
  var counter = 0
}

struct CounterActionIncrease: Action {}
struct CounterActionDecrease: Action {}

let counter = Mutator(\CounterApp.counter) { (counter: inout Int, _: CounterActionIncrease) in
  counter += 1
}
.on(CounterActionDecrease.self) { (counter: inout Int, _) in
  counter -= 1
}

let loggingMiddleware = AnyMiddleware<CounterApp>(name: "logging") { action, _, next in
  print("action:", action)
  try next(action)
}

let incrementBelowTen = Thunk { (context: ThunkContext<CounterApp, Void>) in
  if context.state.counter < 10 {
    context.dispatch(CounterActionIncrease())
  }
}

func makeMainStore() throws -> Store<CounterApp> {
  try Store(
    initialState: CounterApp(), mutators: [counter],
    middleware: [ThunkMiddleware<CounterApp, Void>(), loggingMiddleware])
}

@Suite struct MigrationGuideExamplesTests {
  @Test("the RxReduce sample, ported, reduces each substate with its own mutator")
  func rxReduceDispatch() throws {
    let store = try makeTestStore()
    let state = try store.dispatch(AppAction.increase(increment: 10)).get()
    #expect(state == TestState(counterState: .increasing(10), userState: .loggedOut))
    store.dispatch(AppAction.logUser(user: "Spock"))
    #expect(store.state.userState == .loggedIn(name: "Spock"))
  }

  @Test("RxReduce's README sample, as written, reduces and observes as RxReduce did")
  func rxReduceReadme() throws {
    let (states, observed) = try rxReduceReadmeSample()
    #expect(
      states == [
        TestState(counterState: .increasing(10), userState: .loggedOut),
        TestState(counterState: .decreasing(15), userState: .loggedOut),
      ])
    #expect(
      observed.map(\.counterState) == [.empty, .increasing(10), .increasing(20), .decreasing(15)])
  }

  @Test("RxReduce's reducers see every action and leave their substate for others")
  func rxReduceReducersSeeEveryAction() throws {
    let store = try Store(
      initialState: TestState(counterState: .increasing(3), userState: .loggedOut),
      mutators: [
        Mutator(key: "counter", lens: counterLens, reduce: counterReduce),
        Mutator(\TestState.userState, reduce: userReduce),
      ])
    let state = try store.dispatch(AppAction.logUser(user: "Uhura")).get()
    #expect(state == TestState(counterState: .increasing(3), userState: .loggedIn(name: "Uhura")))
    #expect(
      try store.dispatch(AppAction.clear).get()
        == TestState(counterState: .empty, userState: .loggedOut))
  }

  @Test("an array of actions is dispatched in order, each on its own")
  func rxReduceArray() throws {
    let store = try makeTestStore()
    let states = Recorder<CounterState>()
    let subscription = store.subscribe(to: \.counterState) { states.append($0) }
    let actions: [any Action] = [
      AppAction.increase(increment: 10), AppAction.decrease(decrement: 5),
    ]
    let state = try store.dispatch(actions).get()
    #expect(state.counterState == .decreasing(5))
    #expect(states.values == [.empty, .increasing(10), .decreasing(5)])
    subscription.cancel()
  }

  @Test("an async sequence of actions replaces an Observable<Action>", .timeLimit(.minutes(1)))
  func rxReduceAsyncSequence() async throws {
    let store = try makeTestStore()
    try await store.dispatch(contentsOf: increments(3)).value
    #expect(store.state.counterState == .increasing(3))
  }

  @Test("a lens works where RxReduce needed one, with an explicit key")
  func rxReduceLens() throws {
    let user = Mutator(key: "user", lens: userLens) { (user: inout UserState, action: AppAction) in
      if case .logUser(let name) = action { user = .loggedIn(name: name) }
    }
    let store = try Store(
      initialState: TestState(counterState: .empty, userState: .loggedOut), mutators: [user])
    #expect(
      try store.dispatch(AppAction.logUser(user: "Kirk")).get().userState
        == .loggedIn(name: "Kirk"))
  }

  @Test("the ReSwift counter, ported, counts through middleware, subscription and thunk")
  func reSwiftCounter() throws {
    let mainStore = try makeMainStore()
    let values = Recorder<Int>()
    let subscription = mainStore.subscribe(to: \.counter) { values.append($0) }
    mainStore.dispatch(CounterActionIncrease())
    mainStore.dispatch(CounterActionIncrease())
    mainStore.dispatch(CounterActionDecrease())
    mainStore.dispatch(incrementBelowTen)
    #expect(values.values == [0, 1, 2, 1, 2])
    subscription.cancel()
  }
}

/// Collects the values an observer is called with.
final class Recorder<Value: Sendable>: Sendable {
  private let storage = Mutex<[Value]>([])

  var values: [Value] { storage.withLock { $0 } }

  func append(_ value: Value) {
    storage.withLock { $0.append(value) }
  }
}
