import Reduce
import Synchronization
import Testing

// The examples of Getting Started's sections 9 and 10 and of Guides/Composing.md, compiled and
// checked. Keep the two in step.

/// The types of Guides/Composing.md.
enum ComposingExample {
  struct AppState: Equatable, Sendable {
    var profile = Profile()
    var cart = Cart()
  }

  struct Profile: Equatable, Sendable {
    var name = ""
    var isPremium = false
  }

  struct Cart: Equatable, Sendable {
    var items: [Item] = []
  }

  struct Item: Equatable, Sendable {
    var name: String
    var price: Int
  }

  enum ProfileAction: Action {
    case renamed(String)
    case upgraded
  }

  enum CartAction: Action {
    case added(Item)
  }

  static let profile = Mutator(\AppState.profile) {
    (profile: inout Profile, action: ProfileAction) in
    switch action {
    case .renamed(let name): profile.name = name
    case .upgraded: profile.isPremium = true
    }
  }
  static let cart = Mutator(\AppState.cart) { (cart: inout Cart, action: CartAction) in
    if case .added(let item) = action { cart.items.append(item) }
  }

  /// Text a view shows: written by an observer on the dispatching thread, read by the view.
  final class Label: Sendable {
    private let text = Mutex("")

    var value: String { text.withLock { $0 } }

    func show(_ value: String) {
      text.withLock { $0 = value }
    }
  }

  /// A child feature: its code takes its scoped store, nothing else.
  final class ProfileScreen: Sendable {
    let store: ScopedStore<Profile>
    let title = Label()
    let subscription: Subscription

    init(store: ScopedStore<Profile>) {
      self.store = store
      let title = title
      subscription = store.subscribe(to: \.name) { name in title.show("Hello, \(name)") }
    }

    func rename(_ name: String) {
      store.dispatch(ProfileAction.renamed(name))
    }
  }
}

@Suite struct CompositionGuideExamplesTests {
  @Test("Getting Started 9 and 10: a scoped filter bar, a derived value and a selector")
  func gettingStarted() throws {
    typealias Todo = GettingStartedExample.Todo
    typealias TodoState = GettingStartedExample.TodoState
    typealias Filter = GettingStartedExample.Filter
    typealias TodoAction = GettingStartedExample.TodoAction
    typealias FilterAction = GettingStartedExample.FilterAction

    let store = try Store(
      initialState: TodoState(),
      mutators: [
        Mutator(\TodoState.todos) { (todos: inout [Todo], action: TodoAction) in
          if case .added(let title) = action { todos.append(Todo(title: title)) }
          if case .toggled(let index) = action { todos[index].isDone.toggle() }
        },
        Mutator(\TodoState.filter) { (filter: inout Filter, action: FilterAction) in
          if case .selected(let new) = action { filter = new }
        },
      ])

    func filterBar(_ filter: ScopedStore<Filter>) -> Subscription {
      filter.subscribe { current in print("filter:", current) }  // only when the filter changed
    }

    let filters = Mutex<[Filter]>([])
    let watcher = store.scope(\.filter).subscribe { current in
      filters.withLock { $0.append(current) }
    }
    let bar = filterBar(store.scope(\.filter))
    store.dispatch(TodoAction.added("Buy milk"))
    store.scope(\.filter).dispatch(FilterAction.selected(.open))
    #expect(filters.withLock { $0 } == [.all, .open])
    bar.cancel()
    watcher.cancel()

    let counts = Mutex<[Int]>([])
    let empties = Mutex<[Bool]>([])
    let openCount = MemoizedSelector(\TodoState.todos) { todos in
      todos.filter { !$0.isDone }.count
    }
    let badge = store.subscribe(to: openCount) { count in print(count, "open") }
    let counter = store.subscribe(to: openCount) { count in counts.withLock { $0.append(count) } }
    let isEmpty: @Sendable (TodoState) -> Bool = { $0.todos.isEmpty }
    let empty = store.subscribe(to: isEmpty, initial: false) { isEmpty in
      print(isEmpty ? "all clear" : "something to do")
      empties.withLock { $0.append(isEmpty) }
    }
    store.dispatch(TodoAction.added("Call mum"))
    store.dispatch(TodoAction.toggled(index: 0))
    store.dispatch(FilterAction.selected(.all))
    #expect(counts.withLock { $0 } == [1, 2, 1])
    #expect(empties.withLock { $0 }.isEmpty)
    #expect(openCount.computations == 3)
    badge.cancel()
    counter.cancel()
    empty.cancel()
  }

  @Test("Composing: a child feature, its test, selectors shared by readers")
  func composing() throws {
    typealias AppState = ComposingExample.AppState
    typealias Profile = ComposingExample.Profile
    typealias Cart = ComposingExample.Cart
    typealias Item = ComposingExample.Item
    typealias ProfileAction = ComposingExample.ProfileAction
    typealias CartAction = ComposingExample.CartAction
    typealias ProfileScreen = ComposingExample.ProfileScreen

    let profile = ComposingExample.profile
    let cart = ComposingExample.cart
    let store = try Store(initialState: AppState(), mutators: [profile, cart])
    let screen = ProfileScreen(store: store.scope(\.profile))
    screen.rename("Ada")  // dispatched into the app's store; screen.title.value is "Hello, Ada"
    #expect(screen.title.value == "Hello, Ada")
    #expect(store.state.profile.name == "Ada")

    // The child's test: a store of the child's state alone.
    let profileOnly = try Store(
      initialState: Profile(),
      mutators: [
        Mutator(\Profile.name) { (name: inout String, action: ProfileAction) in
          if case .renamed(let new) = action { name = new }
        }
      ])
    let tested = ProfileScreen(store: ScopedStore(profileOnly))
    tested.rename("Lin")  // tested.title.value is "Hello, Lin"
    #expect(tested.title.value == "Hello, Lin")

    // Derived, read-only scopes and memoized selectors.
    let total = MemoizedSelector(\AppState.cart.items, \AppState.profile.isPremium) {
      items, isPremium in
      let sum = items.reduce(0) { $0 + $1.price }
      return isPremium ? sum * 9 / 10 : sum
    }
    let totals = Mutex<[Int]>([])
    let readers = (0..<3).map { _ in
      store.subscribe(to: total) { value in totals.withLock { $0.append(value) } }
    }
    store.dispatch(CartAction.added(Item(name: "tea", price: 100)))
    store.dispatch(ProfileAction.upgraded)
    store.dispatch(ProfileAction.renamed("Ada Lovelace"))
    let itemCount = store.scope(\.cart).scope { $0.items.count }  // a derived, read-only scope
    #expect(totals.withLock { $0 } == [0, 0, 0, 100, 100, 100, 90, 90, 90])
    #expect(total.computations == 3)  // once per change of its inputs, for the three readers
    #expect(itemCount.state == 1)
    #expect(store.select(total) == 90)
    for subscription in readers { subscription.cancel() }
  }

  /// The types of Guides/Composing.md's "Scoping into a collection".
  enum BoardExample {
    struct Board: Equatable, Sendable {
      var columns: [Column] = []
      var notes: [String: String] = [:]
    }

    struct Column: Identifiable, Equatable, Sendable {
      var id: Int
      var title: String
    }

    struct Removed: Action {
      var id: Int
    }
  }

  @Test("Composing: scoping into a collection, by identity, position and key")
  func scopingIntoACollection() throws {
    typealias Board = BoardExample.Board
    typealias Column = BoardExample.Column
    let store = try Store(
      initialState: Board(
        columns: [
          Column(id: 1, title: "To do"), Column(id: 2, title: "Doing"),
          Column(id: 3, title: "Done"),
        ],
        notes: ["intro": "Hello"]),
      mutators: [
        Mutator(\Board.columns) { (columns: inout [Column], action: BoardExample.Removed) in
          columns.removeAll { $0.id == action.id }
        }
      ])
    let done = store.scope(\.columns, id: 3)  // ScopedStore<Column?>: follows column 3
    let third = store.scope(\.columns, index: 2)  // ScopedStore<Column?>: whatever is third
    let note = store.scope(\.notes, key: "intro")  // ScopedStore<String?>
    let title = done.scope(\.?.title)  // ScopedStore<String?>
    #expect(note.state == "Hello")
    store.dispatch(BoardExample.Removed(id: 1))
    #expect(done.state?.title == "Done" && title.state == "Done" && third.state == nil)
    #expect(try done.dispatch(BoardExample.Removed(id: 3)).get() == nil)
    #expect(title.state == nil)
  }
}
