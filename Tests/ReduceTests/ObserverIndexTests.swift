import Reduce
import Testing

/// Two stored properties, each reduced by its own mutator and action type, and a third reduced
/// through a lens whose bytes the store does not know.
struct IndexedPair: Equatable, Sendable {
  var a = 0
  var b = 0
  var c = 0
}

struct SetA: Action { let value: Int }
struct SetB: Action { let value: Int }
struct SetCThroughLens: Action { let value: Int }

let indexedPairMutators = [
  Mutator(\IndexedPair.a) { (a: inout Int, action: SetA) in a = action.value },
  Mutator(\IndexedPair.b) { (b: inout Int, action: SetB) in b = action.value },
  Mutator(
    key: "c through a lens",
    lens: Lens<IndexedPair, Int>(
      get: { $0.c }, set: { (state: inout IndexedPair, c: Int) in state.c = c })
  ) { (c: inout Int, action: SetCThroughLens) in c = action.value },
]

/// The store decides from the bytes a commit's handlers touched whether any observer may have
/// to be told, before it reads a value: these tests hold it to never skipping one that must be.
@Suite struct ObserverIndexTests {
  @Test(
    "observers of a key path see every change of it while observers of unknown bytes come and go")
  func observersComeAndGo() throws {
    let store = try Store(initialState: IndexedPair(), mutators: indexedPairMutators)
    let seenB = Probe<Int>()
    let b = store.subscribe(to: \.b, initial: false) { seenB.append($0) }
    store.dispatch(SetA(value: 1))
    store.dispatch(SetB(value: 1))
    // A closure's bytes are unknown: every commit may change its value.
    let sums = Probe<Int>()
    let total: @Sendable (IndexedPair) -> Int = { $0.a + $0.b }
    let sum = store.subscribe(to: total, initial: false) { sums.append($0) }
    store.dispatch(SetB(value: 2))
    store.dispatch(SetA(value: 5))
    sum.cancel()
    // Its group gone, the index is rebuilt from the groups left.
    store.dispatch(SetB(value: 3))
    store.dispatch(SetA(value: 6))
    let seenA = Probe<Int>()
    let a = store.subscribe(to: \.a, initial: false) { seenA.append($0) }
    store.dispatch(SetA(value: 7))
    store.dispatch(SetB(value: 4))
    a.cancel()
    b.cancel()
    #expect(seenB.values == [1, 2, 3, 4])
    #expect(sums.values == [3, 7])
    #expect(seenA.values == [7])
  }

  @Test("a change through a lens, whose bytes are unknown, reaches observers of what it changed")
  func changeThroughLens() throws {
    let store = try Store(initialState: IndexedPair(), mutators: indexedPairMutators)
    let seenC = Probe<Int>()
    let c = store.subscribe(to: \.c, initial: false) { seenC.append($0) }
    defer { c.cancel() }
    store.dispatch(SetA(value: 1))
    store.dispatch(SetCThroughLens(value: 2))
    store.dispatch(SetCThroughLens(value: 2))
    store.dispatch(SetCThroughLens(value: 3))
    #expect(seenC.values == [2, 3])
  }

  @Test("a store whose last observer left tells nobody, and a new observer is told again")
  func lastObserverLeaves() throws {
    let store = try Store(initialState: IndexedPair(), mutators: indexedPairMutators)
    let seen = Probe<Int>()
    let first = store.subscribe(to: \.b, initial: false) { seen.append($0) }
    store.dispatch(SetB(value: 1))
    first.cancel()
    store.dispatch(SetB(value: 2))
    let second = store.subscribe(to: \.b, initial: false) { seen.append($0 * 10) }
    defer { second.cancel() }
    store.dispatch(SetB(value: 3))
    #expect(seen.values == [1, 30])
  }
}
