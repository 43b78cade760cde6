import Reduce
import ReduceTesting
import ReduceThrottle
import Testing

@Suite struct ThrottleTests {
  @Test(
    "the first action passes at once; the last held one is delivered exactly when the interval ends",
    .timeLimit(.minutes(1)))
  func leadingAndTrailing() async throws {
    let harness = try Harness([.throttle(ScrollAction.self, for: .seconds(1), latest: true)])
    await harness.dispatch(ScrollAction.scrolled(to: 1), at: 0)
    #expect(harness.store.state.scroll == 1)
    await harness.dispatch(ScrollAction.scrolled(to: 2), at: 300)
    await harness.dispatch(ScrollAction.scrolled(to: 3), at: 600)
    #expect(harness.throttle.heldCount == 1)
    await harness.advance(to: 999)
    #expect(harness.timeline.values == ["scroll:1@0"])
    await harness.advance(to: 1000)
    #expect(harness.timeline.values == ["scroll:1@0", "scroll:3@1000"])
    #expect(harness.store.state.scroll == 3)
    #expect(harness.throttle.heldCount == 0)
  }

  @Test(
    "with latest, no two deliveries of one key are closer than the interval",
    .timeLimit(.minutes(1)))
  func spacing() async throws {
    let harness = try Harness([.throttle(ScrollAction.self, for: .seconds(1), latest: true)])
    await harness.dispatch(ScrollAction.scrolled(to: 1), at: 0)
    await harness.dispatch(ScrollAction.scrolled(to: 2), at: 500)
    await harness.dispatch(ScrollAction.scrolled(to: 3), at: 1200)
    await harness.dispatch(ScrollAction.scrolled(to: 4), at: 2500)
    await harness.advance(to: 4000)
    await harness.dispatch(ScrollAction.scrolled(to: 5), at: 4500)
    #expect(
      harness.timeline.values == [
        "scroll:1@0", "scroll:2@1000", "scroll:3@2000", "scroll:4@3000", "scroll:5@4500",
      ])
  }

  @Test(
    "without latest, actions inside the interval are dropped and the first after it passes at once",
    .timeLimit(.minutes(1)))
  func withoutLatest() async throws {
    let harness = try Harness([.throttle(ScrollAction.self, for: .seconds(1), latest: false)])
    await harness.dispatch(ScrollAction.scrolled(to: 1), at: 0)
    await harness.dispatch(ScrollAction.scrolled(to: 2), at: 500)
    #expect(harness.throttle.heldCount == 0)
    await harness.advance(to: 1000)
    #expect(harness.timeline.values == ["scroll:1@0"])
    await harness.dispatch(ScrollAction.scrolled(to: 3), at: 1000)
    await harness.dispatch(ScrollAction.scrolled(to: 4), at: 1999)
    await harness.dispatch(ScrollAction.scrolled(to: 5), at: 2000)
    #expect(harness.timeline.values == ["scroll:1@0", "scroll:3@1000", "scroll:5@2000"])
    #expect(harness.store.state.scroll == 5)
  }

  @Test("keys are independent: each key has its own interval", .timeLimit(.minutes(1)))
  func keysInParallel() async throws {
    let harness = try Harness([
      .throttle(SaveAction.self, for: .seconds(1), latest: true) { $0.doc }
    ])
    await harness.dispatch(SaveAction.save(doc: "a", text: "1"), at: 0)
    await harness.dispatch(SaveAction.save(doc: "b", text: "1"), at: 200)
    await harness.dispatch(SaveAction.save(doc: "a", text: "2"), at: 400)
    await harness.dispatch(SaveAction.save(doc: "b", text: "2"), at: 600)
    #expect(harness.throttle.heldCount == 2)
    await harness.advance(to: 1199)
    #expect(harness.timeline.values == ["a:1@0", "b:1@200", "a:2@1000"])
    await harness.advance(to: 1200)
    #expect(harness.timeline.values == ["a:1@0", "b:1@200", "a:2@1000", "b:2@1200"])
  }

  @Test(
    "unmatched actions pass through untouched and synchronously, even while others are held",
    .timeLimit(.minutes(1)))
  func unmatchedPassThrough() async throws {
    let harness = try Harness([.debounce(SearchAction.self, for: .seconds(1))])
    await harness.dispatch(SearchAction.queryChanged("s"), at: 0)
    let state = try harness.store.dispatch(TapAction.tapped).get()
    #expect(state.taps == 1)
    #expect(state.query == "")
    #expect(harness.timeline.values == ["tap@0"])
  }

  @Test(
    "a late delivery runs the rest of the chain and notifies observers once",
    .timeLimit(.minutes(1)))
  func lateDeliveryIsADispatch() async throws {
    let harness = try Harness([.debounce(SearchAction.self, for: .milliseconds(300))])
    let seen = Collector<String>()
    let subscription = harness.store.subscribe(to: \.query) { seen.append($0) }
    await harness.dispatch(SearchAction.queryChanged("s"), at: 0)
    await harness.dispatch(SearchAction.queryChanged("sw"), at: 100)
    #expect(seen.values == [""])
    await harness.advance(to: 400)
    #expect(seen.values == ["", "sw"])
    #expect(harness.timeline.values == ["q:sw@400"])
    subscription.cancel()
  }

  @Test(
    "the first rule that matches decides; a key closure returning nil lets the action through",
    .timeLimit(.minutes(1)))
  func ruleOrderAndNilKey() async throws {
    let harness = try Harness([
      .debounce(SaveAction.self, for: .seconds(1)) { $0.doc == "draft" ? nil : $0.doc },
      .throttle(for: .seconds(1), latest: false) { $0 is SaveAction ? "any save" : nil },
    ])
    await harness.dispatch(SaveAction.save(doc: "draft", text: "1"), at: 0)
    await harness.dispatch(SaveAction.save(doc: "a", text: "1"), at: 0)
    #expect(harness.timeline.values == ["draft:1@0"])
    await harness.advance(to: 1000)
    #expect(harness.timeline.values == ["draft:1@0", "a:1@1000"])
  }
}

@Suite struct DebounceTests {
  @Test(
    "only the last action is delivered, exactly one quiet duration after it",
    .timeLimit(.minutes(1)))
  func lastAfterQuiet() async throws {
    let harness = try Harness([.debounce(SearchAction.self, for: .milliseconds(300))])
    await harness.dispatch(SearchAction.queryChanged("s"), at: 0)
    await harness.dispatch(SearchAction.queryChanged("sw"), at: 100)
    await harness.dispatch(SearchAction.queryChanged("swi"), at: 250)
    #expect(harness.store.state.query == "")
    await harness.advance(to: 549)
    #expect(harness.timeline.values.isEmpty)
    await harness.advance(to: 550)
    #expect(harness.timeline.values == ["q:swi@550"])
    #expect(harness.store.state.query == "swi")
    #expect(harness.throttle.heldCount == 0)
  }

  @Test("a burst after a delivery starts a fresh quiet time", .timeLimit(.minutes(1)))
  func secondBurst() async throws {
    let harness = try Harness([.debounce(SearchAction.self, for: .milliseconds(300))])
    await harness.dispatch(SearchAction.queryChanged("a"), at: 0)
    await harness.advance(to: 300)
    await harness.dispatch(SearchAction.queryChanged("b"), at: 300)
    await harness.dispatch(SearchAction.queryChanged("c"), at: 500)
    await harness.advance(to: 2000)
    #expect(harness.timeline.values == ["q:a@300", "q:c@800"])
  }

  @Test(
    "with maxWait, the held action is delivered at the latest maxWait after the first held one",
    .timeLimit(.minutes(1)))
  func maxWait() async throws {
    let harness = try Harness([
      .debounce(SearchAction.self, for: .milliseconds(300), maxWait: .seconds(1))
    ])
    for (index, time) in stride(from: 0, through: 1400, by: 200).enumerated() {
      await harness.dispatch(SearchAction.queryChanged("\(index)"), at: time)
    }
    await harness.advance(to: 3000)
    // 0…800 form one burst, cut by maxWait at 1000; 1000…1400 form the next, quiet at 1700.
    #expect(harness.timeline.values == ["q:4@1000", "q:7@1700"])
  }

  @Test("each key debounces on its own", .timeLimit(.minutes(1)))
  func keysInParallel() async throws {
    let harness = try Harness([
      .debounce(SaveAction.self, for: .milliseconds(500)) { $0.doc }
    ])
    await harness.dispatch(SaveAction.save(doc: "a", text: "1"), at: 0)
    await harness.dispatch(SaveAction.save(doc: "b", text: "1"), at: 100)
    await harness.dispatch(SaveAction.save(doc: "a", text: "2"), at: 400)
    await harness.advance(to: 2000)
    #expect(harness.timeline.values == ["b:1@600", "a:2@900"])
    #expect(harness.store.state.saves == ["b:1", "a:2"])
  }
}

/// The timing diagrams of Guides/Throttle.md, replayed to the millisecond.
@Suite struct GuideTimingTests {
  struct Diagram: Sendable, CustomStringConvertible {
    let description: String
    let rule: ThrottleRule
    let input: [(String, Int)]
    let output: [String]
  }

  static let diagrams = [
    Diagram(
      description: "throttle, latest",
      rule: .throttle(SearchAction.self, for: .milliseconds(300), latest: true),
      input: [("a", 0), ("b", 100), ("c", 200), ("d", 500), ("e", 1000)],
      output: ["q:a@0", "q:c@300", "q:d@600", "q:e@1000"]),
    Diagram(
      description: "throttle, not latest",
      rule: .throttle(SearchAction.self, for: .milliseconds(300), latest: false),
      input: [("a", 0), ("b", 100), ("c", 200), ("d", 400), ("e", 600)],
      output: ["q:a@0", "q:d@400"]),
    Diagram(
      description: "debounce", rule: .debounce(SearchAction.self, for: .milliseconds(300)),
      input: [("a", 0), ("b", 100), ("c", 200), ("d", 600)],
      output: ["q:c@500", "q:d@900"]),
    Diagram(
      description: "debounce with maxWait",
      rule: .debounce(SearchAction.self, for: .milliseconds(300), maxWait: .milliseconds(600)),
      input: [
        ("a", 0), ("b", 100), ("c", 200), ("d", 300), ("e", 400), ("f", 500), ("g", 600),
        ("h", 700),
      ],
      output: ["q:f@600", "q:h@1000"]),
  ]

  @Test(
    "each timing diagram of the guide holds to the millisecond", .timeLimit(.minutes(1)),
    arguments: diagrams)
  func diagram(_ diagram: Diagram) async throws {
    let harness = try Harness([diagram.rule])
    for (name, time) in diagram.input {
      await harness.dispatch(SearchAction.queryChanged(name), at: time)
    }
    await harness.advance(to: 5000)
    #expect(harness.timeline.values == diagram.output)
  }
}
