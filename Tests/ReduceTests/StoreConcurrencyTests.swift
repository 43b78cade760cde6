import Reduce
import Testing

/// A state with one counter per thread, so each thread can recognise its own actions.
struct SlotState: Equatable, Sendable {
  var slots = [Int](repeating: 0, count: StoreConcurrencyTests.threads)
}

/// Increments one slot.
struct Bump: Action {
  var slot: Int
}

/// A state whose two halves one action changes together: a reader must never see them differ.
struct PairState: Equatable, Sendable {
  var first = 0
  var second = 0
  var failures = 0
}

/// Increments both halves of a `PairState`; with `fail`, a third mutator throws afterwards.
struct Tick: Action {
  var fail = false
}

/// Whether the values go up by exactly one each time.
func isConsecutive(_ values: [Int]) -> Bool {
  zip(values, values.dropFirst()).allSatisfy { $1 == $0 + 1 }
}

// Runs alone: Swift Testing runs suites in parallel, which on 2 cores hides a missing lock, and
// CI reruns every `...ConcurrencyTests` suite under ThreadSanitizer.
@Suite(.serialized) struct StoreConcurrencyTests {
  static let threads = 8

  @Test(
    "8 threads x 10,000 dispatches: the count is exact and observers see every value in order",
    .timeLimit(.minutes(1)))
  func manyThreadsManyDispatches() async throws {
    let perThread = 10_000
    let store = try makeStore()
    let states = Probe<Int>()
    let counters = Probe<Int>()
    let subscriptions = [
      store.subscribe { states.append($0.counter) },
      store.subscribe(to: \.counter) { counters.append($0) },
    ]
    await onThreads(Self.threads) { _ in
      for _ in 0..<perThread { store.dispatch(Increment()) }
    }
    let total = Self.threads * perThread
    #expect(store.state.counter == total)
    #expect(states.values == Array(0...total))
    #expect(counters.values == Array(0...total))
    for subscription in subscriptions { subscription.cancel() }
  }

  @Test(
    "threads dispatching through middleware: the count is exact and every action passes the chain",
    .timeLimit(.minutes(1)))
  func manyThreadsThroughMiddleware() async throws {
    // With middleware in the chain, the turn holder's own fields (`TurnFields`) live apart from
    // the fields other threads change under the lock, so ThreadSanitizer runs this clean.
    let perThread = 2_000
    let relayed = Box(0)
    let relay = AnyMiddleware<TestState>(name: "relay") { action, _, next in
      relayed.update { $0 += 1 }
      try next(action)
    }
    let store = try makeStore(middleware: [relay])
    let counters = Probe<Int>()
    let subscription = store.subscribe(to: \.counter) { counters.append($0) }
    await onThreads(Self.threads) { _ in
      for _ in 0..<perThread { store.dispatch(Increment()) }
    }
    let total = Self.threads * perThread
    #expect(store.state.counter == total)
    #expect(relayed.value == total)
    #expect(counters.values == Array(0...total))
    subscription.cancel()
  }

  @Test(
    "each caller's returned state includes its own action and all its earlier ones",
    .timeLimit(.minutes(1)))
  func eachCallerGetsItsOwnState() async throws {
    let perThread = 2_000
    let slots = Mutator(\SlotState.slots) { (slots: inout [Int], action: Bump) in
      slots[action.slot] += 1
    }
    let store = try Store(initialState: SlotState(), mutators: [slots])
    let mismatches = Probe<String>()
    await onThreads(Self.threads) { thread in
      for count in 1...perThread {
        let returned = store.dispatch(Bump(slot: thread)).success?.slots[thread]
        if returned != count {
          mismatches.append("thread \(thread): \(count) -> \(returned ?? -1)")
        }
      }
    }
    #expect(mismatches.values.isEmpty)
    #expect(store.state.slots == [Int](repeating: perThread, count: Self.threads))
  }

  @Test(
    "readers on other threads see whole actions only, and the state only grows",
    .timeLimit(.minutes(1)))
  func readingStateDuringDispatch() async throws {
    let writers = 4
    let perWriter = 2_000
    let first = Mutator(\PairState.first) { (value: inout Int, _: Tick) in value += 1 }
    let second = Mutator(\PairState.second) { (value: inout Int, _: Tick) in value += 1 }
    let failing = Mutator(\PairState.failures) { (_: inout Int, tick: Tick) throws(TestError) in
      if tick.fail { throw TestError() }
    }
    let store = try Store(initialState: PairState(), mutators: [first, second, failing])
    let finished = Box(0)
    let violations = Probe<String>()
    let reads = Box(0)
    await onThreads(writers + 2) { thread in
      if thread < writers {
        for index in 0..<perWriter { store.dispatch(Tick(fail: index % 5 == 0)) }
        finished.update { $0 += 1 }
        return
      }
      var last = 0
      var count = 0
      while finished.value < writers {
        let state = store.state
        count += 1
        if state.first != state.second { violations.append("torn: \(state)") }
        if state.first < last { violations.append("went back: \(last) -> \(state.first)") }
        last = state.first
      }
      reads.update { $0 += count }
    }
    #expect(violations.values.isEmpty)
    #expect(reads.value > 0)
    let succeeded = writers * perWriter * 4 / 5
    #expect(store.state == PairState(first: succeeded, second: succeeded))
  }

  @Test(
    "registering and unregistering while other threads dispatch keeps the store consistent",
    .timeLimit(.minutes(1)))
  func registerWhileDispatching() async throws {
    let dispatchers = 4
    let perDispatcher = 2_000
    let rounds = 300
    let store = try makeStore()
    await onThreads(dispatchers + 1) { thread in
      if thread == dispatchers {
        for _ in 0..<rounds {
          do {
            try store.register(itemsMutator)
            try store.register(nameMutator)
          } catch {
            Issue.record("registration failed: \(error)")
          }
          store.unregister("\\TestState.items")
          store.unregister("\\TestState.name")
        }
        return
      }
      for index in 0..<perDispatcher {
        store.dispatch(Increment())
        store.dispatch(Append(value: thread * perDispatcher + index))
      }
    }
    let state = store.state
    #expect(state.counter == dispatchers * perDispatcher)
    #expect(store.mutatorKeys == ["\\TestState.counter"])
    #expect(Set(state.items).count == state.items.count)
    #expect(state.items.allSatisfy { (0..<dispatchers * perDispatcher).contains($0) })
    for thread in 0..<dispatchers {
      let own = state.items.filter { $0 / perDispatcher == thread }
      #expect(own == own.sorted())
    }
  }

  @Test(
    "subscribing and cancelling on other threads while dispatching: no gaps, no calls after cancel",
    .timeLimit(.minutes(1)))
  func subscriptionsCancelledConcurrently() async throws {
    let dispatchers = 2
    let perDispatcher = 3_000
    let subscribers = 2
    let perSubscriber = 100
    let store = try makeStore()
    let early = (0..<200).map { _ in Box(0) }
    let earlySubscriptions = early.enumerated().map { index, calls in
      switch index % 3 {
      case 0: store.subscribe { _ in calls.update { $0 += 1 } }
      case 1: store.subscribe(to: \.counter) { _ in calls.update { $0 += 1 } }
      default: store.subscribeToChanges { _ in calls.update { $0 += 1 } }
      }
    }
    let late = Probe<(Probe<Int>, Subscription)>()
    await onThreads(dispatchers + subscribers + 1) { thread in
      switch thread {
      case ..<dispatchers:
        for _ in 0..<perDispatcher { store.dispatch(Increment()) }
      case dispatchers..<(dispatchers + subscribers):
        for index in 0..<perSubscriber {
          let values = Probe<Int>()
          let subscription = store.subscribe(to: \.counter) { values.append($0) }
          late.append((values, subscription))
          if index % 2 == 0 { subscription.cancel() }
        }
      default:
        for subscription in earlySubscriptions { subscription.cancel() }
      }
    }
    #expect(earlySubscriptions.allSatisfy { $0.isCancelled })
    let callsAfterJoin = early.map(\.value)
    let lateCounts = late.values.map { $0.0.count }
    store.dispatch(Increment())
    #expect(early.map(\.value) == callsAfterJoin)
    let total = dispatchers * perDispatcher + 1
    for (index, entry) in late.values.enumerated() {
      let (values, subscription) = entry
      #expect(isConsecutive(values.values))
      if subscription.isCancelled {
        #expect(values.count == lateCounts[index])
      } else {
        #expect(values.last == total)
      }
    }
  }

  @Test("threads registering one key at once: exactly one succeeds, the others get duplicateKey")
  func concurrentRegistrationOfOneKey() async throws {
    let store = try makeStore()
    let outcomes = Probe<RegistrationError?>()
    await onThreads(Self.threads) { _ in
      do throws(RegistrationError) {
        try store.register(itemsMutator)
        outcomes.append(nil)
      } catch {
        outcomes.append(error)
      }
    }
    let failures = outcomes.values.compactMap { $0 }
    #expect(outcomes.count == Self.threads)
    #expect(failures.count == Self.threads - 1)
    #expect(failures.allSatisfy { $0 == .duplicateKey("\\TestState.items") })
    #expect(store.mutatorKeys == ["\\TestState.counter", "\\TestState.items"])
  }

  @Test("threads adding one middleware name at once: one joins, every refused one is detached")
  func concurrentUseOfOneName() async throws {
    let store = try makeStore()
    let events = Probe<String>()
    let outcomes = Probe<Bool>()
    await onThreads(Self.threads) { _ in
      do {
        try store.use(Lifecycle(name: "shared", events: events))
        outcomes.append(true)
      } catch {
        outcomes.append(false)
      }
    }
    #expect(outcomes.values.filter { $0 }.count == 1)
    #expect(store.middlewareNames == ["shared"])
    let attached = events.values.filter { $0 == "attach shared" }.count
    let detached = events.values.filter { $0 == "detach shared" }.count
    #expect(attached - detached == 1)
  }
}
