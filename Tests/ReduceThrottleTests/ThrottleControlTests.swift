import Reduce
import ReduceTesting
import ReduceThrottle
import Testing

@Suite struct ThrottleControlTests {
  @Test(
    "flush delivers every held action now, in arrival order, and starts every key afresh",
    .timeLimit(.minutes(1)))
  func flush() async throws {
    let harness = try Harness([
      .debounce(SaveAction.self, for: .seconds(5)) { $0.doc },
      .throttle(ScrollAction.self, for: .seconds(5), latest: true),
      .debounce(SearchAction.self, for: .seconds(5)),
    ])
    await harness.dispatch(ScrollAction.scrolled(to: 1), at: 0)
    await harness.dispatch(SaveAction.save(doc: "a", text: "1"), at: 100)
    await harness.dispatch(ScrollAction.scrolled(to: 2), at: 200)
    await harness.dispatch(SearchAction.queryChanged("q"), at: 300)
    await harness.dispatch(SaveAction.save(doc: "b", text: "1"), at: 400)
    #expect(harness.throttle.heldCount == 4)
    harness.throttle.flush()
    #expect(
      harness.timeline.values == ["scroll:1@0", "a:1@400", "scroll:2@400", "q:q@400", "b:1@400"])
    #expect(harness.throttle.heldCount == 0)
    await harness.clock.settle()
    #expect(harness.clock.sleeperCount == 0)
    // The throttled key starts afresh: its next action passes at once.
    await harness.dispatch(ScrollAction.scrolled(to: 3), at: 500)
    #expect(harness.timeline.values.last == "scroll:3@500")
    await harness.advance(to: 60_000)
    #expect(harness.timeline.values.count == 6)
  }

  @Test(
    "ThrottleAction.flush delivers before its dispatch returns and never reaches the reducers",
    .timeLimit(.minutes(1)))
  func flushAction() async throws {
    let harness = try Harness([.debounce(SearchAction.self, for: .seconds(1))])
    await harness.dispatch(SearchAction.queryChanged("s"), at: 0)
    let state = try harness.store.dispatch(ThrottleAction.flush).get()
    #expect(state.query == "s")
    #expect(harness.timeline.values == ["q:s@0"])
  }

  @Test("cancel(key:) drops what is held for that key only", .timeLimit(.minutes(1)))
  func cancelKey() async throws {
    let harness = try Harness([
      .debounce(SaveAction.self, for: .seconds(1)) { $0.doc }
    ])
    await harness.dispatch(SaveAction.save(doc: "a", text: "1"), at: 0)
    await harness.dispatch(SaveAction.save(doc: "b", text: "1"), at: 0)
    harness.throttle.cancel(key: "a")
    #expect(harness.throttle.heldCount == 1)
    await harness.advance(to: 5000)
    #expect(harness.timeline.values == ["b:1@1000"])
  }

  @Test(
    "ThrottleAction.cancel(key:) drops the key's held action and never reaches the reducers",
    .timeLimit(.minutes(1)))
  func cancelAction() async throws {
    let harness = try Harness([.throttle(ScrollAction.self, for: .seconds(1), latest: true)])
    await harness.dispatch(ScrollAction.scrolled(to: 1), at: 0)
    await harness.dispatch(ScrollAction.scrolled(to: 2), at: 500)
    harness.store.dispatch(ThrottleAction.cancel(key: ThrottleKey(ScrollAction.self)))
    #expect(harness.throttle.heldCount == 0)
    await harness.clock.settle()
    #expect(harness.clock.sleeperCount == 0)
    await harness.advance(to: 5000)
    #expect(harness.timeline.values == ["scroll:1@0"])
  }

  @Test(
    "invalid options are rejected at init with a typed error",
    arguments: [
      (
        ThrottleRule.throttle(ScrollAction.self, for: .zero, latest: true),
        ThrottleError.nonPositiveInterval(rule: 1, interval: .zero)
      ),
      (
        .throttle(for: .seconds(-1), latest: false) { _ in "k" },
        .nonPositiveInterval(rule: 1, interval: .seconds(-1))
      ),
      (
        .debounce(SearchAction.self, for: .zero),
        .nonPositiveDuration(rule: 1, duration: .zero)
      ),
      (
        .debounce(SearchAction.self, for: .seconds(2), maxWait: .seconds(1)),
        .maxWaitShorterThanDuration(rule: 1, maxWait: .seconds(1), duration: .seconds(2))
      ),
    ])
  func invalidOptions(rule: ThrottleRule, error: ThrottleError) {
    #expect(throws: error) {
      try ThrottleMiddleware<Editor>(
        rules: [.debounce(TapAction.self, for: .seconds(1)), rule], clock: ManualClock())
    }
  }

  @Test("errors and rules describe themselves readably")
  func descriptions() {
    let error = ThrottleError.maxWaitShorterThanDuration(
      rule: 0, maxWait: .seconds(1), duration: .seconds(2))
    #expect(
      error.description
        == "Debounce rule 0 has a maxWait of 1.0 seconds, shorter than its duration of 2.0 seconds; make maxWait at least the duration, or nil."
    )
    let rule = ThrottleRule.debounce(SearchAction.self, for: .milliseconds(300))
    #expect(rule.description == "debounce(SearchAction, for: 0.3 seconds)")
  }

  @Test("a maxWait equal to the duration is valid")
  func maxWaitEqualToDuration() throws {
    _ = try ThrottleMiddleware<Editor>(
      rules: [.debounce(SearchAction.self, for: .seconds(1), maxWait: .seconds(1))])
  }

  @Test("keys from string literals, values and types compare as expected")
  func keys() {
    let literal: ThrottleKey = "doc-1"
    #expect(literal == ThrottleKey("doc-1"))
    #expect(ThrottleKey(ThrottleKey("doc-1")) == literal)
    #expect(ThrottleKey(1) != ThrottleKey("1"))
    #expect(ThrottleKey(SearchAction.self) == ThrottleKey(SearchAction.self))
    #expect(ThrottleKey(SearchAction.self) != ThrottleKey(ScrollAction.self))
    #expect(ThrottleKey(SearchAction.self).description == "SearchAction")
  }

  @Test(
    "a store deallocated while an action is held: no crash, nothing delivered",
    .timeLimit(.minutes(1)))
  func storeDeallocated() async throws {
    let clock = ManualClock()
    let delivered = RecordingMiddleware<Editor>()
    let throttle = try ThrottleMiddleware<Editor>(
      rules: [.debounce(SearchAction.self, for: .seconds(1))], clock: clock)
    var store: Store<Editor>? = try Store(
      initialState: Editor(), mutators: editorMutators, middleware: [throttle, delivered])
    weak let weakStore = store
    store?.dispatch(SearchAction.queryChanged("s"))
    #expect(throttle.heldCount == 1)
    store = nil
    #expect(weakStore == nil)
    #expect(throttle.heldCount == 0)
    await clock.advance(by: .seconds(10))
    #expect(delivered.count == 0)
    #expect(clock.sleeperCount == 0)
  }

  @Test("removing the middleware stops its timer and drops held actions", .timeLimit(.minutes(1)))
  func removal() async throws {
    let harness = try Harness([.debounce(SearchAction.self, for: .seconds(1))])
    await harness.dispatch(SearchAction.queryChanged("s"), at: 0)
    await harness.clock.settle()
    #expect(harness.clock.sleeperCount == 1)
    #expect(harness.store.removeMiddleware(named: "ThrottleMiddleware"))
    #expect(harness.throttle.heldCount == 0)
    #expect(harness.clock.sleeperCount == 0)
    await harness.advance(to: 5000)
    #expect(harness.timeline.values.isEmpty)
  }

  @Test("one middleware serves one store at a time")
  func oneStore() throws {
    let throttle = try ThrottleMiddleware<Editor>(
      rules: [.debounce(SearchAction.self, for: .seconds(1))], clock: ManualClock())
    let first = try Store(initialState: Editor(), middleware: [throttle])
    #expect(throws: RegistrationError.self) {
      _ = try Store(initialState: Editor(), middleware: [throttle])
    }
    #expect(first.removeMiddleware(named: "ThrottleMiddleware"))
    let second = try Store(initialState: Editor(), middleware: [throttle])
    #expect(second.middlewareNames == ["ThrottleMiddleware"])
  }

  @Test(
    "10,000 distinct keys held at once: one timer, one action per key, all delivered on flush in order",
    .timeLimit(.minutes(1)))
  func manyKeys() async throws {
    let harness = try Harness([
      .debounce(SaveAction.self, for: .seconds(60)) { $0.doc }
    ])
    let keys = 10_000
    for round in 0..<2 {
      for key in 0..<keys {
        harness.store.dispatch(SaveAction.save(doc: "\(key)", text: "\(round)"))
      }
    }
    #expect(harness.throttle.heldCount == keys)
    await harness.clock.settle()
    #expect(harness.clock.sleeperCount == 1)
    harness.throttle.flush()
    #expect(harness.throttle.heldCount == 0)
    let saves = harness.store.state.saves
    #expect(saves.count == keys)
    #expect(saves == (0..<keys).map { "\($0):1" })
    await harness.clock.settle()
    #expect(harness.clock.sleeperCount == 0)
  }

  @Test(
    "a test store receives the throttle's late delivery when the clock advances",
    .timeLimit(.minutes(1)))
  func withTestStore() async throws {
    let clock = ManualClock()
    let store = try TestStore(
      initialState: Editor(), mutators: editorMutators,
      middleware: [
        ThrottleMiddleware<Editor>(
          rules: [.debounce(SearchAction.self, for: .milliseconds(300))], clock: clock)
      ])
    store.send(SearchAction.queryChanged("s"))
    store.send(SearchAction.queryChanged("sw"))
    await clock.advance(by: .milliseconds(300))
    await store.receive(SearchAction.self) { $0.query = "sw" }
    store.finish()
  }
}

@Suite struct ThrottleDetachTests {
  @Test(
    "an action that reaches the middleware after it left its store passes at once, held by nothing",
    .timeLimit(.minutes(1)))
  func handledAfterDetach() async throws {
    let clock = ManualClock()
    let throttle = try ThrottleMiddleware<Editor>(
      rules: [.debounce(SearchAction.self, for: .seconds(1))], clock: clock)
    let holder = StoreHolder()
    // Removes the throttle while the action is on its way to it: the dispatch finishes with
    // the chain it started with, so the throttle still sees the action.
    let remover = AnyMiddleware<Editor>(name: "remover") { action, _, next in
      if case SearchAction.queryChanged("now") = action {
        _ = holder.store?.removeMiddleware(named: "ThrottleMiddleware")
      }
      try next(action)
    }
    let store = try Store(
      initialState: Editor(), mutators: editorMutators, middleware: [remover, throttle])
    holder.store = store
    store.dispatch(SearchAction.queryChanged("held"))
    #expect(throttle.heldCount == 1)
    let state = try store.dispatch(SearchAction.queryChanged("now")).get()
    #expect(state.query == "now")
    #expect(store.middlewareNames == ["remover"])
    #expect(throttle.heldCount == 0)
    await clock.advance(by: .seconds(5))
    #expect(store.state.query == "now")
    #expect(clock.sleeperCount == 0)
  }
}

/// A weak reference to a store, for middleware that act on it.
final class StoreHolder: @unchecked Sendable {
  // `@unchecked`: written once, before the store dispatches anything that reads it.
  weak var store: Store<Editor>?
}
