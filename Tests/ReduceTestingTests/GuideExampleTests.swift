// The examples of Guides/Testing.md, compiled and run. Keep the two in step.

import Reduce
import ReduceTesting
import Testing
import XCTest

struct Profile: Equatable, Sendable {
  var name = ""
  var greeting = ""
  var visits = 0
}

enum ProfileAction: Action {
  case renamed(String)
  case visited
}

enum GreetingAction: Action {
  case greeted(String)
}

let profileMutators: [Mutator<Profile>] = [
  Mutator(\Profile.name) { (name: inout String, action: ProfileAction) in
    if case .renamed(let newName) = action { name = newName }
  },
  Mutator(\Profile.visits) { (visits: inout Int, action: ProfileAction) in
    if case .visited = action { visits += 1 }
  },
  Mutator(\Profile.greeting) { (greeting: inout String, action: GreetingAction) in
    if case .greeted(let text) = action { greeting = text }
  },
]

// MARK: Reducers

@Test func visitsAreCounted() throws {
  let store = try TestStore(initialState: Profile(), mutators: profileMutators)
  store.send(ProfileAction.visited) { $0.visits = 1 }
  store.send(ProfileAction.renamed("Ada")) { $0.name = "Ada" }
  store.finish()
}

// MARK: Middleware

/// Greets the user by name after every rename.
let greeter = AnyMiddleware<Profile>(name: "greeter") { action, context, next in
  try next(action)
  if case ProfileAction.renamed(let name) = action {
    context.dispatch(GreetingAction.greeted("Hello, \(name)!"))
  }
}

@Test func renamingGreets() async throws {
  let store = try TestStore(
    initialState: Profile(), mutators: profileMutators, middleware: [greeter])
  store.send(ProfileAction.renamed("Ada")) { $0.name = "Ada" }
  await store.receive(GreetingAction.self) { $0.greeting = "Hello, Ada!" }
  store.finish()
}

@Test func greeterSeesEveryAction() throws {
  let recorder = RecordingMiddleware<Profile>()
  let store = try Store(
    initialState: Profile(), mutators: profileMutators, middleware: [greeter, recorder])
  store.dispatch(ProfileAction.renamed("Ada"))
  #expect(recorder.count == 2)
  #expect(recorder.actions.last is GreetingAction)
}

// MARK: Time

/// Welcomes the user back an hour after each visit.
struct WelcomeBack<C: Clock<Duration>>: Middleware {
  let clock: C

  func handle(_ action: any Action, context: MiddlewareContext<Profile>, next: Next<Profile>)
    throws
  {
    try next(action)
    guard case ProfileAction.visited = action else { return }
    // Preferring the clock as executor lets a ManualClock run this task when it advances.
    Task(executorPreference: clock as? any TaskExecutor) {
      try await clock.sleep(for: .seconds(3600))
      context.dispatch(GreetingAction.greeted("Welcome back!"))
    }
  }
}

@Test func welcomeBackAfterAnHour() async throws {
  let clock = ManualClock()
  let store = try TestStore(
    initialState: Profile(), mutators: profileMutators, middleware: [WelcomeBack(clock: clock)])
  store.send(ProfileAction.visited) { $0.visits = 1 }
  await clock.advance(by: .seconds(3599))
  #expect(store.receivedActions.isEmpty)
  await clock.advance(by: .seconds(1))
  await store.receive(GreetingAction.self) { $0.greeting = "Welcome back!" }
  store.finish()
}

// MARK: XCTest

final class ProfileXCTests: XCTestCase {
  func testRenamingGreets() async throws {
    let store = try TestStore(
      initialState: Profile(), mutators: profileMutators, middleware: [greeter],
      reportFailure: { failure in XCTFail(failure.description) })
    store.send(ProfileAction.renamed("Ada")) { $0.name = "Ada" }
    await store.receive(GreetingAction.self) { $0.greeting = "Hello, Ada!" }
    store.finish()
  }
}

// "Failed dispatches": the example as it stands in the guide.

struct Ledger: Equatable, Sendable {
  var balances: [String: Int] = [:]
}

enum LedgerAction: Action {
  case deposited(account: String, amount: Int)
  case withdrew(account: String, amount: Int)
}

struct InsufficientFunds: Error, Equatable {
  var account: String
}

let balances = Mutator(
  \Ledger.balances,
  validate: { (balances: [String: Int], action: LedgerAction) throws(InsufficientFunds) in
    if case .withdrew(let account, let amount) = action, balances[account, default: 0] < amount {
      throw InsufficientFunds(account: account)
    }
  },
  reduce: { balances, action in
    switch action {
    case .deposited(let account, let amount): balances[account, default: 0] += amount
    case .withdrew(let account, let amount): balances[account, default: 0] -= amount
    }
  })

@Test func overdraftIsRefused() throws {
  let store = try TestStore(initialState: Ledger(), mutators: [balances])
  store.send(LedgerAction.deposited(account: "ada", amount: 100)) { $0.balances["ada"] = 100 }
  let refusal = store.send(
    LedgerAction.withdrew(account: "ada", amount: 150), failsWith: InsufficientFunds.self)
  #expect(refusal == InsufficientFunds(account: "ada"))
}
