import Reduce
import Synchronization
import Testing

/// Collects values from observers on any thread.
final class Collected<Value: Sendable>: Sendable {
  private let storage = Mutex<[Value]>([])

  var values: [Value] { storage.withLock { $0 } }

  func append(_ value: Value) {
    storage.withLock { $0.append(value) }
  }
}

/// A value that is not `Equatable`.
struct Opaque: Sendable {
  var items: [Int]
}

/// Observing derived values: closures, custom equality, `initial: false`, memoized selectors.
@Suite struct SelectorTests {
  func makeCounterStore() throws -> Store<TestState> {
    try Store(
      initialState: TestState(),
      mutators: [
        Mutator(\TestState.counter) { (v: inout Int, a: Increment) in v += a.by },
        Mutator(\TestState.items) { (items: inout [Int], a: Append) in items.append(a.value) },
        Mutator(\TestState.name) { (name: inout String, a: Rename) in name = a.name },
      ])
  }

  @Test("a closure-derived Equatable value is delivered at once and when it changed")
  func closureEquatable() throws {
    let store = try makeCounterStore()
    let seen = Collected<Bool>()
    let isEven: @Sendable (TestState) -> Bool = { $0.counter % 2 == 0 }
    let subscription = store.subscribe(to: isEven) { seen.append($0) }
    store.dispatch(Increment(by: 2))
    store.dispatch(Increment(by: 1))
    store.dispatch(Rename(name: "x"))
    store.dispatch(Increment(by: 2))
    store.dispatch(Increment(by: 1))
    #expect(seen.values == [true, false, true])
    subscription.cancel()
  }

  @Test("a non-Equatable value is de-duplicated by a custom by: comparison")
  func customEquality() throws {
    let store = try makeCounterStore()
    let seen = Collected<Int>()
    let subscription = store.subscribe(
      to: { Opaque(items: $0.items) }, by: { $0.items.count == $1.items.count },
      { seen.append($0.items.count) })
    store.dispatch(Append(value: 1))
    store.dispatch(Rename(name: "x"))
    store.dispatch(Append(value: 2))
    #expect(seen.values == [0, 1, 2])
    subscription.cancel()
  }

  @Test("initial: false skips the immediate call, for every kind of subscription")
  func skipsInitial() throws {
    let store = try makeCounterStore()
    let whole = Collected<Int>()
    let path = Collected<Int>()
    let closure = Collected<Int>()
    let selected = Collected<Int>()
    let doubled = MemoizedSelector(\TestState.counter) { $0 * 2 }
    let subscriptions = [
      store.subscribe(initial: false) { whole.append($0.counter) },
      store.subscribe(to: \.counter, initial: false) { path.append($0) },
      store.subscribe(to: { $0.counter + 1 }, initial: false, { closure.append($0) }),
      store.subscribe(to: doubled, initial: false) { selected.append($0) },
    ]
    #expect(whole.values.isEmpty && path.values.isEmpty)
    #expect(closure.values.isEmpty && selected.values.isEmpty)
    store.dispatch(Increment(by: 1))
    #expect(whole.values == [1])
    #expect(path.values == [1])
    #expect(closure.values == [2])
    #expect(selected.values == [2])
    for subscription in subscriptions { subscription.cancel() }
  }

  @Test("a key path still picks the key-path overload, beside the closure ones")
  func keyPathOverload() throws {
    let store = try makeCounterStore()
    let seen = Collected<Int>()
    let subscription = store.subscribe(to: \.counter) { seen.append($0) }
    store.dispatch(Increment(by: 3))
    #expect(seen.values == [0, 3])
    subscription.cancel()
  }

  @Test("a selector computes once per change of its inputs, however many readers")
  func memoizedShared() throws {
    let store = try makeCounterStore()
    let parity = MemoizedSelector(\TestState.counter) { $0 % 2 }
    let seen = Collected<Int>()
    let subscriptions = (0..<100).map { _ in store.subscribe(to: parity) { seen.append($0) } }
    #expect(parity.computations == 1)
    store.dispatch(Increment(by: 2))
    store.dispatch(Rename(name: "unrelated"))
    store.dispatch(Increment(by: 1))
    // Two changes of the input (0 -> 2 -> 3); the rename left it alone.
    #expect(parity.computations == 3)
    #expect(seen.values.count == 100 + 100)  // at once, then for 2 -> 3 (1); 0 -> 2 kept 0
    for _ in 0..<10 { _ = store.select(parity) }
    #expect(parity.computations == 3)
    for subscription in subscriptions { subscription.cancel() }
  }

  @Test("a selector of two and three inputs recomputes when any of them changed")
  func severalInputs() throws {
    let store = try makeCounterStore()
    let two = MemoizedSelector(\TestState.counter, \TestState.name) { "\($1)\($0)" }
    let three = MemoizedSelector(
      \TestState.counter, \TestState.name, { $0.items.count },
      compute: { $0 + $1.count + $2 })
    #expect(store.select(two) == "0")
    store.dispatch(Rename(name: "n"))
    #expect(store.select(two) == "n0")
    store.dispatch(Append(value: 9))
    #expect(store.select(two) == "n0")
    #expect(two.computations == 2)
    #expect(store.select(three) == 2)
    #expect(three.computations == 1)
  }

  @Test("observers of a non-Equatable selector are called after each computation")
  func nonEquatableSelector() throws {
    let store = try makeCounterStore()
    let items = MemoizedSelector(\TestState.items) { Opaque(items: $0) }
    let seen = Collected<[Int]>()
    let subscription = store.subscribe(to: items) { seen.append($0.items) }
    store.dispatch(Append(value: 1))
    store.dispatch(Rename(name: "x"))
    store.dispatch(Append(value: 2))
    #expect(seen.values == [[], [1], [1, 2]])
    subscription.cancel()
  }

  @Test("a selector shared by two stores keeps each store's observers right")
  func sharedAcrossStores() throws {
    let first = try makeCounterStore()
    let second = try makeCounterStore()
    let doubled = MemoizedSelector(\TestState.counter) { $0 * 2 }
    let a = Collected<Int>()
    let b = Collected<Int>()
    let subscriptions = [
      first.subscribe(to: doubled) { a.append($0) },
      second.subscribe(to: doubled) { b.append($0) },
    ]
    first.dispatch(Increment(by: 1))
    second.dispatch(Increment(by: 5))
    first.dispatch(Increment(by: 1))
    #expect(a.values == [0, 2, 4])
    #expect(b.values == [0, 10])
    for subscription in subscriptions { subscription.cancel() }
  }
}
