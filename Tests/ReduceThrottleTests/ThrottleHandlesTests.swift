import Reduce
import ReduceThrottle
import Testing

@Suite struct ThrottleHandlesTests {
  @Test("with rules by type, the middleware wants those types and ThrottleAction only")
  func rulesByType() throws {
    let throttle = try ThrottleMiddleware<Editor>(rules: [
      .throttle(ScrollAction.self, for: .seconds(1), latest: true),
      .debounce(SaveAction.self, for: .seconds(1)) { $0.doc },
    ])
    #expect(throttle.handles(ScrollAction.self))
    #expect(throttle.handles(SaveAction.self))
    #expect(throttle.handles(ThrottleAction.self))
    #expect(!throttle.handles(TapAction.self))
    #expect(!throttle.handles(SearchAction.self))
  }

  @Test("a key closure over every action makes the middleware want every type")
  func keyClosureWantsEverything() throws {
    let throttle = try ThrottleMiddleware<Editor>(rules: [
      .throttle(ScrollAction.self, for: .seconds(1), latest: true),
      .debounce(for: .seconds(1)) { (action: any Action) in action is TapAction ? "tap" : nil },
    ])
    #expect(throttle.handles(TapAction.self))
    #expect(throttle.handles(SearchAction.self))
  }

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
}
