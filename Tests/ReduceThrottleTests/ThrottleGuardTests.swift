import Reduce
import ReduceTesting
import ReduceThrottle
import Testing

/// No way around a guard through a throttle (issue 13): an action the throttle delivers late, a
/// batch's action too, goes through the rest of the chain, so a guard placed after
/// `ThrottleMiddleware` checks it before it can reach the reducers.
@Suite struct ThrottleGuardTests {
  static let rules: [ThrottleRule] = [
    .debounce(ScrollAction.self, for: .milliseconds(300)),
    .throttle(ScrollAction.self, for: .milliseconds(300), latest: true),
  ]

  /// A store with the throttle on a manual clock and, after it, a guard that writes down each
  /// scroll it sees and refuses one to a negative offset.
  func makeStore(_ rule: ThrottleRule, seen: Collector<String>) throws -> (
    Store<Editor>, ThrottleMiddleware<Editor>, ManualClock
  ) {
    let clock = ManualClock()
    let throttle = try ThrottleMiddleware<Editor>(rules: [rule], clock: clock)
    let scrollGuard = AnyMiddleware<Editor>(name: "guard") { action, _, next in
      if case .scrolled(let offset)? = action as? ScrollAction {
        seen.append(label(action))
        if offset < 0 { throw ThrottleGuardError() }
      }
      try next(action)
    }
    let store = try Store(
      initialState: Editor(), mutators: editorMutators, middleware: [throttle, scrollGuard])
    return (store, throttle, clock)
  }

  @Test(
    "an action the throttle delivers late is stopped, and the failure is published",
    .timeLimit(.minutes(1)), arguments: rules)
  func lateDelivery(rule: ThrottleRule) async throws {
    let seen = Collector<String>()
    let (store, throttle, clock) = try makeStore(rule, seen: seen)
    var errors = store.errors.makeAsyncIterator()
    store.dispatch(ScrollAction.scrolled(to: 1))
    await clock.advance(to: ms(100))
    _ = try store.dispatch(ScrollAction.scrolled(to: -5)).get()
    #expect(throttle.heldCount == 1, "held, not yet checked")
    let before = store.state
    await clock.advance(to: ms(1000))
    #expect(throttle.heldCount == 0)
    #expect(seen.values.last == "scroll:-5")
    try #require(store.state == before)
    let error = try #require(await errors.next())
    guard case .rejected("guard", let action, let underlying) = error else {
      Issue.record("expected the guard's rejection, got \(error)")
      return
    }
    #expect(action as? ScrollAction == .scrolled(to: -5))
    #expect(underlying is ThrottleGuardError)
  }

  @Test(
    "the actions of a batch meet the rules as any action; one held back is checked when delivered",
    .timeLimit(.minutes(1)), arguments: rules)
  func batch(rule: ThrottleRule) async throws {
    let seen = Collector<String>()
    let (store, throttle, clock) = try makeStore(rule, seen: seen)
    _ = try store.dispatch(Batch([ScrollAction.scrolled(to: 1), ScrollAction.scrolled(to: -5)]))
      .get()
    #expect(throttle.heldCount == 1, "the last scroll is held back, not yet checked")
    #expect(!seen.values.contains("scroll:-5"))
    let before = store.state
    await clock.advance(to: ms(1000))
    #expect(throttle.heldCount == 0)
    #expect(seen.values.last == "scroll:-5", "checked once delivered")
    #expect(store.state == before, "and stopped")
  }
}

/// The guard's refusal of a scroll to a negative offset.
struct ThrottleGuardError: Error {}
