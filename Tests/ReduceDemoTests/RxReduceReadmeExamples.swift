import Reduce

// RxReduce's README code (/work/shared/seeds/RxReduce-README.md), as written, compiled against
// Reduce. Every line that differs is marked `// Reduce:` and listed in
// Guides/MigratingFromRxReduce.md, "What had to change". Indentation is swift-format's.

struct TestState: Equatable {
  var counterState: CounterState
  var userState: UserState
}

enum CounterState: Equatable {
  case empty
  case increasing(Int)
  case decreasing(Int)
}

enum UserState: Equatable {
  case loggedIn(name: String)
  case loggedOut
}

enum AppAction: Action {
  case increase(increment: Int)
  case decrease(decrement: Int)
  case logUser(user: String)
  case clear
}

func counterReduce(state: TestState, action: Action) -> CounterState {

  guard let action = action as? AppAction else { return state.counterState }

  var currentCounter = 0

  // we extract the current counter value from the current state
  switch state.counterState {
  case .decreasing(let counter), .increasing(let counter):
    currentCounter = counter
  default:
    currentCounter = 0
  }

  // according to the action we mutate the counter state
  switch action {
  case .increase(let increment):
    return .increasing(currentCounter + increment)
  case .decrease(let decrement):
    return .decreasing(currentCounter - decrement)
  case .clear:
    return .empty
  default:
    return state.counterState
  }
}

func userReduce(state: TestState, action: Action) -> UserState {

  guard let action = action as? AppAction else { return state.userState }

  // according to the action we mutate the users state
  switch action {
  case .logUser(let user):
    return .loggedIn(name: user)
  case .clear:
    return .loggedOut
  default:
    return state.userState
  }
}

let counterLens = Lens<TestState, CounterState>(
  get: { testState in return testState.counterState },
  set: { (testState, counterState) -> TestState in
    var mutableTestState = testState
    mutableTestState.counterState = counterState
    return mutableTestState
  })

// Not in the README, which uses it without showing it; written as `counterLens` is.
let userLens = Lens<TestState, UserState>(
  get: { testState in return testState.userState },
  set: { (testState, userState) -> TestState in
    var mutableTestState = testState
    mutableTestState.userState = userState
    return mutableTestState
  })

/// "Let's put the pieces all together", then "And now lets mutate the state", then "List of
/// actions"; returns the state after each dispatch and the states the observer saw.
func rxReduceReadmeSample() throws -> (states: [TestState], observed: [TestState]) {
  // Reduce: `try`, and `initialState:` for `withState:`.
  let store = try Store<TestState>(
    initialState: TestState(counterState: .empty, userState: .loggedOut))
  // Reduce: one generic parameter, a `key:`, and `reduce:` for `reducer:`.
  let counterMutator = Mutator<TestState>(key: "counter", lens: counterLens, reduce: counterReduce)
  let userMutator = Mutator<TestState>(key: "user", lens: userLens, reduce: userReduce)

  // Reduce: `try`, and no `mutator:` label.
  try store.register(counterMutator)
  try store.register(userMutator)

  // Reduce: "One more thing", observing, is a call that returns a `Subscription`.
  let observed = Recorder<TestState>()
  let subscription = store.subscribe { appState in
    observed.append(appState)
  }

  // Reduce: no `action:` label; the new state is returned, not observed.
  var states: [TestState] = []
  states.append(try store.dispatch(AppAction.increase(increment: 10)).get())

  let actions: [Action] = [AppAction.increase(increment: 10), AppAction.decrease(decrement: 5)]
  // Reduce: no `action:` label; an array is not an `Action`, it has its own overload.
  states.append(try store.dispatch(actions).get())

  subscription.cancel()
  return (states, observed.values)
}
