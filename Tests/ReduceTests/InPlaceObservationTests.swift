import Observation
import Reduce
import Testing

/// Every way to observe sees in-place changes of collections with spare capacity, with the
/// dispatch results discarded (so no caller holds the old state): the case a byte comparison
/// missed, because the collection's buffer stays where it was while its contents change.
@Suite struct InPlaceObservationTests {
  struct Cart: Equatable, Sendable {
    var items: [Int]
    var tags: Set<String>
    var counts: [String: Int]
    var note: String

    init() {
      items = []
      items.reserveCapacity(64)
      tags = Set(minimumCapacity: 64)
      counts = Dictionary(minimumCapacity: 64)
      note = ""
      note.reserveCapacity(64)
    }
  }

  struct Shop: Equatable, Sendable {
    var cart = Cart()
    var visits = 0
  }

  struct Add: Action {
    let value: Int
  }

  static let cartMutator = Mutator(\Shop.cart) { (cart: inout Cart, action: Add) in
    cart.items.append(action.value)
    cart.tags.insert("tag-\(action.value)")
    cart.counts["key-\(action.value)"] = action.value
    cart.note.append("x")
  }

  static let adds = 6
  static let expected = Array(0...adds)

  func makeStore() throws -> Store<Shop> {
    try Store(initialState: Shop(), mutators: [Self.cartMutator])
  }

  func addAll(_ store: Store<Shop>) {
    for value in 1...Self.adds { store.dispatch(Add(value: value)) }
  }

  @Test("a key path subscription")
  func keyPath() throws {
    let store = try makeStore()
    let seen = Probe<Int>()
    let subscription = store.subscribe(to: \.cart.items) { seen.append($0.count) }
    addAll(store)
    #expect(seen.values == Self.expected)
    subscription.cancel()
  }

  @Test("closure selectors, with == and with by:", arguments: [false, true])
  func closureSelector(byClosure: Bool) throws {
    let store = try makeStore()
    let seen = Probe<Int>()
    let subscription =
      byClosure
      ? store.subscribe(
        to: { $0.cart.tags.count }, by: { $0 == $1 }, initial: true, { seen.append($0) })
      : store.subscribe(to: { $0.cart.counts.count }, initial: true, { seen.append($0) })
    addAll(store)
    #expect(seen.values == Self.expected)
    subscription.cancel()
  }

  @Test("a memoized selector, Equatable and not")
  func memoized() throws {
    struct Count: Sendable { let value: Int }
    let store = try makeStore()
    let equatable = MemoizedSelector(\Shop.cart.counts) { $0.count }
    let plain = MemoizedSelector(\Shop.cart.note) { Count(value: $0.count) }
    let seen = Probe<Int>()
    let seenPlain = Probe<Int>()
    let first = store.subscribe(to: equatable) { seen.append($0) }
    let second = store.subscribe(to: plain) { seenPlain.append($0.value) }
    addAll(store)
    #expect(seen.values == Self.expected)
    #expect(seenPlain.values == Self.expected)
    first.cancel()
    second.cancel()
  }

  @Test("a scoped store's selector, key path, whole substate and nested scope")
  func scoped() throws {
    let store = try makeStore()
    let cart = store.scope(\.cart)
    let selected = Probe<Int>()
    let byPath = Probe<Int>()
    let whole = Probe<Int>()
    let nested = Probe<Int>()
    let derived = Probe<Int>()
    let subscriptions = [
      cart.subscribe(to: { $0.items.count }, initial: true, { selected.append($0) }),
      cart.subscribe(to: \.note) { byPath.append($0.count) },
      cart.subscribe { whole.append($0.tags.count) },
      cart.scope(\.items).subscribe { nested.append($0.count) },
      store.scope({ $0.cart }).scope({ $0.counts }).subscribe { derived.append($0.count) },
    ]
    addAll(store)
    #expect(selected.values == Self.expected)
    #expect(byPath.values == Self.expected)
    #expect(whole.values == Self.expected)
    #expect(nested.values == Self.expected)
    #expect(derived.values == Self.expected)
    for subscription in subscriptions { subscription.cancel() }
  }

  @Test("the states sequences reach the last change", .timeLimit(.minutes(1)))
  func sequences() async throws {
    let store = try makeStore()
    var notes = store.states(of: \.cart.note).makeAsyncIterator()
    var scoped = store.scope(\.cart).states.makeAsyncIterator()
    var whole = store.states.makeAsyncIterator()
    #expect(await notes.next() == "")
    #expect(await scoped.next()?.items.count == 0)
    #expect(await whole.next()?.cart.items.count == 0)
    addAll(store)
    var note = ""
    while note.count < Self.adds { note = await notes.next() ?? String(repeating: "x", count: 99) }
    #expect(note.count == Self.adds)
    var items = 0
    while items < Self.adds { items = await scoped.next()?.items.count ?? 99 }
    #expect(items == Self.adds)
    var tags = 0
    while tags < Self.adds { tags = await whole.next()?.cart.tags.count ?? 99 }
    #expect(tags == Self.adds)
  }

  @Test("Observation tracks the store and a scope")
  func observation() throws {
    let store = try makeStore()
    let cart = store.scope(\.cart)
    let changes = Probe<String>()
    func track() {
      withObservationTracking {
        _ = store.state.cart.items
        _ = cart.state.items
      } onChange: {
        changes.append("changed")
      }
    }
    for value in 1...Self.adds {
      track()
      store.dispatch(Add(value: value))
    }
    #expect(changes.count >= Self.adds, "each in-place change is reported")
  }
}
