import Reduce
import Testing

/// Two children that one mutator changes together: an action touches both children's bytes.
struct Home: Equatable, Sendable {
  var pair = Pair()
}

struct Pair: Equatable, Sendable {
  var left = Child()
  var right = Child()
}

struct Child: Equatable, Sendable {
  var count = 0
  var name = "a"
}

enum PairAction: Action {
  case left(count: Int)
  case right(count: Int)
  case renameRight(String)
}

let pairMutator = Mutator(\Home.pair) { (pair: inout Pair, action: PairAction) in
  switch action {
  case .left(let count): pair.left.count = count
  case .right(let count): pair.right.count = count
  case .renameRight(let name): pair.right.name = name
  }
}

/// Scoped observers of values whose bytes an action touched without changing them are not
/// called, and are called for every real change, including one that keeps the bytes of an equal
/// value elsewhere.
@Suite struct ScopeSnapshotTests {
  @Test("an observer of a sibling the action did not change is not called; every change is seen")
  func siblings() throws {
    let store = try Store(initialState: Home(), mutators: [pairMutator])
    let seen = Probe<String>()
    let right = store.scope(\.pair).scope(\.right)
    let subscription = right.subscribe(initial: false) { seen.append("\($0.count) \($0.name)") }
    defer { subscription.cancel() }
    for count in 1...3 { store.dispatch(PairAction.left(count: count)) }
    store.dispatch(PairAction.right(count: 1))
    store.dispatch(PairAction.left(count: 9))
    store.dispatch(PairAction.right(count: 0))
    store.dispatch(PairAction.right(count: 1))
    // An equal name in a new buffer is no change; a different one is.
    store.dispatch(PairAction.renameRight(String(["a"])))
    store.dispatch(PairAction.renameRight("b"))
    store.dispatch(PairAction.renameRight("a"))
    #expect(seen.values == ["1 a", "0 a", "1 a", "1 b", "1 a"])
  }
}
