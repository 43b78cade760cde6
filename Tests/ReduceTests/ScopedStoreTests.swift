import Observation
import Reduce
import Synchronization
import Testing

/// An app of two child features, for scoping.
struct ScopeApp: Equatable, Sendable {
  var profile = ScopeProfile()
  var cart = ScopeCart()
}

struct ScopeProfile: Equatable, Sendable {
  var name = ""
  var visits = 0
}

struct ScopeCart: Equatable, Sendable {
  var items: [String] = []
}

enum ProfileAction: Action {
  case renamed(String)
  case visited
}

enum CartAction: Action {
  case added(String)
}

let scopeMutators: [Mutator<ScopeApp>] = [
  Mutator(\ScopeApp.profile) { (profile: inout ScopeProfile, action: ProfileAction) in
    switch action {
    case .renamed(let name): profile.name = name
    case .visited: profile.visits += 1
    }
  },
  Mutator(\ScopeApp.cart) { (cart: inout ScopeCart, action: CartAction) in
    if case .added(let item) = action { cart.items.append(item) }
  },
]

/// A child feature that knows only its scoped type.
func greet(_ profile: ScopedStore<ScopeProfile>) -> String {
  profile.dispatch(ProfileAction.visited)
  return "Hello, \(profile.state.name) (\(profile.state.visits))"
}

@Suite struct ScopedStoreTests {
  func makeApp() throws -> Store<ScopeApp> {
    try Store(initialState: ScopeApp(), mutators: scopeMutators)
  }

  @Test("a scope reads its substate and dispatches into the parent store")
  func readsAndDispatches() throws {
    let store = try makeApp()
    let profile = store.scope(\.profile)
    #expect(try profile.dispatch(ProfileAction.renamed("Ada")).get().name == "Ada")
    #expect(greet(profile) == "Hello, Ada (1)")
    #expect(store.state.profile == ScopeProfile(name: "Ada", visits: 1))
    #expect(
      try profile.dispatch([CartAction.added("tea"), ProfileAction.visited]).get().visits == 2)
    #expect(store.state.cart.items == ["tea"])
  }

  @Test("a child feature's test takes the scoped type of a store of its own state")
  func childFeatureTest() throws {
    let feature = try Store(
      initialState: ScopeProfile(name: "Lin"),
      mutators: [
        Mutator(\ScopeProfile.visits) { (visits: inout Int, _: ProfileAction) in visits += 1 }
      ])
    #expect(greet(ScopedStore(feature)) == "Hello, Lin (1)")
  }

  @Test("scope observers are called only when their substate changed")
  func observesOnlyItsSubstate() throws {
    let store = try makeApp()
    let profile = store.scope(\.profile)
    let seen = Collected<ScopeProfile>()
    let names = Collected<String>()
    let visits = Collected<Int>()
    let subscriptions = [
      profile.subscribe { seen.append($0) },
      profile.subscribe(to: \.name) { names.append($0) },
      profile.subscribe(to: { $0.visits * 10 }, initial: false, { visits.append($0) }),
    ]
    store.dispatch(CartAction.added("tea"))
    store.dispatch(ProfileAction.visited)
    store.dispatch(CartAction.added("milk"))
    store.dispatch(ProfileAction.renamed("Ada"))
    store.dispatch(ProfileAction.renamed("Ada"))
    #expect(seen.values.map(\.visits) == [0, 1, 1])
    #expect(names.values == ["", "Ada"])
    #expect(visits.values == [10])
    for subscription in subscriptions { subscription.cancel() }
  }

  @Test("a scope scopes further, and its observers see the grandchild only")
  func scopesFurther() throws {
    let store = try makeApp()
    let name = store.scope(\.profile).scope(\.name)
    let seen = Collected<String>()
    let subscription = name.subscribe { seen.append($0) }
    store.dispatch(ProfileAction.visited)
    store.dispatch(ProfileAction.renamed("Bo"))
    #expect(seen.values == ["", "Bo"])
    #expect(name.state == "Bo")
    subscription.cancel()
  }

  @Test("a derived read-only scope observes the derived value")
  func derivedScope() throws {
    let store = try makeApp()
    let count = store.scope { $0.cart.items.count }
    let summary = store.scope(\.cart).scope { "\($0.items.count) items" }
    let counts = Collected<Int>()
    let summaries = Collected<String>()
    let subscriptions = [
      count.subscribe { counts.append($0) }, summary.subscribe { summaries.append($0) },
    ]
    store.dispatch(ProfileAction.visited)
    store.dispatch(CartAction.added("tea"))
    #expect(counts.values == [0, 1])
    #expect(summaries.values == ["0 items", "1 items"])
    #expect(try count.dispatch(CartAction.added("milk")).get() == 2)
    for subscription in subscriptions { subscription.cancel() }
  }

  @Test("a scope's async sequence yields the substate and its changes", .timeLimit(.minutes(1)))
  func asyncSequence() async throws {
    let store = try makeApp()
    let profile = store.scope(\.profile)
    var iterator = profile.states(of: \.visits).makeAsyncIterator()
    #expect(await iterator.next() == 0)
    store.dispatch(CartAction.added("tea"))
    store.dispatch(ProfileAction.visited)
    #expect(await iterator.next() == 1)
    var whole = profile.states.makeAsyncIterator()
    #expect(await whole.next()?.visits == 1)
  }

  @Test("Observation tracks a scope's substate alone")
  func observation() throws {
    let store = try makeApp()
    let profile = store.scope(\.profile)
    let changes = Mutex(0)
    func track() {
      withObservationTracking {
        _ = profile.state
      } onChange: {
        changes.withLock { $0 += 1 }
      }
    }
    track()
    store.dispatch(CartAction.added("tea"))
    #expect(changes.withLock { $0 } == 0)
    store.dispatch(ProfileAction.visited)
    #expect(changes.withLock { $0 } == 1)
  }

  @Test("fifty observers of one scoped path are each called once per change")
  func sharedGroup() throws {
    let store = try makeApp()
    let seen = Collected<Int>()
    let subscriptions = (0..<50).map { _ in
      store.scope(\.profile).subscribe(initial: false) { seen.append($0.visits) }
    }
    store.dispatch(ProfileAction.visited)
    #expect(seen.values == Array(repeating: 1, count: 50))
    for subscription in subscriptions { subscription.cancel() }
  }
}
