import Reduce
import ReduceTesting
import ReduceThunk
import Testing

// The examples of Guides/Testing.md that need the thunk plugin ("Thunks that wait on a clock")
// and the one with `exhaustivity: .off`, as written there, each document's declarations in a
// namespace (this module has an `AppState` of its own). Keep the two in step.

/// Guides/Testing.md, "Thunks that wait on a clock".
enum TestingGuideThunks {
  struct AppState: Equatable, Sendable {
    var count = 0
  }

  enum CountAction: Action, Equatable {
    case incremented(by: Int)
  }

  static func makeMutators() -> [Mutator<AppState>] {
    [
      Mutator(\AppState.count) { (count: inout Int, action: CountAction) in
        if case .incremented(let amount) = action { count += amount }
      }
    ]
  }

  static let loadLater = Thunk<AppState, Void> {
    (context: ThunkContext<AppState, ManualClock>) async throws in
    try await context.dependencies.sleep(for: .seconds(1))
    context.dispatch(CountAction.incremented(by: 1))
  }

  /// What the thunk's tests stub: its dependencies.
  struct Stub: Sendable {
    let amount: Int
  }

  /// Adds the dependencies' amount to the count, and returns the total it expects.
  static let addFromStub = Thunk<AppState, Int> {
    (context: ThunkContext<AppState, Stub>) async throws -> Int in
    context.dispatch(CountAction.incremented(by: context.dependencies.amount))
    return context.state.count + context.dependencies.amount
  }
}

/// Guides/Testing.md, "Usage": the profile feature the examples share.
enum TestingGuideProfile {
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

  static let profileMutators: [Mutator<Profile>] = [
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

  /// Greets the user by name after every rename.
  static let greeter = AnyMiddleware<Profile>(name: "greeter") { action, context, next in
    try next(action)
    if case ProfileAction.renamed(let name) = action {
      context.dispatch(GreetingAction.greeted("Hello, \(name)!"))
    }
  }
}

@Suite struct TestingGuideExamplesTests {
  @Test func loadsAfterASecond() async throws {
    typealias AppState = TestingGuideThunks.AppState
    let loadLater = TestingGuideThunks.loadLater
    let makeMutators = TestingGuideThunks.makeMutators

    let clock = ManualClock()
    let store = try Store(
      initialState: AppState(), mutators: makeMutators(),
      middleware: [ThunkMiddleware(dependencies: clock, executor: clock)])
    store.dispatch(loadLater)
    await clock.advance(by: .seconds(1))
    #expect(store.state.count == 1)
  }

  @Test func addsTheStubbedAmount() async throws {
    typealias AppState = TestingGuideThunks.AppState
    typealias CountAction = TestingGuideThunks.CountAction
    typealias Stub = TestingGuideThunks.Stub
    let addFromStub = TestingGuideThunks.addFromStub

    let recording = try await addFromStub.runIsolated(
      state: AppState(count: 40), dependencies: Stub(amount: 2))
    #expect(recording.value == 42)
    #expect(recording.dispatched.first as? CountAction == .incremented(by: 2))
  }

  @Test func renamingGreetsWhateverElseHappens() async throws {
    typealias Profile = TestingGuideProfile.Profile
    typealias ProfileAction = TestingGuideProfile.ProfileAction
    typealias GreetingAction = TestingGuideProfile.GreetingAction
    let profileMutators = TestingGuideProfile.profileMutators
    let greeter = TestingGuideProfile.greeter

    let store = try TestStore(
      initialState: Profile(), mutators: profileMutators, middleware: [greeter],
      exhaustivity: .off)
    store.send(ProfileAction.visited)  // its change is not asserted: let go
    store.send(ProfileAction.renamed("Ada"))
    await store.receive(GreetingAction.self) { $0.greeting = "Hello, Ada!" }
    store.finish()
  }
}
