import Reduce
import Synchronization
import Testing

// The examples of README.md, Getting Started (sections 1 to 8) and Writing Middleware's offline
// queue, kept here so that they keep compiling and doing what the text says. Each namespace
// holds one document's types; each test holds its code. The other snippets of the guides are
// in GuideSnippetsTests.swift and CompositionGuideExamplesTests.swift.

enum ReadmeExample {
  struct AppState: Equatable, Sendable {
    var count = 0
    var user: String?
  }
  enum CounterAction: Action {
    case incremented(by: Int)
    case reset
  }
  enum SessionAction: Action {
    case loggedIn(String)
    case loggedOut
  }
}

enum GettingStartedExample {
  struct Todo: Equatable, Sendable {
    var title: String
    var isDone = false
  }

  struct TodoState: Equatable, Sendable {
    var todos: [Todo] = []
    var filter = Filter.all
  }

  enum Filter: Equatable, Sendable {
    case all, open, done
  }

  enum TodoAction: Action {
    case added(String)
    case toggled(index: Int)
    case removed(index: Int)
  }

  enum FilterAction: Action {
    case selected(Filter)
  }

  struct IndexOutOfRange: Error {
    let index: Int
  }

  struct EmptyTitle: Error {}
}

enum MiddlewareExample {
  enum Connectivity: Action {
    case wentOffline
    case wentOnline
  }

  enum SyncAction: Action {
    case upload(String)
  }

  struct NetworkState: Equatable, Sendable {
    var isOnline = true
    var uploaded: [String] = []
  }

  final class OfflineQueue: Middleware, Sendable {
    private let held = Mutex<[(SyncAction, Next<NetworkState>)]>([])

    func handle(
      _ action: any Action, context: MiddlewareContext<NetworkState>, next: Next<NetworkState>
    ) throws {
      switch action {
      case let sync as SyncAction where !context.state.isOnline:
        held.withLock { $0.append((sync, next)) }
      case let connectivity as Connectivity where connectivity == .wentOnline:
        try next(action)
        let release = held.withLock { queue in
          defer { queue.removeAll() }
          return queue
        }
        for (sync, later) in release { try later(sync) }
      default:
        try next(action)
      }
    }

    func didDetach(from store: ObjectIdentifier) {
      held.withLock { $0.removeAll() }
    }
  }
}

@Suite struct GuideExamplesTests {
  @Test("the README example builds a store, logs, observes and returns the new state")
  func readme() throws {
    typealias AppState = ReadmeExample.AppState
    typealias CounterAction = ReadmeExample.CounterAction
    typealias SessionAction = ReadmeExample.SessionAction
    let counter = Mutator(\AppState.count) { (count: inout Int, action: CounterAction) in
      switch action {
      case .incremented(let n): count += n
      case .reset: count = 0
      }
    }
    .on(SessionAction.self) { (count: inout Int, action) in
      if case .loggedOut = action { count = 0 }
    }
    let logger = AnyMiddleware<AppState>(name: "logger") { action, context, next in
      print("→", action)
      try next(action)
    }
    let store = try Store(initialState: AppState(), mutators: [counter], middleware: [logger])
    let subscription = store.subscribe(to: \.count) { print("count is", $0) }
    let state = try store.dispatch(CounterAction.incremented(by: 2)).get()  // state.count == 2

    #expect(state.count == 2)
    #expect(try store.dispatch(SessionAction.loggedOut).get().count == 0)
    subscription.cancel()
  }

  @Test("the README's send from a task returns the state its action produced")
  func readmeSend() async throws {
    typealias AppState = ReadmeExample.AppState
    let counter = Mutator(\AppState.count) {
      (count: inout Int, action: ReadmeExample.CounterAction) in
      if case .incremented(let n) = action { count += n }
    }
    let store = try Store(initialState: AppState(), mutators: [counter])
    let state = try await store.send(ReadmeExample.CounterAction.incremented(by: 3)).get()
    #expect(state.count == 3)
  }

  @Test("the Writing Middleware guide's AuthGuard stops an admin action, alone or in a batch")
  func authGuard() throws {
    typealias AppState = MiddlewareSnippets.AppState
    typealias AdminAction = MiddlewareSnippets.AdminAction
    let deletions = Mutator(\AppState.deleted) { (deleted: inout Int, _: AdminAction) in
      deleted += 1
    }
    let store = try Store(
      initialState: AppState(), mutators: [deletions], middleware: [MiddlewareSnippets.AuthGuard()])
    #expect(throws: DispatchError.self) { try store.dispatch(AdminAction.deleteAll).get() }
    #expect(throws: DispatchError.self) {
      try store.dispatch(Batch([Batch([AdminAction.deleteAll])])).get()
    }
    #expect(store.state.deleted == 0)
  }

  @Test("the Getting Started guide's to-do store behaves as the guide says")
  func gettingStarted() async throws {
    typealias Todo = GettingStartedExample.Todo
    typealias TodoState = GettingStartedExample.TodoState
    typealias Filter = GettingStartedExample.Filter
    typealias TodoAction = GettingStartedExample.TodoAction
    typealias FilterAction = GettingStartedExample.FilterAction
    typealias IndexOutOfRange = GettingStartedExample.IndexOutOfRange
    typealias EmptyTitle = GettingStartedExample.EmptyTitle

    let todos = Mutator(\TodoState.todos) { (todos: inout [Todo], action: TodoAction) throws in
      switch action {
      case .added(let title):
        todos.append(Todo(title: title))
      case .toggled(let index):
        guard todos.indices.contains(index) else { throw IndexOutOfRange(index: index) }
        todos[index].isDone.toggle()
      case .removed(let index):
        guard todos.indices.contains(index) else { throw IndexOutOfRange(index: index) }
        todos.remove(at: index)
      }
    }

    let filter = Mutator(\TodoState.filter) { (filter: inout Filter, action: FilterAction) in
      if case .selected(let new) = action { filter = new }
    }

    let store = try Store(initialState: TodoState(), mutators: [todos, filter])
    try store.validateCoverage()  // every property of TodoState has a mutator

    let state = try store.dispatch(TodoAction.added("Buy milk")).get()
    #expect(state.todos.map(\.title) == ["Buy milk"])

    var failure: DispatchError?
    switch store.dispatch(TodoAction.toggled(index: 7)) {
    case .success:
      break
    case .failure(let error):
      print(error)  // Mutator '\TodoState.todos' failed to reduce toggled(index: 7): ...
      failure = error
    }
    #expect(failure?.description.hasPrefix("Mutator '\\TodoState.todos' failed to reduce") == true)
    #expect(store.state.todos == [Todo(title: "Buy milk")])

    let counts = Mutex<[Int]>([])
    let subscription = store.subscribe(to: \.todos) { todos in
      print("\(todos.count) to-dos")
      counts.withLock { $0.append(todos.count) }
    }
    let printer = Task {
      for await filter in store.states(of: \.filter) {
        print("showing", filter)
      }
    }
    defer { printer.cancel() }
    store.dispatch(TodoAction.added("Call mum"))
    #expect(counts.withLock { $0 } == [1, 2])

    let validation = AnyMiddleware<TodoState>(name: "validation") { action, context, next in
      if case TodoAction.added(let title) = action, title.isEmpty { throw EmptyTitle() }
      try next(action)
    }
    try store.use(validation)
    guard case .failure(.rejected(let name, _, _)) = store.dispatch(TodoAction.added("")) else {
      Issue.record("an empty title should be rejected")
      return
    }
    #expect(name == "validation")

    #expect(throws: RegistrationError.duplicateKey("\\TodoState.filter")) {
      try store.register(
        Mutator(\TodoState.filter) { (f: inout Filter, _: TodoAction) in f = .all })
    }
    let message = String(describing: RegistrationError.duplicateKey("\\TodoState.filter"))
    #expect(message.hasPrefix("A mutator with key '\\TodoState.filter' is already registered"))

    // A sequence starts with the current value; a consumer that falls behind gets the newest.
    var filters = store.states(of: \.filter).makeAsyncIterator()
    #expect(await filters.next() == .all)
    store.dispatch(FilterAction.selected(.open))
    store.dispatch(FilterAction.selected(.done))
    #expect(await filters.next() == .done)
    subscription.cancel()
  }

  @Test("the Writing Middleware guide's offline queue holds uploads until back online")
  func offlineQueue() throws {
    typealias Connectivity = MiddlewareExample.Connectivity
    typealias SyncAction = MiddlewareExample.SyncAction
    typealias NetworkState = MiddlewareExample.NetworkState
    typealias OfflineQueue = MiddlewareExample.OfflineQueue

    let trace = AnyMiddleware<NetworkState>(name: "trace") { action, context, next in
      print("will", action)
      try next(action)
      print("did", action, "->", context.state)
    }

    let network = Mutator(\NetworkState.isOnline) { (online: inout Bool, action: Connectivity) in
      online = action == .wentOnline
    }
    let uploads = Mutator(\NetworkState.uploaded) { (list: inout [String], action: SyncAction) in
      if case .upload(let name) = action { list.append(name) }
    }
    let store = try Store(
      initialState: NetworkState(), mutators: [network, uploads], middleware: [OfflineQueue()])

    store.dispatch(Connectivity.wentOffline)
    store.dispatch(SyncAction.upload("a.txt"))  // held
    store.dispatch(SyncAction.upload("b.txt"))  // held
    #expect(store.state.uploaded.isEmpty)
    let state = try store.dispatch(Connectivity.wentOnline).get()
    #expect(state.uploaded == ["a.txt", "b.txt"])

    try store.use(trace)
    #expect(store.middlewareNames == ["OfflineQueue", "trace"])
  }
}
