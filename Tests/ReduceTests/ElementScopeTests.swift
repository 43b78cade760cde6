import Observation
import Reduce
import Synchronization
import Testing

/// A kanban board: columns that are added, removed, moved and renamed.
struct Board: Equatable, Sendable {
  var columns: [Column] = []
  var cards: [String: String] = [:]
  var unrelated = 0
}

struct Column: Identifiable, Equatable, Sendable {
  var id: Int
  var title: String
}

enum BoardAction: Action {
  case added(Column)
  case removed(id: Int)
  case moved(from: Int, to: Int)
  case renamed(id: Int, title: String)
  case carded(String, String?)
}

/// Handled by a mutator of another part of the board only.
struct Touched: Action {}

let boardMutators: [Mutator<Board>] = [
  Mutator(\Board.columns) { (columns: inout [Column], action: BoardAction) in
    switch action {
    case .added(let column): columns.append(column)
    case .removed(let id): columns.removeAll { $0.id == id }
    case .moved(let from, let to): columns.insert(columns.remove(at: from), at: to)
    case .renamed(let id, let title):
      for index in columns.indices where columns[index].id == id { columns[index].title = title }
    case .carded: break
    }
  },
  Mutator(\Board.cards) { (cards: inout [String: String], action: BoardAction) in
    if case .carded(let key, let value) = action { cards[key] = value }
  },
  Mutator(\Board.unrelated) { (unrelated: inout Int, _: Touched) in unrelated += 1 },
]

/// Three columns, with room to grow in place.
func makeBoard() throws -> Store<Board> {
  var columns = [Column(id: 1, title: "To do"), Column(id: 2, title: "Doing")]
  columns.reserveCapacity(16)
  columns.append(Column(id: 3, title: "Done"))
  return try Store(initialState: Board(columns: columns), mutators: boardMutators)
}

/// What each observing form of one scope saw.
final class ScopeWatch: Sendable {
  let whole = Probe<Column?>()
  let titles = Probe<String?>()
  let selected = Probe<Int?>()
  let tracked = Probe<Int>()
  private let subscriptions: [Subscription]

  init(_ scope: ScopedStore<Column?>) {
    var subscriptions: [Subscription] = []
    subscriptions.append(scope.subscribe(initial: false) { [whole] in whole.append($0) })
    subscriptions.append(
      scope.subscribe(to: \.?.title, initial: false) { [titles] in titles.append($0) })
    subscriptions.append(
      scope.subscribe(to: { $0?.id }, initial: false) { [selected] in selected.append($0) })
    self.subscriptions = subscriptions
  }
}

/// Counts Observation's change notices of a scope's state, tracking again after each.
func trackChanges(of scope: ScopedStore<Column?>, into notices: Probe<Int>) {
  withObservationTracking {
    _ = scope.state
  } onChange: {
    notices.append(1)
  }
}

@Suite struct ElementScopeTests {
  @Test("a scope by position reads nil once the collection is shorter, and never traps")
  func positionGone() throws {
    let store = try makeBoard()
    let third = store.scope(\.columns, index: 2)
    let watch = ScopeWatch(third)
    trackChanges(of: third, into: watch.tracked)
    #expect(third.state?.title == "Done")

    store.dispatch(BoardAction.removed(id: 1))
    #expect(third.state == nil)
    #expect(try third.dispatch(BoardAction.renamed(id: 3, title: "Shipped")).get() == nil)
    #expect(try third.dispatch([Touched()]).get() == nil)
    store.dispatch(BoardAction.added(Column(id: 4, title: "Later")))
    #expect(third.state == Column(id: 4, title: "Later"))

    #expect(watch.whole.values == [nil, Column(id: 4, title: "Later")])
    #expect(watch.titles.values == [nil, "Later"])
    #expect(watch.selected.values == [nil, 4])
    #expect(watch.tracked.count == 1)
  }

  @Test("a scope by identity follows its element when it moves")
  func identityMoves() throws {
    let store = try makeBoard()
    let done = store.scope(\.columns, id: 3)
    let watch = ScopeWatch(done)
    store.dispatch(BoardAction.moved(from: 2, to: 0))
    #expect(done.state == Column(id: 3, title: "Done"))
    store.dispatch(BoardAction.renamed(id: 3, title: "Shipped"))
    #expect(done.state?.title == "Shipped")
    store.dispatch(BoardAction.moved(from: 0, to: 2))
    store.dispatch(BoardAction.renamed(id: 1, title: "Backlog"))
    #expect(watch.whole.values == [Column(id: 3, title: "Shipped")])
    #expect(watch.titles.values == ["Shipped"])
    #expect(watch.selected.values.isEmpty)
  }

  @Test("a scope by identity reads nil when its element is removed, and again when it is back")
  func identityRemovedAndBack() async throws {
    let store = try makeBoard()
    let doing = store.scope(\.columns, id: 2)
    let watch = ScopeWatch(doing)
    var states = doing.states.makeAsyncIterator()
    #expect(await states.next() == .some(Column(id: 2, title: "Doing")))
    trackChanges(of: doing, into: watch.tracked)

    let before = store.state
    store.dispatch(BoardAction.removed(id: 2))
    #expect(doing.state == nil)
    #expect(await states.next() == .some(nil))
    #expect(watch.tracked.count == 1)

    store.dispatch(ReplaceState(before))
    #expect(doing.state == Column(id: 2, title: "Doing"))
    #expect(await states.next() == .some(Column(id: 2, title: "Doing")))

    store.dispatch(ReplaceState(Board()))
    #expect(doing.state == nil)
    #expect(await states.next() == .some(nil))
    #expect(watch.whole.values == [nil, Column(id: 2, title: "Doing"), nil])
    #expect(watch.titles.values == [nil, "Doing", nil])
    #expect(watch.selected.values == [nil, 2, nil])
  }

  @Test("a scope's observers skip actions that change other parts of the state")
  func skipsOtherParts() throws {
    let store = try makeBoard()
    let calls = Mutex(0)
    let column = store.scope(\.columns, id: 1)
    let title: @Sendable (Column?) -> String? = { column in
      calls.withLock { $0 += 1 }
      return column?.title
    }
    let subscription = column.subscribe(to: title, initial: false) { _ in }
    #expect(calls.withLock { $0 } == 1)  // the value at subscription
    store.dispatch(Touched())
    store.dispatch(Touched())
    #expect(calls.withLock { $0 } == 1)
    store.dispatch(BoardAction.renamed(id: 1, title: "Backlog"))
    #expect(calls.withLock { $0 } == 2)
    subscription.cancel()
  }

  @Test("a scope of a dictionary's key reads nil without the key")
  func dictionaryKey() throws {
    let store = try makeBoard()
    let card = store.scope(\.cards, key: "c1")
    let seen = Probe<String?>()
    let subscription = card.subscribe { seen.append($0) }
    store.dispatch(BoardAction.carded("c1", "Write the guide"))
    store.dispatch(BoardAction.carded("c2", "Other"))
    store.dispatch(BoardAction.carded("c1", nil))
    #expect(card.state == nil)
    #expect(seen.values == [nil, "Write the guide", nil])
    subscription.cancel()
  }

  @Test("element scopes compose with further scopes, by identity inside a scope")
  func nested() throws {
    let store = try makeBoard()
    let title = store.scope(\.columns, id: 2).scope(\.?.title)
    let inBoard = ScopedStore(store).scope(\.columns, id: 2)
    store.dispatch(BoardAction.renamed(id: 2, title: "Review"))
    #expect(title.state == "Review")
    #expect(inBoard.state?.title == "Review")
    store.dispatch(BoardAction.removed(id: 2))
    #expect(title.state == nil)
    #expect(inBoard.state == nil)
  }

  @Test("a scope by identity finds its element among 100,000 after it moved")
  func manyElements() throws {
    let columns = (0..<100_000).map { Column(id: $0, title: "c\($0)") }
    let store = try Store(initialState: Board(columns: columns), mutators: boardMutators)
    let last = store.scope(\.columns, id: 99_999)
    #expect(last.state?.title == "c99999")
    store.dispatch(BoardAction.moved(from: 99_999, to: 0))
    #expect(last.state?.title == "c99999")
    store.dispatch(BoardAction.removed(id: 99_999))
    #expect(last.state == nil)
  }
}
