import Reduce
import ReduceTesting
import ReduceThrottle
import Testing

@Suite struct ThrottleMatchingTests {
  @Test("an action no rule names passes a store's throttle untouched and at once")
  func unrelatedActionsPass() throws {
    let throttle = try ThrottleMiddleware<Editor>(rules: [
      .throttle(ScrollAction.self, for: .seconds(60), latest: true)
    ])
    let store = try Store(initialState: Editor(), mutators: editorMutators, middleware: [throttle])
    for _ in 0..<3 { store.dispatch(TapAction.tapped) }
    store.dispatch(ScrollAction.scrolled(to: 1))
    store.dispatch(ScrollAction.scrolled(to: 2))
    #expect(store.state.taps == 3)
    #expect(store.state.scroll == 1)
    #expect(throttle.heldCount == 1)
  }

  @Test(
    "a rule for a class matches actions dispatched as that class, not as a subclass",
    arguments: [false, true])
  func rulesMatchTheDispatchedType(withKeyClosure: Bool) throws {
    var rules: [ThrottleRule] = [.throttle(Ping.self, for: .seconds(60), latest: false)]
    // With a key closure over every action too, the rules still match the dispatched type.
    if withKeyClosure {
      rules.append(
        .throttle(for: .seconds(60), latest: false) { (_: any Action) -> String? in nil })
    }
    let throttle = try ThrottleMiddleware<Pings>(rules: rules, clock: ManualClock())
    let counter = Mutator(\Pings.received) { (received: inout [String], _: Ping) in
      received.append("ping")
    }.on(LoudPing.self) { (received: inout [String], _: LoudPing) in received.append("loud") }
    let store = try Store(initialState: Pings(), mutators: [counter], middleware: [throttle])
    store.dispatch(Ping())
    store.dispatch(LoudPing() as Ping)
    store.dispatch(LoudPing())
    store.dispatch(LoudPing())
    #expect(store.state.received == ["ping", "loud", "loud"])
  }
}

struct Pings: Equatable, Sendable {
  var received: [String] = []
}

class Ping: Action, @unchecked Sendable {}

final class LoudPing: Ping, @unchecked Sendable {}
